//! Keys that terminals and multiplexers swallow (issue 29, item 7): Alt-Enter is full-screen in
//! Windows Terminal and no Meta key with macOS Option by default, so the suggested filter has a
//! second key, Ctrl-T, one control byte that every terminal and tmux pass on.

use crate::{
    pty_support::{Launch, TIMEOUT, launch, one_at_a_time},
    support::copy_fixtures,
};

#[test]
fn ctrl_t_applies_the_suggestion_from_the_search_box_and_the_status_line_names_both_keys() {
    let _serial = one_at_a_time();
    // A library with no problem in it: no start-up note over the status line.
    let dir = tempfile::tempdir().unwrap();
    let data = copy_fixtures(dir.path());
    std::fs::remove_file(data.join("wide-text.toml")).unwrap();
    let mut s = launch(Launch { data: Some(&data), ..Launch::default() });
    s.wait_text("Cases 1 to 5 of 5");
    // The status line is the frame's last row: it may still be on its way when the results
    // above it are on the screen (a slow pty hands a frame over in pieces), so it is waited for
    // rather than read once.
    s.wait_for("the status line naming both keys", |screen| {
        screen.contents().lines().last().is_some_and(|l| l.contains("Ctrl-T/Alt-Enter apply suggestion"))
    });
    s.typed("job hung at the checkpoint");
    // The suggestions for the whole sentence (one for its first words, "Hang", comes earlier:
    // waiting for it alone raced the last search).
    s.wait_for("the sentence's suggested filters", |screen| {
        screen
            .contents()
            .lines()
            .any(|l| l.starts_with("Suggested: ") && l.contains("Hang") && l.contains("Checkpointing"))
    });
    s.send(b"\x14");
    // One of them is applied (which one is highlighted depends on the last search's ranking,
    // which this test does not pin).
    s.wait_for("a suggestion applied", |screen| {
        screen.contents().lines().any(|l| {
            l.starts_with("Applied: [Component: Checkpointing]") || l.starts_with("Applied: [Symptom: Hang]")
        })
    });
    // The sentence stays, and the focus too: the next letter is text.
    s.send(b"s");
    s.wait_text("› job hung at the checkpoints");
    s.send(b"\x03");
    let (status, _) = s.wait_exit(TIMEOUT).expect("Ctrl-C quits");
    assert!(status.success(), "{status:?}");
    s.assert_restored();
}
