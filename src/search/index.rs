//! The full-text index: a tantivy index built in memory from the loaded cases, and the query
//! built from a sentence's words.
//!
//! Nothing is written to disk and one writer thread builds it, so the index is the same on every
//! run. Every text field is analysed the same way (words, lowercase, English stop words removed,
//! English stems); the query's words go through the very same analyser and become term queries
//! directly, so raw user text never reaches tantivy's query parser and no input can be a syntax
//! error. Each word is scored over the fields with their boosts (title and symptoms highest), its
//! best field in full and the others in part; a word of five or more letters that no case
//! contains matches with one typo, scored below exact words; taxonomy values found in the sentence
//! (through names, aliases and signatures) boost the cases tagged with them, the more so the
//! less the matching words say by themselves.

use std::{collections::HashMap, sync::OnceLock};

use tantivy::{
    DocId, Index, IndexWriter, Score, Searcher, TantivyDocument, Term,
    indexer::NoMergePolicy,
    query::{
        BooleanQuery, BoostQuery, DisjunctionMaxQuery, EmptyQuery, EnableScoring, Occur, Query, TermQuery,
    },
    schema::{FAST, Field, INDEXED, IndexRecordOption, STRING, Schema, TextFieldIndexing, TextOptions},
    tokenizer::TextAnalyzer,
};

use crate::taxonomy::FacetKind;
use crate::{
    corpus::Case,
    search::{
        analysis::analyzer,
        typo::{self, Typos},
    },
    support::error::{Error, Result},
    support::progress::{Progress, ProgressFn, Stage},
};

/// The analyser every text field and every query goes through.
const TOKENIZER: &str = "incidex";
/// At most this many distinct words of a sentence are searched: the rarest in the library.
pub const MAX_QUERY_WORDS: usize = 48;
/// At most this many unknown words of a sentence are corrected.
const MAX_FUZZY_WORDS: usize = 8;

/// How the relevance score is put together. The defaults are tuned on the evaluation set in
/// `tests/eval/`; the fields are public so the evaluation can compare settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Tuning {
    /// Boost of each text field, by [`TextField`] order.
    pub field_boosts: [f32; TEXT_FIELDS.len()],
    /// Share of a word's score its other matching fields add to its best field (0 = best only).
    pub tie_breaker: f32,
    /// Weight of a word one typo away from a word no case contains, relative to an exact word.
    pub fuzzy_boost: f32,
    /// Boost of a taxonomy value found in the sentence on the cases tagged with it, times the
    /// strength it was found with (see [`CaseIndex::specificity`]).
    pub expansion_boost: f32,
}

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            field_boosts: TEXT_FIELDS.map(|f| f.default_boost()),
            tie_breaker: 0.3,
            fuzzy_boost: 0.5,
            expansion_boost: 5.0,
        }
    }
}

impl Tuning {
    /// Plain BM25: every field weighs the same, a word counts in each field it is in, no typo
    /// matches, no taxonomy expansion. The baseline the defaults are measured against.
    pub fn plain() -> Tuning {
        Tuning {
            field_boosts: [1.0; TEXT_FIELDS.len()],
            tie_breaker: 1.0,
            fuzzy_boost: 0.0,
            expansion_boost: 0.0,
        }
    }
}

/// The searched text fields of a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextField {
    /// One line: what happened to what.
    Title,
    /// What people saw.
    Symptoms,
    /// What set it off.
    Trigger,
    /// How it was noticed.
    Detection,
    /// What was done.
    Remediation,
    /// What should be done.
    ActionItems,
    /// What to take from it.
    Lessons,
    /// Who ran the system.
    Organization,
    /// The names of its facet values.
    Facets,
    /// Titles of its sources.
    Sources,
}

/// Every text field, in [`Tuning::field_boosts`] order.
pub const TEXT_FIELDS: [TextField; 10] = [
    TextField::Title,
    TextField::Symptoms,
    TextField::Trigger,
    TextField::Detection,
    TextField::Remediation,
    TextField::ActionItems,
    TextField::Lessons,
    TextField::Organization,
    TextField::Facets,
    TextField::Sources,
];

