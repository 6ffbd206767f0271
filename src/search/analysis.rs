//! How text becomes search words, the same way for case text, queries and the suggester: runs
//! of letters and digits, words over 40 bytes dropped, lowercase, English stop words removed,
//! English (Snowball) stems.
//!
//! Stemming is most of the cost of indexing, and the words of a library repeat, so the stemmer
//! here remembers what it has stemmed (per analyser instance, bounded): indexing a large
//! library stems each distinct word once. Nothing here knows about cases or the index.

use std::collections::HashMap;

use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, StopWordFilter, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};

use crate::text::words::WordStemmer;

/// Words longer than this are dropped (hashes, base64 in logs).
pub const MAX_WORD_BYTES: usize = 40;
/// Distinct words a stemmer remembers before it starts afresh.
const CACHE_WORDS: usize = 200_000;

/// The analyser of every text field and every query. The filters are chained statically, so a
/// token passes through them without a virtual call each.
pub fn analyzer() -> TextAnalyzer {
    let stop_words =
        StopWordFilter::new(Language::English).unwrap_or_else(|| StopWordFilter::remove(Vec::new()));
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(MAX_WORD_BYTES))
        .filter(LowerCaser)
        .filter(stop_words)
        .filter(CachedStemmer)
        .build()
}

/// The English stemmer as a token filter that remembers its answers.
#[derive(Clone, Copy, Debug, Default)]
pub struct CachedStemmer;

impl TokenFilter for CachedStemmer {
    type Tokenizer<T: Tokenizer> = CachedStemmerFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> CachedStemmerFilter<T> {
        CachedStemmerFilter { inner: tokenizer, stemmer: WordStemmer::default(), cache: HashMap::new() }
    }
}

/// [`CachedStemmer`] wrapped around a tokenizer.
#[derive(Clone)]
pub struct CachedStemmerFilter<T> {
    inner: T,
    stemmer: WordStemmer,
    cache: HashMap<String, String>,
}

impl<T: Tokenizer> Tokenizer for CachedStemmerFilter<T> {
    type TokenStream<'a> = CachedStemmerStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        CachedStemmerStream {
            tail: self.inner.token_stream(text),
            stemmer: &mut self.stemmer,
            cache: &mut self.cache,
        }
    }
}

/// The tokens of a [`CachedStemmerFilter`].
pub struct CachedStemmerStream<'a, S> {
    tail: S,
    stemmer: &'a mut WordStemmer,
    cache: &'a mut HashMap<String, String>,
}

impl<S: TokenStream> TokenStream for CachedStemmerStream<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        // Numbers, ids and very short words have no English ending to take off.
        if token.text.len() <= 2 || token.text.bytes().any(|b| b.is_ascii_digit()) {
            return true;
        }
        match self.cache.get(&token.text) {
            Some(stem) => {
                token.text.clear();
                token.text.push_str(stem);
            }
            None => {
                let stem = self.stemmer.stem(&token.text);
                if self.cache.len() >= CACHE_WORDS {
                    self.cache.clear();
                }
                self.cache.insert(std::mem::replace(&mut token.text, stem.clone()), stem);
            }
        }
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        let mut a = analyzer();
        let mut out = Vec::new();
        a.token_stream(text).process(&mut |t| out.push(t.text.clone()));
        out
    }

    #[test]
    fn words_are_lowercased_stemmed_and_stop_words_go() {
        assert_eq!(terms("The jobs HUNG and the Checkpointing hangs"), ["job", "hang", "checkpoint", "hang"]);
        let long = "x".repeat(MAX_WORD_BYTES + 1);
        assert_eq!(terms(&format!("ok {long} 10.0.0.1:8080")), ["ok", "10", "0", "0", "1", "8080"]);
    }

    #[test]
    fn the_cache_gives_what_the_stemmer_gives() {
        let mut plain = TextAnalyzer::builder(SimpleTokenizer::default()).filter(LowerCaser).build();
        let text = "running runs ran easily easily fairness fairness generously generous";
        let (mut want, mut stemmer) = (Vec::new(), WordStemmer::default());
        plain.token_stream(text).process(&mut |t| want.push(stemmer.stem(&t.text)));
        assert_eq!(want[2], "run", "an irregular form stems as its verb");
        let mut cached = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(LowerCaser)
            .filter(CachedStemmer)
            .build();
        for _ in 0..3 {
            let mut got = Vec::new();
            cached.token_stream(text).process(&mut |t| got.push(t.text.clone()));
            assert_eq!(got, want);
        }
        assert_eq!(WordStemmer::default().stem("hangs"), "hang");
    }
}
