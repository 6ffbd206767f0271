//! Writing case text into Markdown safely and quietly: nothing in a case can start a list, open a
//! link, turn into an autolink (URL, `www.` or e-mail), turn into math (GitHub's `$...$`),
//! emphasis, code or strikethrough, or inject HTML, in CommonMark, GFM and the common renderers —
//! and nothing is escaped that would not otherwise change the rendering, so the text reads the
//! same pasted into Slack, Jira or a terminal. Pure functions, string in, string out.
//!
//! Each character is escaped only in the context where it means something: `#`, `>`, `-`, `+`,
//! `=` and `1.` only at the start (where a block begins); `_` only at the edge of a word
//! (`snake_case` stays); `*` unless it stands alone between spaces; a backtick, `~` or `$` only
//! when another could close it; `]` only before `(` or `[` (a link); `<` only before what could
//! be a tag or an autolink (`<30%` stays); `&` only before what could be an entity (`AT&T`
//! stays); `|` only in a table cell; every bracket in a link's text. Quotes, parentheses and
//! braces never mean anything inline.

/// Where escaped text goes: each context gives one more character a meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// A paragraph, a heading or a list item.
    Inline,
    /// A GFM table cell: `|` ends it.
    Cell,
    /// The text of a link `[...](url)`: an unbalanced bracket ends it.
    LinkText,
}

/// Escape `text` for use inline in a paragraph, a heading or a list item (see the module docs):
/// newlines fold to spaces.
pub fn escape_inline(text: &str) -> String {
    escape(text, Context::Inline)
}

/// Escape `text` for a GFM table cell: as [`escape_inline`], and `|` too.
pub fn escape_cell(text: &str) -> String {
    escape(text, Context::Cell)
}

/// Escape `text` for the text of a link (`[text](url)`): as [`escape_inline`], and every
/// bracket too.
pub fn escape_link_text(text: &str) -> String {
    escape(text, Context::LinkText)
}

fn escape(text: &str, context: Context) -> String {
    let folded = crate::text::one_line(text);
    let chars: Vec<char> = folded.chars().collect();
    let count = |wanted: char| chars.iter().filter(|&&c| c == wanted).count();
    let backticks = count('`') > 1;
    let tildes = count('~') > 1;
    let math = can_pair_dollars(&chars);
    let mut out = String::with_capacity(folded.len() + folded.len() / 16);
    for (i, &c) in chars.iter().enumerate() {
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let escaped = match c {
            // A block starts where the text does (it follows `- `, `# ` or a line start).
            '#' | '>' | '-' | '+' | '=' | '[' if i == 0 => true,
            '[' | ']' if context == Context::LinkText => true,
            // `[^x]` is a footnote reference.
            '[' => next == Some('^'),
            '\\' => next.is_none_or(|n| n.is_ascii_punctuation()),
            '`' => backticks,
            '~' => tildes,
            '$' => math,
            '*' => !(prev.is_some_and(char::is_whitespace) && next.is_some_and(char::is_whitespace)),
            '_' => !(prev.is_some_and(char::is_alphanumeric) && next.is_some_and(char::is_alphanumeric)),
            ']' => matches!(next, Some('(' | '[')),
            '<' => next.is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, '/' | '!' | '?')),
            '&' => starts_an_entity(&chars[i + 1..]),
            '|' => context == Context::Cell,
            // `name@host` is a GFM e-mail autolink.
            '@' => {
                prev.is_some_and(|p| p.is_alphanumeric() || "._+-".contains(p))
                    && next.is_some_and(char::is_alphanumeric)
            }
            // `scheme://` and `www.` are GFM autolink triggers: escape the ':' or the '.'.
            ':' => next == Some('/') && chars.get(i + 2) == Some(&'/'),
            '.' if i >= 3 && chars[i - 3..i].iter().collect::<String>().eq_ignore_ascii_case("www") => true,
            // `1. ` or `1) ` at the start is an ordered list.
            '.' | ')' => i > 0 && chars[..i].iter().all(char::is_ascii_digit),
            _ => false,
        };
        if escaped {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Whether `$...$` could form math: a `$` followed by a non-space, and a later `$` preceded by
/// one (GitHub's and pulldown-cmark's rule for inline math).
fn can_pair_dollars(chars: &[char]) -> bool {
    let opener =
        (0..chars.len()).find(|&i| chars[i] == '$' && chars.get(i + 1).is_some_and(|n| !n.is_whitespace()));
    opener.is_some_and(|o| (o + 2..chars.len()).any(|j| chars[j] == '$' && !chars[j - 1].is_whitespace()))
}

/// Whether `after` (what follows a `&`) makes an entity or character reference: `amp;`,
/// `#38;`, `#x26;`.
fn starts_an_entity(after: &[char]) -> bool {
    let body: String = after.iter().take(33).take_while(|&&c| c != ';').collect();
    let closed = after.get(body.chars().count()) == Some(&';');
    let named = !body.is_empty() && body.chars().all(|c| c.is_ascii_alphanumeric());
    let numeric = body.strip_prefix('#').is_some_and(|n| {
        let n = n.strip_prefix(['x', 'X']).unwrap_or(n);
        !n.is_empty() && n.chars().all(|c| c.is_ascii_hexdigit())
    });
    closed && (named || numeric)
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
        Some(url) => format!("[{}]({url})", escape_link_text(text)),
        None => escape_inline(text),
    }
}

