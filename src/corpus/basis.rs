//! What a suggested filter or an inferred facet value rests on, so a user can judge it before
//! applying it: a name or alias of the value in the words, one of its log signatures, or the
//! learned facet model (`corpus::learned`), with the words it read and how sure it is.
//! Plain data; the fronts show it (`describe`) and `--json` carries it.

use serde::Serialize;

use crate::taxonomy::matcher::Found;

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
    /// What a match of the taxonomy's matcher rests on: a signature or an alias (a name counts
    /// as an alias), with the words that matched.
    pub fn of_match(found: &Found) -> Basis {
        match found.signature {
            true => Basis::Signature { words: found.matched.clone() },
            false => Basis::Alias { words: found.matched.clone() },
        }
    }

    /// The learned model's reading: its words, and its confidence to two decimals, as shown.
    pub fn learned(words: Vec<String>, confidence: f32) -> Basis {
        Basis::Learned { words, confidence: (confidence * 100.0).round() / 100.0 }
    }

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