impl TextField {
    fn name(self) -> &'static str {
        match self {
            TextField::Title => "title",
            TextField::Symptoms => "symptoms",
            TextField::Trigger => "trigger",
            TextField::Detection => "detection",
            TextField::Remediation => "remediation",
            TextField::ActionItems => "action_items",
            TextField::Lessons => "lessons",
            TextField::Organization => "organization",
            TextField::Facets => "facets",
            TextField::Sources => "sources",
        }
    }

    fn default_boost(self) -> f32 {
        match self {
            TextField::Title => 3.0,
            TextField::Symptoms => 2.5,
            TextField::Trigger => 1.5,
            TextField::Detection => 1.2,
            TextField::Remediation => 0.5,
            TextField::ActionItems => 0.8,
            TextField::Lessons => 0.8,
            TextField::Organization => 1.5,
            TextField::Facets => 1.5,
            TextField::Sources => 0.8,
        }
    }

    /// The text of this field for `case`, one string per value.
    fn values(self, case: &Case) -> Vec<&str> {
        match self {
            TextField::Title => vec![&case.title],
            TextField::Symptoms => vec![&case.body.symptoms],
            // A postmortem's Root cause section is searched with the trigger: why it happened.
            TextField::Trigger => {
                case.body.trigger.iter().chain(&case.body.root_cause).map(String::as_str).collect()
            }
            TextField::Detection => vec![&case.body.detection],
            TextField::Remediation => case.body.remediation.iter().map(String::as_str).collect(),
            TextField::ActionItems => case.body.action_items.iter().map(|a| a.text.as_str()).collect(),
            TextField::Lessons => case.body.lessons.iter().map(String::as_str).collect(),
            TextField::Organization => vec![&case.organization],
            TextField::Facets => case.facets.iter().map(|(_, v)| v).collect(),
            TextField::Sources => case.body.sources.iter().map(|s| s.title.as_str()).collect(),
        }
    }
}

/// The term a facet value is indexed under in the exact-match facet field.
fn facet_term(kind: FacetKind, value: &str) -> String {
    format!("{}/{}", kind.key(), value)
}

/// A word of a sentence as the index knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryWord {
    /// The analysed form (lowercase stem).
    pub term: String,
    /// Characters of the longest word typed for it (typo tolerance needs five).
    pub typed_chars: usize,
    /// Cases containing it in the field where it is most common (0: no case has it).
    pub doc_freq: u64,
    /// Byte ranges of the sentence where it was typed.
    pub spans: Vec<(usize, usize)>,
    /// How much it counts, relative to a plain word (1): more for a word that names a taxonomy
    /// value, less for a generic one (see `search::weights`).
    pub weight: f32,
}

/// A taxonomy value found in the sentence, to widen the query with.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion<'a> {
    /// Its kind.
    pub kind: FacetKind,
    /// Its name.
    pub value: &'a str,
    /// How strongly the sentence points at it.
    pub strength: f32,
}

/// The in-memory index of a library.
pub struct CaseIndex {
    searcher: Searcher,
    text_fields: [Field; TEXT_FIELDS.len()],
    facet: Field,
    /// Segment ordinal -> doc id -> case position.
    doc_to_case: Vec<Vec<u32>>,
    /// The words of the index, for corrections of words no case contains: gathered from the
    /// term dictionaries the first time a sentence has such a word (a third of a second at
    /// 100,000 cases, which start-up should not pay for a search that needs no correction).
    typos: OnceLock<Typos>,
    analyzer: TextAnalyzer,
}

/// The fields of the schema, looked up by name.
struct Fields {
    text: [Field; TEXT_FIELDS.len()],
    facet: Field,
    case: Field,
}

impl Fields {
    fn of(schema: &Schema) -> Result<Fields> {
        let field = |name: &str| {
            schema.get_field(name).map_err(|_| Error::Failed(format!("search index: no field `{name}`")))
        };
        let mut text = Vec::with_capacity(TEXT_FIELDS.len());
        for f in TEXT_FIELDS {
            text.push(field(f.name())?);
        }
        let text: [Field; TEXT_FIELDS.len()] =
            text.try_into().map_err(|_| Error::Failed("search index: text fields".into()))?;
        Ok(Fields { text, facet: field("facet")?, case: field("case")? })
    }
}

impl std::fmt::Debug for CaseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CaseIndex").field("docs", &self.searcher.num_docs()).finish()
    }
}

fn tantivy_error(e: tantivy::TantivyError) -> Error {
    Error::Failed(format!("search index: {e}"))
}

impl CaseIndex {
    /// Index `cases` (document order = case order) in memory.
    pub fn build(cases: &[Case]) -> Result<CaseIndex> {
        let index = Index::create_in_ram(CaseIndex::schema());
        CaseIndex::write(&index, cases, &crate::support::progress::silent)?;
        CaseIndex::from_index(&index)
    }

