//! Fitting text to terminal columns: cutting by display width (wide CJK characters count two,
//! combining marks none), with an ellipsis where something was cut. Shared by the plain output of
//! the commands and the terminal UI.

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
    }
}
