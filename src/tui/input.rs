//! A one-line text field: the search box and the facet picker's filter.
//!
//! Pure editing on a string and a cursor, plus the window of the text that fits a given number
//! of columns with the cursor kept inside it. Everything that enters the field is sanitized and
//! folded to one line, so a pasted multi-line log becomes one search; the paste as it came, line
//! breaks and all, stays reachable through [`Input::last_paste`].
//!
//! Every operation costs time in proportion to what it inserts or removes, never to the length
//! of the text: the cursor is kept both as a character index and as a byte offset, and the
//! window is cut around the cursor. A 10 MB paste is taken in one pass.

use unicode_width::UnicodeWidthChar;

/// The text and the cursor position (a character index, `0..=len`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    text: String,
    /// The cursor in characters from the start.
    cursor: usize,
    /// The cursor as a byte offset into `text` (always on a character boundary).
    at: usize,
    /// The last pasted text as it came (unsanitized, line breaks kept).
    last_paste: Option<String>,
}

/// The columns a character takes in the field.
fn columns(c: char) -> usize {
    c.width().unwrap_or(0)
}

/// `pasted` as it goes into a one-line field: every run of whitespace (line breaks, CR, tabs)
/// one space, then sanitized; `after_space` says whether the text before the insertion point is
/// empty or ends in a space, so that no leading space is added there.
fn fold_to_one_line(pasted: &str, after_space: bool) -> String {
    let mut folded = String::with_capacity(pasted.len());
    let mut pending_space = false;
    let mut at_start = after_space;
    for c in pasted.chars() {
        if c.is_whitespace() {
            pending_space = true;
            continue;
        }
        if pending_space && !at_start {
            folded.push(' ');
        }
        pending_space = false;
        at_start = false;
        folded.push(c);
    }
    if pending_space && !at_start {
        folded.push(' ');
    }
    // Sanitized after folding: a lone CR is a line break here, not a control to show as "␍".
    crate::text::clean(&folded)
}

