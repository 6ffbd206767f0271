//! Words of free text, the one way every part of incidex cuts and stems them: the search index's
//! analyser, the taxonomy's matcher and the log reader all agree on what a word is.
//!
//! A word is a run of letters and digits (as tantivy's simple tokenizer cuts text); a stem is the
//! English (Snowball) stem of a lowercase word. Nothing here knows about cases, the taxonomy or
//! the index.

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

impl WordStemmer {
    /// The stem of `word`.
    pub fn stem(&mut self, word: &str) -> String {
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
}
