//! `incidex checklist` through the built binary, over the fixture library in
//! tests/fixtures/checklist: golden files of the output (tests/golden/), the Markdown read back
//! by a CommonMark/GFM parser, and writing files (atomic, no clobber, --force, mode 0644).
//!
//! Golden files: run with `INCIDEX_BLESS=1` to rewrite them after an intended change, then
//! read the diff.

use std::{
    collections::HashSet,
    path::Path,
    process::{Command, Output},
};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/checklist");
const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden");
/// 2025-01-01T00:00:00Z.
const EPOCH: &str = "1735689600";

fn incidex_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_incidex"))
        .current_dir(dir)
        .args(["--no-bundled", "--data", FIXTURE])
        .args(args)
        .env("SOURCE_DATE_EPOCH", EPOCH)
        .env_remove("INCIDEX_DATA")
        .env("XDG_CONFIG_HOME", "/nonexistent")
        .output()
        .expect("the binary runs")
}

fn incidex(args: &[&str]) -> Output {
    incidex_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn stdout(args: &[&str]) -> String {
    let out = incidex(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The output with the version (which changes with the bundled library) replaced, as it
/// appears in JSON and, escaped, in Markdown.
fn normalised(text: &str) -> String {
    let version = format!("incidex {}", *incidex::VERSION_LINE);
    text.replace(&version, "incidex VERSION")
        .replace(&incidex::text::markdown::escape_inline(&version), "incidex VERSION")
}

/// Compare `actual` with the golden file `name`, or rewrite it under `INCIDEX_BLESS=1`.
fn golden(name: &str, actual: &str) {
    let path = Path::new(GOLDEN).join(name);
    if std::env::var_os("INCIDEX_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(want == actual, "{name} differs from its golden file; INCIDEX_BLESS=1 rewrites it.\n{actual}");
}

#[test]
fn markdown_matches_the_golden_files() {
    golden("checklist-nccl.md", &normalised(&stdout(&["checklist", "--component", "nccl"])));
    golden(
        "checklist-nccl-hang.md",
        &normalised(&stdout(&["checklist", "--component", "all-reduce", "--symptom", "stuck"])),
    );
}

#[test]
fn json_matches_the_golden_file() {
    let out = stdout(&["checklist", "--component", "NCCL", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["item_count"], 6);
    assert_eq!(out, stdout(&["checklist", "--component", "NCCL", "--json"]));
    golden("checklist-nccl.json", &normalised(&out));
}

/// What a GFM reader finds in `md`: the list items and whether each is a task, the links, any
/// raw HTML, math or images, and the plain text.
#[derive(Default, Debug)]
struct Read {
    items: usize,
    tasks: usize,
    unchecked: usize,
    links: Vec<String>,
    html: Vec<String>,
    other: Vec<String>,
    text: String,
}

fn read(md: &str) -> Read {
    let options = Options::ENABLE_TASKLISTS
        | Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_MATH
        | Options::ENABLE_GFM;
    let mut r = Read::default();
    let mut after_item_start = false;
    for event in Parser::new_ext(md, options) {
        let starts_item = matches!(event, Event::Start(Tag::Item));
        match &event {
            Event::Start(Tag::Item) => r.items += 1,
            Event::TaskListMarker(checked) => {
                assert!(after_item_start, "a task marker outside an item's start");
                r.tasks += 1;
                if !checked {
                    r.unchecked += 1;
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => r.links.push(dest_url.to_string()),
            Event::Html(h) | Event::InlineHtml(h) => r.html.push(h.to_string()),
            Event::Start(Tag::Image { .. } | Tag::HtmlBlock | Tag::FootnoteDefinition(_) | Tag::Table(_))
            | Event::InlineMath(_)
            | Event::DisplayMath(_)
            | Event::FootnoteReference(_) => r.other.push(format!("{event:?}")),
            Event::Text(t) | Event::Code(t) => r.text.push_str(t),
            Event::SoftBreak | Event::HardBreak | Event::End(TagEnd::Paragraph) => r.text.push('\n'),
            _ => {}
        }
        after_item_start = starts_item;
    }
    r
}

/// Every http(s) source URL of the cases a checklist covers, as the checklist may link it,
/// read from the library itself (`show --json`), not from the checklist.
fn source_urls(checklist_args: &[&str]) -> HashSet<String> {
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&[checklist_args, &["--json"]].concat())).expect("checklist --json");
    let mut urls = HashSet::new();
    for case in json["cases"].as_array().unwrap() {
        let shown: serde_json::Value =
            serde_json::from_str(&stdout(&["show", case["id"].as_str().unwrap(), "--json"])).unwrap();
        for source in shown["sources"].as_array().unwrap() {
            if let Some(url) = source["url"].as_str() {
                urls.insert(url.replace('(', "%28").replace(')', "%29"));
            }
        }
    }
    urls
}

#[test]
fn a_gfm_reader_sees_only_unchecked_tasks_source_links_and_no_html() {
    for args in [
        &["checklist", "--component", "nccl"][..],
        &["checklist", "--component", "nccl", "--symptom", "hang"],
    ] {
        let urls = source_urls(args);
        let md = stdout(args);
        let r = read(&md);
        assert!(r.items > 0, "{args:?}");
        assert_eq!(r.items, r.tasks, "{args:?}: every list item is a task-list item\n{md}");
        assert_eq!(r.tasks, r.unchecked, "{args:?}: every task starts unchecked");
        assert!(r.html.is_empty(), "{args:?}: raw HTML got through: {:?}", r.html);
        assert!(r.other.is_empty(), "{args:?}: unexpected markup: {:?}", r.other);
        assert!(!r.links.is_empty());
        for link in &r.links {
            assert!(urls.contains(link), "{args:?}: {link} is not one of the cases' sources");
        }
    }
}

#[test]
fn a_case_full_of_markdown_and_html_comes_out_as_its_own_text() {
    let r = read(&stdout(&["checklist", "--component", "nccl"]));
    for literal in [
        "<script>alert(1)</script>",
        "**bold**, [a link](https://evil.example/x)",
        "& `code`",
        "- [x] Pre-checked? <img src=x onerror=alert(1)> see https://evil.example/y or www.evil.example,",
        "mail ops@evil.example, pay $5 | col | ![img](https://evil.example/i.png) <!-- comment -->",
        "# not a heading 1. not a list",
        "Source [with] *stars* and <i>tags</i>",
    ] {
        assert!(r.text.contains(literal), "{literal:?} is not in the text:\n{}", r.text);
    }
    assert!(r.links.iter().all(|l| !l.contains("evil")), "{:?}", r.links);
}

#[test]
fn items_for_other_components_are_left_out_and_near_duplicates_merged() {
    let md = stdout(&["checklist", "--component", "nccl"]);
    assert!(!md.contains("Save checkpoints every 500 steps"), "tagged for Checkpointing only");
    assert!(!md.contains("Monitor link flaps"), "tagged for RDMA fabric only");
    assert!(!md.contains("Cache DNS answers"), "a DNS case");
    assert_eq!(md.matches("throughput drops to zero").count(), 1, "the two alike items are one");
    let merged =
        md.lines().skip_while(|l| !l.contains("throughput drops to zero")).take(3).collect::<Vec<_>>();
    assert!(
        merged[1].contains("`2024-06-nccl-watchdog`") && merged[2].contains("`2024-02-nccl-rdma`"),
        "{merged:?}"
    );
    // The report's phrasing wins over the editorial one it merged with.
    assert!(md.contains("- [ ] Raise the NCCL watchdog timeout.\\\n"), "{md}");
}

#[test]
fn writing_a_file_never_clobbers_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["checklist", "--component", "nccl", "-o", "list.md"];
    let out = incidex_in(dir.path(), &args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "wrote 6 items from 4 cases to list.md\n");
    let path = dir.path().join("list.md");
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(written, stdout(&["checklist", "--component", "nccl"]), "the file holds what stdout would");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o644);
    }

    std::fs::write(&path, "my notes").unwrap();
    let out = incidex_in(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "incidex: list.md: file exists; use --force to overwrite it\n"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "my notes", "untouched");

    let out = incidex_in(dir.path(), &[&args[..], &["--force"]].concat());
    assert!(out.status.success());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), written);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["list.md"], "no temporary file is left behind");

    let out = incidex_in(dir.path(), &["checklist", "--component", "nccl", "-o", "-"]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), written, "-o - is stdout");
}

#[test]
fn errors_are_one_clear_line_with_the_right_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/list.md");
    let missing = missing.to_str().unwrap();
    for (args, code, start) in [
        (&["checklist"][..], 2, "incidex: checklist needs --component V"),
        (
            &["checklist", "--component", "flux capacitor"][..],
            2,
            "incidex: unknown component 'flux capacitor'",
        ),
        (
            &["checklist", "--component", "checkpointing", "--symptom", "slow training"][..],
            1,
            "incidex: no case involves component 'Checkpointing' under symptom:\"Slow training\"",
        ),
        (&["checklist", "--component", "nccl", "-o", missing][..], 1, &format!("incidex: {missing}: ")),
    ] {
        let out = incidex(args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.starts_with(start) && stderr.lines().count() == 1, "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
