//! Fitting text to terminal columns: cutting by display width (wide CJK characters count two,
//! combining marks none), with an ellipsis where something was cut. Shared by the plain output of
//! the commands and the terminal UI.
//!
//! A width of [`UNCUT`] means "no width": output that goes to a pipe or a file is cut nowhere
//! (what is piped into `grep`, `less -S` or a ticket keeps every character), and prose is wrapped
//! at [`PROSE`] columns ([`wrap_at`]), which loses nothing.

/// The width of output that must not be cut: [`truncate`] keeps everything.
pub const UNCUT: usize = usize::MAX;

/// Where prose is wrapped when the output has no width ([`UNCUT`]).
pub const PROSE: usize = 80;

/// The column to wrap prose at for output `width` columns wide.
pub fn wrap_at(width: usize) -> usize {
    if width == UNCUT { PROSE } else { width }
}

/// A case's id in full, then ` · detail` cut to what is left of `width`: an id is copied into
/// `incidex show`, so it is never cut, whatever the width.
pub fn id_then(id: &str, detail: &str, width: usize) -> String {
    let left = width.saturating_sub(unicode_width::UnicodeWidthStr::width(id));
    let detail = format!(" · {detail}");
    if left < 4 {
        return id.to_string();
    }
    format!("{id}{}", truncate(&detail, left))
}

/// Cut `text` to `width` columns, ending with an ellipsis when something was cut.
pub fn truncate(text: &str, width: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let mut out = String::new();
    let mut used = 0;
    let total: usize = text.chars().map(|c| c.width().unwrap_or(0)).sum();
    if total <= width {
        return text.to_string();
    }
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn truncate_counts_columns_not_bytes() {
        assert_eq!(super::truncate("short", 10), "short");
        assert_eq!(super::truncate("abcdefghij", 5), "abcd…");
        assert_eq!(super::truncate("日本語テキスト", 7), "日本語…");
        assert_eq!(super::truncate("a line of any length", super::UNCUT), "a line of any length");
    }

    #[test]
    fn an_id_is_never_cut() {
        let id = "qwen3-32b-b300-epoch-end-checkpoint-deadlock-with-a-very-long-tail";
        assert_eq!(super::id_then(id, "Meta", 20), id);
        assert_eq!(super::id_then("short", "An organization", 14), "short · An or…");
        assert_eq!(super::id_then("short", "Meta", 80), "short · Meta");
        assert_eq!(super::id_then("short", "Meta", super::UNCUT), "short · Meta");
    }
}
