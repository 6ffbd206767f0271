//! What a suggested filter or an inferred facet value rests on, so a user can judge it before
//! applying it: a name or alias of the value in the words, one of its log signatures, or the
//! learned facet model (`corpus::learned`), with the words it read and how sure it is.
//! Plain data; the fronts show it (`describe`) and `--json` carries it.

use serde::Serialize;

/// What a value was found by.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Basis {
    /// A name or alias of the value, in the words given.
    Alias {
        /// The words that matched, as written.
        words: Vec<String>,
    },
    /// One of the value's log signatures.
    Signature {
        /// The text that matched, as written.
        words: Vec<String>,
    },
    /// The facet model learned from the library.
    Learned {
        /// The words it rests on, as written, strongest first.
        words: Vec<String>,
        /// How sure it is, 0 to 1.
        confidence: f32,
    },
}

impl Basis {
    /// The words it rests on.
    pub fn words(&self) -> &[String] {
        match self {
            Basis::Alias { words } | Basis::Signature { words } | Basis::Learned { words, .. } => words,
        }
    }

    /// One line: `alias "oom killer"`, `signature "Xid 79"`, `learned from "OOM killer",
    /// "Killed process" (0.82)`.
    pub fn describe(&self) -> String {
        let quoted =
            |words: &[String]| words.iter().map(|w| format!("\"{w}\"")).collect::<Vec<_>>().join(", ");
        match self {
            Basis::Alias { words } => format!("alias {}", quoted(words)),
            Basis::Signature { words } => format!("signature {}", quoted(words)),
            Basis::Learned { words, confidence } => {
                format!("learned from {} ({confidence:.2})", quoted(words))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_basis_says_what_it_is_and_quotes_its_words() {
        let words = vec!["OOM killer".to_string(), "Killed process".to_string()];
        assert_eq!(Basis::Alias { words: words[..1].to_vec() }.describe(), "alias \"OOM killer\"");
        assert_eq!(Basis::Signature { words: vec!["Xid 79".into()] }.describe(), "signature \"Xid 79\"");
        let learned = Basis::Learned { words, confidence: 0.8161 };
        assert_eq!(learned.describe(), "learned from \"OOM killer\", \"Killed process\" (0.82)");
        let json = serde_json::to_string(&learned).unwrap();
        assert_eq!(json, r#"{"by":"learned","words":["OOM killer","Killed process"],"confidence":0.8161}"#);
    }
}
