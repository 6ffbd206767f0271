//! OSC 8 hyperlinks for the case pane's source addresses (issue 29, item 8): in a terminal that
//! supports them, each address the pane shows (whole, or wrapped whole over several lines) can
//! be clicked or opened from the terminal's menu.
//!
//! **How they are written.** ratatui lays a frame out cell by cell and measures every cell's
//! symbol, so an escape sequence inside a cell would be counted as text and shift the row. The
//! frame is therefore drawn as always, with no escape in any cell, and the links are written
//! afterwards, over the cells already drawn: save the cursor (`ESC 7`), then for each piece of
//! an address `ESC ] 8 ; ; URL ESC \`, the piece's cells written again exactly as drawn (same
//! characters, same style, through the backend's own cell writer), `ESC ] 8 ; ; ESC \`; then
//! restore the cursor (`ESC 8`) to where the frame left it. The screen looks the same cell for
//! cell; the cells now carry the link.
//!
//! The frame's diff rewrites only cells that changed, and a rewritten cell loses its link, so
//! a piece is written again whenever its cells (or the cell before them, which a wide character
//! changing there would make the diff rewrite too) differ from when it was last linked, and
//! after anything that repaints the whole screen (a resize, `Ctrl-L`, coming back from
//! `Ctrl-Z`: [`Hyperlinks::forget`]). An unchanged frame costs nothing.
//!
//! **What becomes a link.** Only a case's `sources[].url`, never other case text, and only
//! when [`linkable`]: a plain `http://` or `https://` address of printable ASCII (no space, no
//! control character, no escape, no C1, no bidi or other non-ASCII character — the OSC 8
//! convention allows bytes 32-126 only), at most [`MAX_URL`] bytes. A piece is linked only
//! where the drawn cells spell exactly that piece of the address: an overlay over the pane, or
//! a piece cut short, is left alone.
//!
//! **Where.** [`enabled`]: `always` and `never` (`--hyperlinks`, `hyperlinks = ...` in the
//! config file) decide; `auto` turns them on only in terminals known to support them, since
//! one that does not may print the sequence as text: VTE 0.50+ (`VTE_VERSION`: GNOME Terminal,
//! Tilix, ...), `TERM_PROGRAM` iTerm.app / WezTerm / vscode / ghostty, kitty
//! (`KITTY_WINDOW_ID`), Windows Terminal (`WT_SESSION`), foot (`TERM=foot*`). Off for
//! `TERM=linux` and `TERM=dumb`, and inside GNU screen. Inside tmux (`$TMUX`) they are on only
//! when `tmux -V` says 3.4 or later, which handles OSC 8 itself and passes links on to a
//! terminal that has the `hyperlinks` feature; an older tmux drops them, so they are off.
//! Alacritty (0.13+) supports them but cannot be told apart from xterm: `--hyperlinks always`.
//! `NO_COLOR` has no say: a link is not a colour.

use std::process::{Command, Stdio};

use ratatui::{
    backend::{Backend, CrosstermBackend},
    buffer::{Buffer, Cell},
    layout::Rect,
};

use super::osc52::Passthrough;
use crate::settings::config::Hyperlinks as Mode;

/// The longest address written as a link (terminals cap what they keep; longer ones are shown
/// as text only).
pub const MAX_URL: usize = 2048;

/// One piece of an address as the case pane drew it: `text` on row `y` from column `x`, to link
/// to `url` (the whole address).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The first column.
    pub x: u16,
    /// The row.
    pub y: u16,
    /// The piece of the address on this row.
    pub text: String,
    /// The whole address.
    pub url: String,
}

/// Whether `url` may be written as a link target: `http://` or `https://` (any case) and a
/// host, printable ASCII only (see the module docs), at most [`MAX_URL`] bytes.
pub fn linkable(url: &str) -> bool {
    let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &url[8..]
    } else if lower.starts_with("http://") {
        &url[7..]
    } else {
        return false;
    };
    url.len() <= MAX_URL
        && rest.chars().next().is_some_and(|c| c.is_ascii_alphanumeric() || c == '[')
        && url.bytes().all(|b| b.is_ascii_graphic())
}

