//! Diagnostics about data files: where (path, line, column), how bad, and what is wrong.
//!
//! A diagnostic prints as `path:line:column: severity: message`, the form editors and CI logs
//! link to. This module owns the conversion from byte offsets to line and column; it does no I/O.

use std::fmt;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Makes `incidex check` fail.
    Error,
    /// Worth fixing; the file still loads and `check` still passes.
    Warning,
    /// A remark (for example: facets were inferred).
    Hint,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Hint => "hint",
        })
    }
}

/// One problem in one file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// The file, as the user named it (bundled files as `data/...`).
    pub path: String,
    /// 1-based line; 0 when the problem is about the whole file or directory.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// How bad it is.
    pub severity: Severity,
    /// What is wrong, in one line.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic at a known line and column.
    pub fn new(
        path: impl Into<String>,
        (line, column): (usize, usize),
        severity: Severity,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic { path: path.into(), line, column, severity, message: message.into() }
    }

    /// Whether this diagnostic makes a check fail.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = crate::text::one_line(&self.path);
        let message = crate::text::one_line(&self.message);
        if self.line == 0 {
            // About a whole file or directory, not a place in it.
            write!(f, "{path}: {}: {message}", self.severity)
        } else {
            write!(f, "{path}:{}:{}: {}: {message}", self.line, self.column, self.severity)
        }
    }
}

/// Maps byte offsets in one source text to 1-based lines and character columns.
#[derive(Debug, Clone)]
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Index `text`.
    pub fn new(text: &'a str) -> Self {
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        LineIndex { text, line_starts }
    }

    /// Line and column of byte `offset` (clamped to the text).
    pub fn position(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&start| start <= offset).max(1);
        let start = self.line_starts[line - 1];
        let column = self.text.get(start..offset).map_or(offset - start, |prefix| prefix.chars().count());
        (line, column + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let idx = LineIndex::new("ab\ncé d\n");
        assert_eq!(idx.position(0), (1, 1));
        assert_eq!(idx.position(1), (1, 2));
        assert_eq!(idx.position(3), (2, 1));
        // 'é' is two bytes: byte 6 is the space after it, the third character.
        assert_eq!(idx.position(6), (2, 3));
        assert_eq!(idx.position(999), (3, 1));
    }

    #[test]
    fn display_is_path_line_column() {
        let d = Diagnostic::new("x.toml", (3, 7), Severity::Error, "missing field `title`");
        assert_eq!(d.to_string(), "x.toml:3:7: error: missing field `title`");
    }
}