    /// The schema of the index: one field per [`TextField`], the facet values as exact terms,
    /// and each document's case position.
    pub fn schema() -> Schema {
        let mut schema = Schema::builder();
        // Frequencies for BM25; no positions, as no query here is a phrase query.
        let text = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        for f in TEXT_FIELDS {
            schema.add_text_field(f.name(), text.clone());
        }
        schema.add_text_field("facet", STRING);
        schema.add_u64_field("case", INDEXED | FAST);
        schema.build()
    }

    /// Add `cases` to `index` (created with [`CaseIndex::schema`], in memory or in a directory)
    /// and commit, reporting progress every thousand cases.
    pub fn write(index: &Index, cases: &[Case], progress: ProgressFn<'_>) -> Result<()> {
        index.tokenizers().register(TOKENIZER, analyzer());
        let fields = Fields::of(&index.schema())?;
        // One thread, so documents keep their order; enough memory that a large library is a
        // handful of segments; no merging behind our back.
        let budget = (15_000_000 + cases.len() * 2_000).min(400_000_000);
        let mut writer: IndexWriter<TantivyDocument> =
            index.writer_with_num_threads(1, budget).map_err(tantivy_error)?;
        writer.set_merge_policy(Box::new(NoMergePolicy));
        let total = cases.len();
        for (i, case) in cases.iter().enumerate() {
            let mut doc = TantivyDocument::default();
            for (field, kind) in fields.text.iter().zip(TEXT_FIELDS) {
                for value in kind.values(case) {
                    doc.add_text(*field, value);
                }
            }
            for (kind, value) in case.facets.iter() {
                doc.add_text(fields.facet, facet_term(kind, value));
            }
            doc.add_u64(fields.case, i as u64);
            writer.add_document(doc).map_err(tantivy_error)?;
            if (i + 1) % 1000 == 0 || i + 1 == total {
                progress(Progress { stage: Stage::Indexing, done: i + 1, total });
            }
        }
        writer.commit().map_err(tantivy_error)?;
        writer.wait_merging_threads().map_err(tantivy_error)
    }

    /// Search `index`, written by [`CaseIndex::write`]. Nothing is written: the reader never
    /// reloads, so an index in a read-only directory opens as well as one in memory.
    pub fn from_index(index: &Index) -> Result<CaseIndex> {
        index.tokenizers().register(TOKENIZER, analyzer());
        let fields = Fields::of(&index.schema())?;
        let reader = index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()
            .map_err(tantivy_error)?;
        let searcher = reader.searcher();
        let mut doc_to_case = Vec::new();
        for segment in searcher.segment_readers() {
            let column = segment.fast_fields().u64("case").map_err(tantivy_error)?;
            let map: Vec<u32> =
                (0..segment.max_doc()).map(|d| column.first(d).unwrap_or_default() as u32).collect();
            doc_to_case.push(map);
        }
        Ok(CaseIndex {
            searcher,
            text_fields: fields.text,
            facet: fields.facet,
            doc_to_case,
            typos: OnceLock::new(),
            analyzer: index_analyzer(index),
        })
    }

    /// The words of the index and the words one edit from them, gathered on first use.
    fn typos(&self) -> &Typos {
        self.typos.get_or_init(|| {
            let mut words = Vec::new();
            for segment in self.searcher.segment_readers() {
                for &field in &self.text_fields {
                    // A segment that cannot be read has no words to offer: corrections are a
                    // help, never a reason for a search to fail.
                    let Ok(inverted) = segment.inverted_index(field) else { continue };
                    let Ok(mut terms) = inverted.terms().stream() else { continue };
                    while terms.advance() {
                        if let Ok(word) = std::str::from_utf8(terms.key()) {
                            words.push(word.to_string());
                        }
                    }
                }
            }
            Typos::new(words)
        })
    }

    /// Gather the words for typo corrections now rather than at the first sentence that needs
    /// them (the terminal UI calls it while it waits for the first key).
    pub fn prepare_corrections(&self) {
        self.typos();
    }

    /// Number of documents (cases) in the index.
    pub fn num_docs(&self) -> u64 {
        self.searcher.num_docs()
    }

    /// Whether every document maps to a case position below `cases`, each position once: the
    /// index belongs to a library of that many cases.
    pub fn covers(&self, cases: usize) -> bool {
        let mut seen = vec![false; cases];
        let mut count = 0;
        for &i in self.doc_to_case.iter().flatten() {
            match seen.get_mut(i as usize) {
                Some(slot) if !*slot => {
                    *slot = true;
                    count += 1;
                }
                _ => return false,
            }
        }
        count == cases
    }