/// Whether to write links, for `mode` and this process's environment (see the module docs).
pub fn enabled(mode: Mode) -> bool {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    match mode {
        Mode::Always => true,
        Mode::Never => false,
        Mode::Auto => supported(&var, &tmux_version),
    }
}

/// Whether the terminal is known to support OSC 8, by the environment `var` reads and, inside
/// tmux, the version `tmux` reports (see the module docs).
pub fn supported(var: &dyn Fn(&str) -> Option<String>, tmux: &dyn Fn() -> Option<(u32, u32)>) -> bool {
    let term = var("TERM").unwrap_or_default();
    if term == "dumb" || term == "linux" || term.starts_with("linux-") {
        return false;
    }
    match Passthrough::detect(var) {
        Passthrough::Tmux => return tmux().is_some_and(|v| v >= (3, 4)),
        Passthrough::Screen => return false,
        Passthrough::None => {}
    }
    let vte = var("VTE_VERSION").and_then(|v| v.parse::<u32>().ok()).is_some_and(|v| v >= 5000);
    let program = var("TERM_PROGRAM")
        .is_some_and(|p| matches!(p.as_str(), "iTerm.app" | "WezTerm" | "vscode" | "ghostty"));
    let by_term =
        term.starts_with("foot") || matches!(term.as_str(), "xterm-kitty" | "xterm-ghostty" | "wezterm");
    vte || program || by_term || var("KITTY_WINDOW_ID").is_some() || var("WT_SESSION").is_some()
}

/// The version `tmux -V` reports (`tmux 3.4`, `tmux 3.3a`, `tmux next-3.5`), when it runs and
/// says one.
fn tmux_version() -> Option<(u32, u32)> {
    let out = Command::new("tmux")
        .arg("-V")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())?;
    parse_tmux_version(&String::from_utf8_lossy(&out.stdout))
}

/// `tmux 3.3a` -> (3, 3); `None` for what names no version (`tmux master`).
fn parse_tmux_version(text: &str) -> Option<(u32, u32)> {
    let version = text.split_whitespace().nth(1)?;
    let version = version.strip_prefix("next-").unwrap_or(version);
    let (major, minor) = version.split_once('.')?;
    let digits = |s: &str| s.chars().take_while(char::is_ascii_digit).collect::<String>().parse().ok();
    Some((digits(major)?, digits(minor)?))
}

/// A link as it was last written, with the cells it was written over.
#[derive(Debug, Clone, PartialEq)]
struct Written {
    link: Link,
    /// The cell before the piece (when there is one), then the piece's cells.
    cells: Vec<Cell>,
}

/// The links the terminal holds, and what to write after each frame to keep them (see the
/// module docs).
#[derive(Debug, Default)]
pub struct Hyperlinks {
    on: bool,
    /// The frame's area when the links were written: a new size repaints everything.
    area: Rect,
    written: Vec<Written>,
}

impl Hyperlinks {
    /// Links written (`on`) or not.
    pub fn new(on: bool) -> Hyperlinks {
        Hyperlinks { on, ..Hyperlinks::default() }
    }

    /// Whether links are written at all.
    pub fn on(&self) -> bool {
        self.on
    }

    /// The whole screen was repainted: every link is to be written again.
    pub fn forget(&mut self) {
        self.written.clear();
    }

