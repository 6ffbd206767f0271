//! A one-line text field: the search box and the facet picker's filter.
//!
//! Pure editing on a string and a cursor (in characters), plus the window of the text that fits
//! a given number of columns with the cursor kept inside it. Everything that enters the field is
//! sanitized and folded to one line, so a pasted multi-line log becomes one search.

use unicode_width::UnicodeWidthChar;

/// The text and the cursor position (a character index, `0..=len`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Input {
    text: String,
    cursor: usize,
}

impl Input {
    /// A field holding `text`, cursor at the end.
    pub fn new(text: &str) -> Input {
        let mut input = Input::default();
        input.insert_str(text);
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

    fn byte(&self, char_index: usize) -> usize {
        self.text.char_indices().nth(char_index).map_or(self.text.len(), |(i, _)| i)
    }

    fn len(&self) -> usize {
        self.text.chars().count()
    }

    /// Insert one typed character (control characters are ignored).
    pub fn insert(&mut self, c: char) {
        if crate::text::is_unsafe_char(c) || c == '\n' {
            return;
        }
        let at = self.byte(self.cursor);
        self.text.insert(at, c);
        self.cursor += 1;
    }

    /// Insert pasted text: sanitized, folded to one line.
    pub fn insert_str(&mut self, s: &str) {
        let clean = crate::text::clean(s);
        let mut pending_space = false;
        for c in clean.chars() {
            if c.is_whitespace() {
                pending_space = true;
                continue;
            }
            if pending_space && self.cursor > 0 {
                self.insert(' ');
            }
            pending_space = false;
            self.insert(c);
        }
        if pending_space && self.cursor > 0 && !self.text.ends_with(' ') {
            self.insert(' ');
        }
    }

    /// Delete the character before the cursor.
    pub fn backspace(&mut self) -> bool {
        if self.cursor == 0 {
            return false;
        }
        self.cursor -= 1;
        let at = self.byte(self.cursor);
        self.text.remove(at);
        true
    }

    /// Delete the character under the cursor.
    pub fn delete(&mut self) -> bool {
        if self.cursor >= self.len() {
            return false;
        }
        let at = self.byte(self.cursor);
        self.text.remove(at);
        true
    }

    /// Delete the word before the cursor (and the spaces after it), as Ctrl-W does in a shell.
    pub fn delete_word(&mut self) -> bool {
        let chars: Vec<char> = self.text.chars().collect();
        let mut start = self.cursor;
        while start > 0 && chars[start - 1].is_whitespace() {
            start -= 1;
        }
        while start > 0 && !chars[start - 1].is_whitespace() {
            start -= 1;
        }
        if start == self.cursor {
            return false;
        }
        let (from, to) = (self.byte(start), self.byte(self.cursor));
        self.text.replace_range(from..to, "");
        self.cursor = start;
        true
    }

    /// Delete from the start to the cursor (Ctrl-U).
    pub fn delete_to_start(&mut self) -> bool {
        let to = self.byte(self.cursor);
        self.text.replace_range(..to, "");
        std::mem::replace(&mut self.cursor, 0) > 0
    }

    /// Delete from the cursor to the end (Ctrl-K).
    pub fn delete_to_end(&mut self) -> bool {
        let from = self.byte(self.cursor);
        let changed = from < self.text.len();
        self.text.truncate(from);
        changed
    }

    /// Empty the field.
    pub fn clear(&mut self) -> bool {
        self.cursor = 0;
        !std::mem::take(&mut self.text).is_empty()
    }

    /// Move the cursor one character left.
    pub fn left(&mut self) {
        self.cursor = self.cursor.saturating_sub(1);
    }

    /// Move the cursor one character right.
    pub fn right(&mut self) {
        self.cursor = (self.cursor + 1).min(self.len());
    }

    /// Move the cursor to the start.
    pub fn home(&mut self) {
        self.cursor = 0;
    }

    /// Move the cursor to the end.
    pub fn end(&mut self) {
        self.cursor = self.len();
    }

    /// The part of the text to show in `width` columns and the cursor's column within it. The
    /// window scrolls so the cursor is always visible (at the end of the text it takes a column
    /// of its own); text cut off at either side is marked with an ellipsis.
    pub fn window(&self, width: usize) -> (String, usize) {
        let chars: Vec<(char, usize)> = self.text.chars().map(|c| (c, c.width().unwrap_or(0))).collect();
        let n = chars.len();
        let cursor = self.cursor.min(n);
        // The cursor's own cell: the character under it, or a free column at the end.
        let cursor_width = chars.get(cursor).map_or(1, |c| c.1.max(1));
        if width < cursor_width {
            return (String::new(), 0);
        }
        // Ellipses only where they leave room for text.
        let marks = width >= cursor_width + 2;
        let left_mark = |start: usize| usize::from(marks && start > 0);
        let right_mark = |end: usize| usize::from(marks && end < n);
        let (mut start, mut end) = (cursor, (cursor + 1).min(n));
        let mut used = cursor_width;
        // Text before the cursor first (typing happens at the end), then after it.
        while start > 0 && used + chars[start - 1].1 + left_mark(start - 1) + right_mark(end) <= width {
            start -= 1;
            used += chars[start].1;
        }
        while end < n && used + chars[end].1 + left_mark(start) + right_mark(end + 1) <= width {
            used += chars[end].1;
            end += 1;
        }
        let lead = left_mark(start);
        let mut shown = String::from(if lead == 1 { "…" } else { "" });
        shown.extend(chars[start..end].iter().map(|(c, _)| *c));
        if right_mark(end) == 1 {
            shown.push('…');
        }
        let cursor_x = lead + chars[start..cursor].iter().map(|(_, w)| w).sum::<usize>();
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