impl Input {
    /// A field holding `text`, cursor at the end.
    pub fn new(text: &str) -> Input {
        let mut input = Input::default();
        input.insert_str(text);
        input.last_paste = None;
        input
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether the field is empty.
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The last text pasted into the field as it came: line breaks kept, not yet sanitized (a
    /// multi-line paste is a log, which the caller may rather hand to triage). `None` until a
    /// paste, and after [`Input::clear`].
    pub fn last_paste(&self) -> Option<&str> {
        self.last_paste.as_deref()
    }

    /// The character before the cursor.
    fn before_cursor(&self) -> Option<char> {
        self.text[..self.at].chars().next_back()
    }

    /// The character under the cursor.
    fn under_cursor(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    /// Insert one typed character (control characters are ignored).
    pub fn insert(&mut self, c: char) {
        if crate::text::is_unsafe_char(c) || c == '\n' {
            return;
        }
        self.text.insert(self.at, c);
        self.at += c.len_utf8();
        self.cursor += 1;
    }

    /// Insert pasted text: folded to one line (a line break becomes a space), sanitized, in one
    /// pass however long it is.
    pub fn insert_str(&mut self, s: &str) {
        let after_space = self.before_cursor().is_none_or(char::is_whitespace);
        let folded = fold_to_one_line(s, after_space);
        self.text.insert_str(self.at, &folded);
        self.at += folded.len();
        self.cursor += folded.chars().count();
        self.last_paste = Some(s.to_string());
    }

    /// Delete the character before the cursor.
    pub fn backspace(&mut self) -> bool {
        let Some(c) = self.before_cursor() else { return false };
        self.at -= c.len_utf8();
        self.cursor -= 1;
        self.text.remove(self.at);
        true
    }

    /// Delete the character under the cursor.
    pub fn delete(&mut self) -> bool {
        if self.at >= self.text.len() {
            return false;
        }
        self.text.remove(self.at);
        true
    }

    /// Delete the word before the cursor (and the spaces after it), as Ctrl-W does in a shell.
    pub fn delete_word(&mut self) -> bool {
        let before = &self.text[..self.at];
        let trimmed = before.trim_end_matches(char::is_whitespace);
        let start = trimmed.trim_end_matches(|c: char| !c.is_whitespace()).len();
        if start == self.at {
            return false;
        }
        self.cursor -= self.text[start..self.at].chars().count();
        self.text.replace_range(start..self.at, "");
        self.at = start;
        true
    }

    /// Delete from the start to the cursor (Ctrl-U).
    pub fn delete_to_start(&mut self) -> bool {
        self.text.replace_range(..self.at, "");
        self.at = 0;
        std::mem::replace(&mut self.cursor, 0) > 0
    }

    /// Delete from the cursor to the end (Ctrl-K).
    pub fn delete_to_end(&mut self) -> bool {
        let changed = self.at < self.text.len();
        self.text.truncate(self.at);
        changed
    }

    /// Empty the field.
    pub fn clear(&mut self) -> bool {
        self.cursor = 0;
        self.at = 0;
        self.last_paste = None;
        !std::mem::take(&mut self.text).is_empty()
    }

    /// Move the cursor one character left.
    pub fn left(&mut self) {
        if let Some(c) = self.before_cursor() {
            self.at -= c.len_utf8();
            self.cursor -= 1;
        }
    }

    /// Move the cursor one character right.
    pub fn right(&mut self) {
        if let Some(c) = self.under_cursor() {
            self.at += c.len_utf8();
            self.cursor += 1;
        }
    }

    /// Move the cursor to the start.
    pub fn home(&mut self) {
        self.cursor = 0;
        self.at = 0;
    }

    /// Move the cursor to the end.
    pub fn end(&mut self) {
        self.cursor += self.text[self.at..].chars().count();
        self.at = self.text.len();
    }

    /// The part of the text to show in `width` columns and the cursor's column within it. The
    /// window scrolls so the cursor is always visible (at the end of the text it takes a column
    /// of its own); text cut off at either side is marked with an ellipsis. Only the characters
    /// around the cursor are looked at.
    pub fn window(&self, width: usize) -> (String, usize) {
        let text = self.text.as_str();
        let before = |i: usize| text[..i].chars().next_back();
        let after = |i: usize| text[i..].chars().next();
        // The cursor's own cell: the character under it, or a free column at the end.
        let cursor_width = after(self.at).map_or(1, |c| columns(c).max(1));
        if width < cursor_width {
            return (String::new(), 0);
        }
        // Ellipses only where they leave room for text.
        let marks = width >= cursor_width + 2;
        let left_mark = |start: usize| usize::from(marks && start > 0);
        let right_mark = |end: usize| usize::from(marks && end < text.len());
        let mut start = self.at;
        let mut end = self.at + after(self.at).map_or(0, char::len_utf8);
        let mut used = cursor_width;
        // Text before the cursor first (typing happens at the end), then after it.
        while let Some(c) = before(start) {
            let next = start - c.len_utf8();
            if used + columns(c) + left_mark(next) + right_mark(end) > width {
                break;
            }
            start = next;
            used += columns(c);
        }
        while let Some(c) = after(end) {
            let next = end + c.len_utf8();
            if used + columns(c) + left_mark(start) + right_mark(next) > width {
                break;
            }
            end = next;
            used += columns(c);
        }
        let lead = left_mark(start);
        let mut shown = String::from(if lead == 1 { "…" } else { "" });
        shown.push_str(&text[start..end]);
        if right_mark(end) == 1 {
            shown.push('…');
        }
        let cursor_x = lead + text[start..self.at].chars().map(columns).sum::<usize>();
        (shown, cursor_x)
    }
}

#[cfg(test)]
mod tests {
    use unicode_width::UnicodeWidthStr;

    use super::*;

    #[test]
    fn editing_moves_the_cursor_by_characters() {
        let mut i = Input::new("héllo wörld");
        assert_eq!(i.cursor(), 11);
        i.left();
        i.left();
        i.insert('X');
        assert_eq!(i.text(), "héllo wörXld");
        i.home();
        assert!(!i.backspace());
        assert!(i.delete());
        assert_eq!(i.text(), "éllo wörXld");
        i.end();
        assert!(i.delete_word());
        assert_eq!(i.text(), "éllo ");
        assert!(i.delete_word());
        assert_eq!(i.text(), "");
        assert!(!i.delete_word());
    }

    #[test]
    fn kill_to_start_and_end() {
        let mut i = Input::new("job hung at epoch end");
        for _ in 0..9 {
            i.left();
        }
        let mut j = i.clone();
        assert!(i.delete_to_start());
        assert_eq!((i.text(), i.cursor()), ("epoch end", 0));
        assert!(j.delete_to_end());
        assert_eq!(j.text(), "job hung at ");
        assert!(!j.delete_to_end());
        assert!(j.clear() && j.is_empty());
    }

    #[test]
    fn pasted_logs_become_one_clean_line() {
        let mut i = Input::default();
        i.insert_str("NCCL WARN\n  Timeout\r\n\x1b[31mXid 79\t");
        assert_eq!(i.text(), "NCCL WARN Timeout \u{241b}[31mXid 79 ");
        i.insert('\u{7}');
        i.insert('\n');
        assert_eq!(i.cursor(), i.text().chars().count());
        assert!(!i.text().chars().any(crate::text::is_unsafe_char));
    }

    #[test]
    fn line_breaks_in_a_paste_become_spaces_not_visible_controls() {
        // Terminals send a pasted line break as CR: it is a space in a one-line field, not "␍".
        let mut i = Input::default();
        i.insert_str("NCCL WARN\rTimeout\r\rXid 79\r");
        assert_eq!(i.text(), "NCCL WARN Timeout Xid 79 ");
        assert_eq!(i.last_paste(), Some("NCCL WARN\rTimeout\r\rXid 79\r"), "the paste as it came");
        i.insert_str("\u{2028}more\u{85}");
        assert_eq!(i.text(), "NCCL WARN Timeout Xid 79 more ");
        assert!(i.clear());
        assert_eq!(i.last_paste(), None);
    }

    #[test]
    fn a_large_paste_is_taken_in_one_pass() {
        // Per-character insertion walked the text for every character: 1 MB took minutes.
        let line = "NCCL WARN Timeout on rank 17 — café 日本語\r\n";
        let paste = line.repeat(4 * 1024 * 1024 / line.len());
        let mut i = Input::new("before ");
        let started = std::time::Instant::now();
        i.insert_str(&paste);
        let (shown, x) = i.window(80);
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(5), "a 4 MB paste took {took:?}");
        assert_eq!(i.cursor(), i.text().chars().count());
        assert!(shown.ends_with("日本語 ") && x <= 80, "{shown:?} {x}");
    }

    #[test]
    fn editing_anywhere_keeps_the_cursor_on_a_character() {
        let mut i = Input::new("a é 日本 b");
        let ops: [fn(&mut Input); 8] = [
            Input::left,
            Input::right,
            |i| i.insert('ü'),
            |i| {
                i.backspace();
            },
            |i| {
                i.delete();
            },
            |i| i.insert_str(" x\ny "),
            |i| {
                i.delete_word();
            },
            Input::left,
        ];
        for step in 0..200usize {
            ops[(step * 7 + step / 3) % ops.len()](&mut i);
            let expected_at: usize = i.text().chars().take(i.cursor()).map(char::len_utf8).sum();
            assert_eq!(i.at, expected_at, "step {step}: {:?} at {}", i.text(), i.cursor());
            assert!(i.cursor() <= i.text().chars().count());
        }
    }

    #[test]
    fn the_window_keeps_the_cursor_visible_and_marks_what_is_cut_off() {
        let i = Input::new("abcdefghij");
        assert_eq!(i.window(20), ("abcdefghij".to_string(), 10));
        assert_eq!(i.window(5), ("…hij".to_string(), 4));
        let mut j = i.clone();
        j.home();
        assert_eq!(j.window(5), ("abcd…".to_string(), 0));
        for _ in 0..5 {
            j.right();
        }
        let (shown, x) = j.window(5);
        assert_eq!(shown.chars().nth(x), Some('f'), "{shown:?} {x}");
        assert!(shown.starts_with('…') && shown.ends_with('…'), "{shown:?}");
        let wide = Input::new("日本語テキスト");
        let (shown, x) = wide.window(7);
        assert_eq!((shown.as_str(), x), ("…スト", 5));
        assert_eq!(Input::new("x").window(0), (String::new(), 0));
        assert_eq!(Input::default().window(1), (String::new(), 0));
        // Every window fits its width, for every cursor position.
        let mut long = Input::new("job hung at the end-of-epoch checkpoint 日本語 and more");
        long.home();
        for _ in 0..60 {
            for width in 1..30 {
                let (shown, x) = long.window(width);
                assert!(shown.width() <= width && x < width.max(1), "{width}: {shown:?} {x}");
            }
            long.right();
        }
    }
}