#[cfg(test)]
mod tests {
    use pulldown_cmark::{Event, Options, Parser, Tag};

    use super::*;

    #[test]
    fn only_what_would_change_the_rendering_is_escaped() {
        for (input, want) in [
            ("plain words", "plain words"),
            ("<script>alert(1)</script>", "\\<script>alert(1)\\</script>"),
            ("[click](https://evil.example)", "\\[click\\](https\\://evil.example)"),
            ("**bold** _it_ `code`", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\`"),
            ("- not a list\n# not a heading", "\\- not a list # not a heading"),
            ("1. first", "1\\. first"),
            ("see www.example.com", "see www\\.example.com"),
            ("a | b", "a | b"),
            ("AT&T", "AT&T"),
            ("&amp; and &#38;", "\\&amp; and \\&#38;"),
            ("mail ops@example.com", "mail ops\\@example.com"),
            ("costs $5 to $10", "costs $5 to $10"),
            ("math $x^2$ here", "math \\$x^2\\$ here"),
            // What the issue found noisy: none of these mean anything inline.
            ("loss (fp16) \"nan\" at >30% of steps", "loss (fp16) \"nan\" at >30% of steps"),
            ("NCCL_IB_GID_INDEX and snake_case", "NCCL_IB_GID_INDEX and snake_case"),
            ("use `nvidia-smi`", "use \\`nvidia-smi\\`"),
            ("a lone ` backtick and ~ tilde", "a lone ` backtick and ~ tilde"),
            ("2 * 3 <30% {braces} !bang #tag", "2 * 3 <30% {braces} !bang #tag"),
            ("> quoted", "\\> quoted"),
            ("[rank0]: Watchdog caught", "\\[rank0]: Watchdog caught"),
            ("path C:\\dir\\ and a\\*b", "path C:\\dir\\ and a\\\\\\*b"),
            ("a footnote [^1]", "a footnote \\[^1]"),
            ("ends with \\", "ends with \\\\"),
        ] {
            assert_eq!(escape_inline(input), want, "{input}");
        }
        assert_eq!(escape_cell("a | b"), "a \\| b");
    }

    /// The plain text and every non-text event a CommonMark + GFM reader finds in `md`.
    fn read(md: &str) -> (String, Vec<String>) {
        let options = Options::ENABLE_TASKLISTS
            | Options::ENABLE_TABLES
            | Options::ENABLE_STRIKETHROUGH
            | Options::ENABLE_FOOTNOTES
            | Options::ENABLE_MATH
            | Options::ENABLE_GFM;
        let mut text = String::new();
        let mut markup = Vec::new();
        for event in Parser::new_ext(md, options) {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::Start(
                    Tag::Paragraph
                    | Tag::List(_)
                    | Tag::Item
                    | Tag::Table(_)
                    | Tag::TableHead
                    | Tag::TableCell,
                )
                | Event::End(_) => {}
                Event::Start(Tag::TableRow) => {}
                other => markup.push(format!("{other:?}")),
            }
        }
        (text, markup)
    }

    #[test]
    fn escaped_text_reads_back_as_itself_in_every_context() {
        let nasty = [
            "<script>alert(1)</script> & `code` **bold** __init__ _it_ ~~gone~~ ~x~",
            "[a link](https://evil.example/x) ![img](https://evil.example/i.png) [ref][1] [^note]",
            "- [x] pre-checked? see https://evil.example/y or www.evil.example, ops@evil.example",
            "# not a heading 1. not a list > not a quote",
            "1) not a list either",
            "+ plus = equals",
            "pay $5 | col | $x$ and $$y$$ <!-- comment --> &amp; &#x26; AT&T",
            "trailing backslash \\",
            "* star list",
            "___",
            "<http://autolink.example>",
            "a*b*c and x_y_z and *emph* and _emph_",
            "`` double `` and ```fence",
            "loss (fp16) \"nan\" at >30% of steps {braces} !bang",
            "an unbalanced ] bracket and [ another",
        ];
        /// Case text placed in one kind of Markdown line.
        type Place = fn(&str) -> String;
        let contexts: [(&str, Place); 6] = [
            ("paragraph", |text| format!("{}\n", escape_inline(text))),
            ("task item", |text| format!("- [ ] {}\n", escape_inline(text))),
            ("action item", |text| format!("- **prevent** {} *(editorial)*\n", escape_inline(text))),
            ("heading", |text| format!("# {}\n", escape_inline(text))),
            ("cell", |text| format!("| Kind | Values |\n|---|---|\n| Component | {} |\n", escape_cell(text))),
            ("link", |text| format!("- {} (issue)\n", link(text, "https://example.org/a_(b)"))),
        ];
        for (what, context) in contexts {
            // Our own markup (the heading, the task marker, the bold type) is what plain words get.
            let (_, own) = read(&context("plain"));
            for text in nasty {
                let md = context(text);
                let (read_text, markup) = read(&md);
                assert!(read_text.contains(text), "{what}: {text:?} read back as {read_text:?}\n{md}");
                assert_eq!(markup, own, "{what}: {text:?} made markup of its own\n{md}");
            }
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
            "[Paper (v2)](https://a.example/p_%28v2%29)"
        );
        assert_eq!(link("a ] b [c]", "https://a.example/"), "[a \\] b \\[c\\]](https://a.example/)");
        assert_eq!(link("x", "javascript:alert(1)"), "x");
        assert_eq!(link("x", "https://a.example/<b>"), "x");
    }
}