    /// What to write after drawing `buffer` so the pieces of `links` on it are links: nothing
    /// for a piece written already over the same cells, or one whose cells do not spell it.
    pub fn bytes(&mut self, buffer: &Buffer, links: &[Link]) -> Vec<u8> {
        if !self.on {
            return Vec::new();
        }
        if buffer.area != self.area {
            self.area = buffer.area;
            self.forget();
        }
        let shown: Vec<Written> = links.iter().filter_map(|link| drawn(buffer, link)).collect();
        let mut out = Vec::new();
        for w in shown.iter().filter(|w| !self.written.contains(w)) {
            if out.is_empty() {
                out.extend_from_slice(b"\x1b7");
            }
            out.extend_from_slice(format!("\x1b]8;;{}\x1b\\", w.link.url).as_bytes());
            let start = w.cells.len() - w.link.text.len();
            let cells = w.cells[start..].iter().zip(w.link.x..).map(|(cell, x)| (x, w.link.y, cell));
            // The backend's own cell writer: the same cursor moves and styles as the frame.
            let _ = CrosstermBackend::new(&mut out).draw(cells);
            out.extend_from_slice(b"\x1b]8;;\x1b\\");
        }
        if !out.is_empty() {
            out.extend_from_slice(b"\x1b8");
        }
        self.written = shown;
        out
    }
}