    /// The distinct words of `text` as the index knows them, in input order, with how many cases
    /// contain each. Stop words and over-long words are gone.
    pub fn words(&self, text: &str) -> Vec<QueryWord> {
        let mut analyzer = self.analyzer.clone();
        let mut words: Vec<QueryWord> = Vec::new();
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut stream = analyzer.token_stream(text);
        while let Some(token) = stream.next() {
            let typed = text.get(token.offset_from..token.offset_to).map_or(0, |w| w.chars().count());
            let span = (token.offset_from, token.offset_to);
            match seen.get(&token.text) {
                Some(&i) => {
                    words[i].typed_chars = words[i].typed_chars.max(typed);
                    words[i].spans.push(span);
                }
                None => {
                    seen.insert(token.text.clone(), words.len());
                    words.push(QueryWord {
                        term: token.text.clone(),
                        typed_chars: typed,
                        doc_freq: 0,
                        spans: vec![span],
                        weight: 1.0,
                    });
                }
            }
        }
        for w in &mut words {
            w.doc_freq = self
                .text_fields
                .iter()
                .map(|f| self.searcher.doc_freq(&Term::from_field_text(*f, &w.term)).unwrap_or(0))
                .max()
                .unwrap_or(0);
        }
        words
    }

    /// The relevance query for `words` plus boosts for the facet values found in the sentence;
    /// `None` when the sentence has no word to search for (only stop words or
    /// punctuation), so results stay unranked.
    pub fn query(
        &self,
        words: &[QueryWord],
        expansions: &[Expansion<'_>],
        tuning: &Tuning,
    ) -> Option<Box<dyn Query>> {
        let mut known: Vec<&QueryWord> = words.iter().filter(|w| w.doc_freq > 0).collect();
        if known.len() > MAX_QUERY_WORDS {
            // A long paste: keep the words that tell cases apart best.
            known.sort_by(|a, b| a.doc_freq.cmp(&b.doc_freq).then_with(|| a.term.cmp(&b.term)));
            known.truncate(MAX_QUERY_WORDS);
        }
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for word in &known {
            let query = self.word_query(&word.term, tuning);
            let query: Box<dyn Query> =
                if word.weight == 1.0 { query } else { Box::new(BoostQuery::new(query, word.weight)) };
            clauses.push((Occur::Should, query));
        }
        // A word no case contains, long enough: the words one typo away, below exact words.
        let unknown = words.iter().filter(|w| w.doc_freq == 0 && w.typed_chars >= typo::MIN_LETTERS);
        for word in unknown.take(MAX_FUZZY_WORDS).filter(|_| tuning.fuzzy_boost > 0.0) {
            let corrections: Vec<Box<dyn Query>> = self
                .typos()
                .corrections(&word.term)
                .into_iter()
                .map(|c| self.word_query(c, tuning))
                .collect();
            if !corrections.is_empty() {
                let best = DisjunctionMaxQuery::with_tie_breaker(corrections, 0.0);
                let boost = tuning.fuzzy_boost * word.weight;
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(best), boost))));
            }
        }
        for e in expansions {
            let boost = tuning.expansion_boost * e.strength;
            if boost > 0.0 {
                let term = TermQuery::new(
                    Term::from_field_text(self.facet, &facet_term(e.kind, e.value)),
                    IndexRecordOption::Basic,
                );
                clauses.push((Occur::Should, Box::new(BoostQuery::new(Box::new(term), boost))));
            }
        }
        if words.is_empty() && expansions.is_empty() {
            return None;
        }
        if clauses.is_empty() {
            // Words no case has, too short for typo tolerance: they match nothing.
            return Some(Box::new(EmptyQuery));
        }
        Some(Box::new(BooleanQuery::new(clauses)))
    }

    /// Whether some case contains `word` (after analysis; a stop word counts as known).
    pub fn is_known(&self, word: &str) -> bool {
        let words = self.words(word);
        words.is_empty() || words.iter().all(|w| w.doc_freq > 0)
    }

    /// How little `phrases` say about which case is meant when read as plain words, in [0, 1]:
    /// 1 when their rarest word is in no case (`botnet`: only the taxonomy can tell what it
    /// means), falling fast towards 0 as that word is in more cases (`database`, `error`): the
    /// square of 1 - ln(1 + df) / ln(1 + N). Evidence for a taxonomy value weighs by it, so common
    /// words do not drag their value's cases up while unknown ones count like a strong word.
    pub fn specificity(&self, phrases: &[String]) -> f32 {
        let n = self.searcher.num_docs().max(1) as f32;
        let rarest =
            phrases.iter().filter_map(|p| self.words(p).iter().map(|w| w.doc_freq).min()).min().unwrap_or(0)
                as f32;
        (1.0 - (1.0 + rarest).ln() / (1.0 + n).ln()).clamp(0.0, 1.0).powi(2)
    }

    /// One analysed word over every text field, each with its boost, the best field counting in
    /// full and the others by the tie breaker.
    fn word_query(&self, term: &str, tuning: &Tuning) -> Box<dyn Query> {
        let per_field: Vec<Box<dyn Query>> = self
            .text_fields
            .iter()
            .zip(tuning.field_boosts)
            .filter(|(_, boost)| *boost > 0.0)
            .map(|(field, boost)| {
                let term = TermQuery::new(Term::from_field_text(*field, term), IndexRecordOption::WithFreqs);
                Box::new(BoostQuery::new(Box::new(term), boost)) as Box<dyn Query>
            })
            .collect();
        Box::new(DisjunctionMaxQuery::with_tie_breaker(per_field, tuning.tie_breaker))
    }

    /// Every case matching `query` whose position `keep` accepts, with its score, in no order.
    pub fn run(&self, query: &dyn Query, keep: &dyn Fn(usize) -> bool) -> Result<Vec<(u32, Score)>> {
        let weight =
            query.weight(EnableScoring::enabled_from_searcher(&self.searcher)).map_err(tantivy_error)?;
        let mut hits = Vec::new();
        for (segment, reader) in self.searcher.segment_readers().iter().enumerate() {
            let map = &self.doc_to_case[segment];
            weight
                .for_each(reader, &mut |doc: DocId, score: Score| {
                    if let Some(&case) = map.get(doc as usize)
                        && keep(case as usize)
                    {
                        hits.push((case, score));
                    }
                })
                .map_err(tantivy_error)?;
        }
        Ok(hits)
    }

    /// The names of the schema's fields.
    #[cfg(test)]
    fn field_names(&self) -> Vec<String> {
        let schema = self.searcher.schema();
        schema.fields().map(|(_, entry)| entry.name().to_string()).collect()
    }
}

