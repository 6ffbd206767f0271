//! Writing case text into Markdown safely: escaping so that nothing in a case can start a list,
//! open a link, turn into an autolink (URL, `www.` or e-mail), turn into math (GitHub's `$...$`),
//! or inject HTML, in CommonMark, GFM and the common renderers. Pure functions, string in,
//! string out.

/// Escape `text` for use inline (in a paragraph, a list item or a table cell): newlines fold to
/// spaces; Markdown punctuation is backslash-escaped; `<`, `>` and `&` become entities; bare
/// `http://`, `https://`, `www.` and `name@host` lose the power to become autolinks; `$` cannot
/// open GitHub math.
pub fn escape_inline(text: &str) -> String {
    let folded = crate::text::one_line(text);
    let mut out = String::with_capacity(folded.len() + folded.len() / 8);
    let chars: Vec<char> = folded.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' | '!' | '(' | ')' | '{' | '}' | '"'
            | '@' | '$' => {
                out.push('\\');
                out.push(c);
            }
            // `scheme://` and `www.` are GFM autolink triggers: escape the ':' or the '.'.
            ':' if chars.get(i + 1) == Some(&'/') && chars.get(i + 2) == Some(&'/') => out.push_str("\\:"),
            '.' if i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www") => {
                out.push_str("\\.")
            }
            // A leading `-`, `+`, `=` or a digit run followed by `.`/`)` could start a block.
            '-' | '+' | '=' if out.is_empty() => {
                out.push('\\');
                out.push(c);
            }
            '.' if chars[..i].iter().all(char::is_ascii_digit) && i > 0 => out.push_str("\\."),
            c => out.push(c),
        }
    }
    out
}

/// A URL as the destination of a Markdown link or autolink, or `None` when it is not a plain
/// http(s) address that can be written safely.
pub fn safe_url(url: &str) -> Option<String> {
    let url = url.trim();
    let ok_scheme = url.starts_with("https://") || url.starts_with("http://");
    let ok_chars = url.chars().all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>' | '"' | '`' | '\\'));
    (ok_scheme && ok_chars).then(|| url.replace('(', "%28").replace(')', "%29"))
}

/// A Markdown link `[text](url)`, or the escaped text alone when the URL is not safe.
pub fn link(text: &str, url: &str) -> String {
    match safe_url(url) {
        Some(url) => format!("[{}]({url})", escape_inline(text)),
        None => escape_inline(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_neutralised() {
        for (input, want) in [
            ("plain words", "plain words"),
            ("<script>alert(1)</script>", "&lt;script&gt;alert\\(1\\)&lt;/script&gt;"),
            ("[click](https://evil.example)", "\\[click\\]\\(https\\://evil.example\\)"),
            ("**bold** _it_ `code`", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\`"),
            ("- not a list\n# not a heading", "\\- not a list \\# not a heading"),
            ("1. first", "1\\. first"),
            ("see www.example.com", "see www\\.example.com"),
            ("a | b", "a \\| b"),
            ("AT&T", "AT&amp;T"),
            ("mail ops@example.com", "mail ops\\@example.com"),
            ("costs $5 to $10", "costs \\$5 to \\$10"),
        ] {
            assert_eq!(escape_inline(input), want, "{input}");
        }
    }

    #[test]
    fn only_plain_http_urls_become_links() {
        assert_eq!(
            link("Issue", "https://github.com/x/y/issues/1"),
            "[Issue](https://github.com/x/y/issues/1)"
        );
        assert_eq!(
            link("Paper (v2)", "https://a.example/p_(v2)"),
            "[Paper \\(v2\\)](https://a.example/p_%28v2%29)"
        );
        assert_eq!(link("x", "javascript:alert(1)"), "x");
        assert_eq!(link("x", "https://a.example/<b>"), "x");
    }
}