/// The cells `link` was drawn over in `buffer`, when it may be linked and they spell its piece
/// (one cell per character: the piece is printable ASCII).
fn drawn(buffer: &Buffer, link: &Link) -> Option<Written> {
    if !linkable(&link.url) || link.text.is_empty() || !link.url.contains(&link.text) {
        return None;
    }
    let first = link.x.checked_sub(1).into_iter().chain(link.x..);
    let mut cells = Vec::with_capacity(link.text.len() + 1);
    let mut chars = link.text.chars();
    for x in first.take(link.text.len() + usize::from(link.x > 0)) {
        let cell = buffer.cell((x, link.y))?;
        if x >= link.x {
            let c = chars.next()?;
            if cell.symbol().len() != 1 || !cell.symbol().starts_with(c) {
                return None;
            }
        }
        cells.push(cell.clone());
    }
    Some(Written { link: link.clone(), cells })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Modifier, Style};

    #[test]
    fn only_plain_http_addresses_become_links() {
        for good in [
            "https://example.org/postmortems/epoch-end-hang",
            "http://example.org",
            "HTTPS://Example.org/a?b=c&d=e#f",
            "https://[::1]:8080/x",
            "https://example.org/a;b,c~d%20e",
        ] {
            assert!(linkable(good), "{good}");
        }
        for hostile in [
            "https://example.org/\x1b]8;;https://evil.example\x1b\\",
            "https://example.org/\x07",
            "https://example.org/\x1b[2J",
            "https://example.org/\u{9b}31m",
            "https://example.org/\u{9d}8;;x",
            "https://example.org/\u{202e}gpj.exe",
            "https://example.org/\u{200b}",
            "https://exämple.org/",
            "https://example.org/a b",
            "https://example.org/\t",
            "https://example.org/\n",
            "https://example.org/\x7f",
            "javascript:alert(1)",
            "file:///etc/passwd",
            "ftp://example.org/",
            "data:text/html,x",
            "//example.org/",
            "https://",
            "https:///path",
            "https:// example.org",
            "",
        ] {
            assert!(!linkable(hostile), "{hostile:?}");
        }
        assert!(!linkable(&format!("https://example.org/{}", "a".repeat(MAX_URL))), "too long");
    }

    #[test]
    fn known_terminals_get_links_and_the_others_do_not() {
        let check = |vars: &[(&str, &str)], tmux: Option<(u32, u32)>| {
            let var = |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| v.to_string());
            supported(&var, &|| tmux)
        };
        let xterm = ("TERM", "xterm-256color");
        assert!(!check(&[xterm], None), "plain xterm: cannot tell");
        assert!(check(&[xterm, ("VTE_VERSION", "7600")], None));
        assert!(!check(&[xterm, ("VTE_VERSION", "4803")], None), "VTE before 0.50");
        for program in ["iTerm.app", "WezTerm", "vscode", "ghostty"] {
            assert!(check(&[xterm, ("TERM_PROGRAM", program)], None), "{program}");
        }
        assert!(!check(&[xterm, ("TERM_PROGRAM", "Apple_Terminal")], None));
        assert!(check(&[("TERM", "xterm-kitty"), ("KITTY_WINDOW_ID", "1")], None));
        assert!(check(&[xterm, ("WT_SESSION", "f00")], None));
        assert!(check(&[("TERM", "foot")], None));
        assert!(!check(&[("TERM", "linux"), ("VTE_VERSION", "7600")], None), "the console");
        assert!(!check(&[("TERM", "dumb"), ("TERM_PROGRAM", "vscode")], None));
        let tmux = [("TERM", "tmux-256color"), ("TMUX", "/tmp/tmux-0/default,1,0"), ("VTE_VERSION", "7600")];
        assert!(check(&tmux, Some((3, 4))));
        assert!(check(&tmux, Some((3, 5))));
        assert!(!check(&tmux, Some((3, 3))), "tmux before 3.4 drops them");
        assert!(!check(&tmux, None), "no tmux -V to ask");
        assert!(!check(&[("TERM", "screen"), ("STY", "1.pts-0"), ("VTE_VERSION", "7600")], None));
    }

    #[test]
    fn tmux_versions_are_read_with_their_suffixes() {
        assert_eq!(parse_tmux_version("tmux 3.4\n"), Some((3, 4)));
        assert_eq!(parse_tmux_version("tmux 3.3a"), Some((3, 3)));
        assert_eq!(parse_tmux_version("tmux next-3.5"), Some((3, 5)));
        assert_eq!(parse_tmux_version("tmux master"), None);
        assert_eq!(parse_tmux_version(""), None);
    }

    fn buffer_with(row: &str) -> Buffer {
        let mut buf = Buffer::empty(Rect::new(0, 0, 40, 3));
        buf.set_string(0, 1, row, Style::default().add_modifier(Modifier::UNDERLINED));
        buf
    }

    fn link(x: u16, text: &str) -> Link {
        Link { x, y: 1, text: text.into(), url: "https://example.org/a/b".into() }
    }

    #[test]
    fn a_piece_is_written_again_only_when_its_cells_change() {
        let mut links = Hyperlinks::new(true);
        let buf = buffer_with("  https://example.org/a/b");
        let pieces = [link(2, "https://example.org/a/b")];
        let first = String::from_utf8(links.bytes(&buf, &pieces)).unwrap();
        assert!(first.starts_with("\x1b7\x1b]8;;https://example.org/a/b\x1b\\"), "{first:?}");
        assert!(first.ends_with("\x1b]8;;\x1b\\\x1b8"), "{first:?}");
        assert!(first.contains("https://example.org/a/b\x1b"), "the cells again: {first:?}");
        assert!(links.bytes(&buf, &pieces).is_empty(), "unchanged: nothing to write");
        let restyled = {
            let mut b = buf.clone();
            b.set_style(Rect::new(2, 1, 5, 1), Style::default().add_modifier(Modifier::REVERSED));
            b
        };
        assert!(!links.bytes(&restyled, &pieces).is_empty(), "the diff rewrote those cells");
        links.forget();
        assert!(!links.bytes(&restyled, &pieces).is_empty(), "repainted: written again");
        assert!(Hyperlinks::new(false).bytes(&buf, &pieces).is_empty(), "off: never");
    }

    #[test]
    fn cells_that_do_not_spell_the_piece_are_left_alone() {
        let mut links = Hyperlinks::new(true);
        let covered = buffer_with("  https://exa│ an overlay");
        assert!(links.bytes(&covered, &[link(2, "https://example.org/a/b")]).is_empty());
        let buf = buffer_with("  https://example.org/a/b");
        let hostile =
            Link { url: "https://example.org/a/b\x1b]8;;x".into(), ..link(2, "https://example.org/a/b") };
        assert!(links.bytes(&buf, &[hostile]).is_empty(), "an address that may not be linked");
        let elsewhere = Link { url: "https://other.example/".into(), ..link(2, "https://example.org/a/b") };
        assert!(links.bytes(&buf, &[elsewhere]).is_empty(), "a piece of another address");
        assert!(links.bytes(&buf, &[link(39, "https://example.org/a/b")]).is_empty(), "off the edge");
    }
}