fn index_analyzer(index: &Index) -> TextAnalyzer {
    index.tokenizers().get(TOKENIZER).unwrap_or_else(analyzer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Library;

    fn index() -> (Library, CaseIndex) {
        let library = Library::bundled();
        let index = CaseIndex::build(&library.cases).unwrap();
        (library, index)
    }

    #[test]
    fn every_case_is_a_document_in_order() {
        let (library, index) = index();
        let mut positions: Vec<u32> = index.doc_to_case.iter().flatten().copied().collect();
        positions.sort_unstable();
        assert_eq!(positions, (0..library.cases.len() as u32).collect::<Vec<_>>());
        assert!(index.field_names().contains(&"symptoms".to_string()));
    }

    #[test]
    fn words_are_analysed_like_the_documents() {
        let (_, index) = index();
        let words = index.words("The jobs HUNG, the jobs hung; and AND or");
        let terms: Vec<&str> = words.iter().map(|w| w.term.as_str()).collect();
        assert_eq!(terms, ["job", "hang"], "stop words out, stems in, each word once");
        assert_eq!(words[0].typed_chars, 4);
        assert!(index.words("").is_empty());
        assert!(index.words("10.0.0.1:8080 \"foo ' don't").iter().all(|w| !w.term.is_empty()));
    }

    #[test]
    fn exact_words_outrank_typos_and_unknown_words_find_nothing() {
        let (library, index) = index();
        let title_word = library.cases[0]
            .title
            .split(|c: char| !c.is_alphanumeric())
            .find(|w| w.len() >= 7 && w.chars().all(|c| c.is_ascii_lowercase()))
            .expect("a long lowercase word in the first title")
            .to_string();
        let tuning = Tuning::default();
        let run = |text: &str| {
            let words = index.words(text);
            let query = index.query(&words, &[], &tuning);
            query.map(|q| index.run(q.as_ref(), &|_| true).unwrap()).unwrap_or_default()
        };
        let exact = run(&title_word);
        assert!(exact.iter().any(|(c, _)| *c == 0), "{title_word}");
        let mut typo = title_word.clone();
        typo.remove(3);
        let fuzzy = run(&typo);
        let best_exact = exact.iter().map(|h| h.1).fold(0.0, f32::max);
        assert!(fuzzy.iter().any(|(c, _)| *c == 0), "{typo} finds the case with one typo");
        assert!(fuzzy.iter().all(|(_, s)| *s < best_exact), "exact matches rank above fuzzy ones");
        assert!(run("qqqqqqqqzzzz").is_empty());
    }
}
