//! Words of free text, the one way every part of incidex cuts and stems them: the search index's
//! analyser, the taxonomy's matcher and the log reader all agree on what a word is.
//!
//! A word is a run of letters and digits (as tantivy's simple tokenizer cuts text); a stem is the
//! English (Snowball) stem of a lowercase word, the irregular forms of the verbs incidents are
//! told in first taken back to their verb ([`IRREGULAR`]): Snowball leaves `froze`, `frozen` and
//! `freezes` three stems, and `hung` apart from `hangs`, so "the job froze" missed the case
//! whose job "stayed frozen". Nothing here knows about cases, the taxonomy or the index.

use tantivy::tokenizer::{Language, RawTokenizer, Stemmer, TextAnalyzer};

/// Byte ranges of the words of `text`: runs of letters and digits.
pub fn word_spans(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = text.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, _) = chars.by_ref().find(|(_, c)| c.is_alphanumeric())?;
        let mut end = text.len();
        while let Some(&(i, c)) = chars.peek() {
            if !c.is_alphanumeric() {
                end = i;
                break;
            }
            chars.next();
        }
        Some((start, end))
    })
}

/// Stems one lowercase word.
#[derive(Clone)]
pub struct WordStemmer(TextAnalyzer);

impl Default for WordStemmer {
    fn default() -> Self {
        WordStemmer(
            TextAnalyzer::builder(RawTokenizer::default()).filter(Stemmer::new(Language::English)).build(),
        )
    }
}

/// Irregular past forms of verbs incidents are told in, and their verb, sorted by form. Only
/// forms that are not also another common word in this domain: not `left`, `bound` (as in
/// CPU-bound), `found`, `fed`, `stuck` (a state of its own) or `lost` (a lost GPU is how the
/// taxonomy names it).
pub const IRREGULAR: &[(&str, &str)] = &[
    ("began", "begin"),
    ("begun", "begin"),
    ("broke", "break"),
    ("broken", "break"),
    ("brought", "bring"),
    ("built", "build"),
    ("caught", "catch"),
    ("chose", "choose"),
    ("chosen", "choose"),
    ("dead", "die"),
    ("driven", "drive"),
    ("drove", "drive"),
    ("fallen", "fall"),
    ("fell", "fall"),
    ("froze", "freeze"),
    ("frozen", "freeze"),
    ("gave", "give"),
    ("given", "give"),
    ("grew", "grow"),
    ("grown", "grow"),
    ("held", "hold"),
    ("hid", "hide"),
    ("hidden", "hide"),
    ("hung", "hang"),
    ("kept", "keep"),
    ("knew", "know"),
    ("known", "know"),
    ("ran", "run"),
    ("risen", "rise"),
    ("rose", "rise"),
    ("sent", "send"),
    ("shown", "show"),
    ("spun", "spin"),
    ("stole", "steal"),
    ("stolen", "steal"),
    ("taken", "take"),
    ("threw", "throw"),
    ("thrown", "throw"),
    ("took", "take"),
    ("went", "go"),
    ("woke", "wake"),
    ("woken", "wake"),
    ("written", "write"),
    ("wrote", "write"),
];

impl WordStemmer {
    /// The stem of `word` (lowercase): of its verb, for an irregular form ([`IRREGULAR`]).
    pub fn stem(&mut self, word: &str) -> String {
        let word = IRREGULAR.binary_search_by(|(form, _)| form.cmp(&word)).map_or(word, |i| IRREGULAR[i].1);
        let mut out = String::new();
        self.0.token_stream(word).process(&mut |t| out.push_str(&t.text));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_spans_cut_like_the_simple_tokenizer() {
        let text = "NCCL WARN: 10.0.0.1:8080 —日本語 don't";
        let words: Vec<&str> = word_spans(text).map(|(a, b)| &text[a..b]).collect();
        assert_eq!(words, ["NCCL", "WARN", "10", "0", "0", "1", "8080", "日本語", "don", "t"]);
    }

    #[test]
    fn stems_are_english_snowball_stems() {
        let mut stemmer = WordStemmer::default();
        assert_eq!(stemmer.stem("hangs"), "hang");
        assert_eq!(stemmer.stem("timeouts"), "timeout");
    }

    #[test]
    fn irregular_forms_stem_as_their_verb() {
        assert!(IRREGULAR.windows(2).all(|w| w[0].0 < w[1].0), "sorted, each form once");
        let mut stemmer = WordStemmer::default();
        for (form, verb) in IRREGULAR {
            assert_eq!(stemmer.stem(form), stemmer.stem(verb), "{form}");
        }
        assert_eq!(stemmer.stem("froze"), stemmer.stem("freezes"));
        assert_eq!(stemmer.stem("hung"), stemmer.stem("hanging"));
        assert_eq!(stemmer.stem("lost"), "lost", "not every past form moves");
    }
}
