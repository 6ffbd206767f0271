//! The search engine the terminal UI and the command line share: relevance over the case text,
//! facet filters, the inline query syntax, suggested filters and breakdowns.
//!
//! [`Engine::new`] builds everything once from a loaded [`Library`] (the in-memory index, the
//! catalog of facet values as case sets, the taxonomy's matcher). [`Engine::search`] is the one call made
//! per keystroke: the raw input (sentence plus inline syntax), the filters already applied and a
//! page in; everything the UI shows out. It never fails and never panics: what cannot be used in
//! the input comes back as [`QueryError`]s beside the results.
//!
//! Ordering is always deterministic: with no sentence, newest first (ties by id, the library's
//! own order); with a sentence, relevance, ties by date then id. This module knows nothing about
//! terminals.

pub mod analysis;
pub mod breakdown;
pub mod caseset;
pub mod catalog;
pub mod index;
pub mod leaves;
pub mod query;
pub mod typo;
pub mod weights;

use std::sync::Arc;

use serde::Serialize;

pub use self::{
    breakdown::{Breakdown, Count},
    query::{ParsedQuery, QueryError},
};
use self::{caseset::CaseSet, catalog::Catalog, index::CaseIndex};
use crate::taxonomy::FacetKind;
use crate::{
    corpus::Library,
    corpus::basis::Basis,
    corpus::filter::Filters,
    corpus::learned::{FacetModel, Reading},
    corpus::parts::Part,
    support::error::Result,
    taxonomy::matcher::{self, Matcher},
};

/// What to search for.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// What was typed: a sentence, a pasted log, inline syntax, or nothing.
    pub input: &'a str,
    /// Filters applied already (chips in the UI, flags on the command line).
    pub filters: &'a Filters,
    /// Results to skip.
    pub offset: usize,
    /// Results to return at most.
    pub limit: usize,
    /// Read `key:value` clauses in `input` as filters (off for pasted logs).
    pub inline_syntax: bool,
    /// Let a word no case contains match the words one typo away (off for log lines, which
    /// programs print, not people type: a host name is not a misspelt word).
    pub typos: bool,
    /// List the weaker matches too, after the real ones (see [`Response::weaker`]).
    pub all: bool,
    /// Where suggested filters are read from, when not the searched text itself: for a log,
    /// its failure lines (`logs::Digest::failure_text`), not every line that stood out a little.
    pub suggest_from: Option<&'a str>,
}

impl<'a> Request<'a> {
    /// The first 20 results for `input` under `filters`, inline syntax on.
    pub fn new(input: &'a str, filters: &'a Filters) -> Request<'a> {
        Request {
            input,
            filters,
            offset: 0,
            limit: 20,
            inline_syntax: true,
            typos: true,
            all: false,
            suggest_from: None,
        }
    }

    /// The first 20 results for the lines a log reader kept (`logs::Digest::query_text`):
    /// no inline syntax, no typo corrections (programs print log lines; nobody misspells them).
    pub fn log(input: &'a str, filters: &'a Filters) -> Request<'a> {
        Request { inline_syntax: false, typos: false, ..Request::new(input, filters) }
    }
}

/// One result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Position in `Library::cases`.
    pub index: usize,
    /// The case id.
    pub id: String,
    /// Relevance (higher is better); `None` when there is no sentence to rank by.
    pub score: Option<f32>,
}

/// A facet value found in the input, with the cases that would remain if it were applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    /// The kind.
    pub kind: FacetKind,
    /// The canonical value name.
    pub value: String,
    /// Cases that would remain with it applied (the current results that have it).
    pub count: usize,
    /// The words of the input that matched, as typed.
    pub matched: Vec<String>,
    /// Whether the words name it as written (false: only through a misspelling, a guess).
    pub certain: bool,
    /// What it rests on: an alias, a signature, or the learned model with its confidence.
    pub basis: Basis,
    /// How strongly the input points at it; suggestions are ordered by it.
    #[serde(skip)]
    pub strength: f32,
}

/// Everything one search shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// The sentence searched: the input without its inline syntax.
    pub text: String,
    /// The filters in force: the applied ones plus the inline ones.
    pub filters: Filters,
    /// The filters the inline syntax asked for.
    pub inline: Filters,
    /// Inline clauses that could not be used (each names the nearest valid values).
    pub errors: Vec<QueryError>,
    /// What inline values were read as when they were not exact (see [`query::ParsedQuery`]).
    pub notes: Vec<String>,
    /// Whether results are ranked by relevance (there were words to search).
    pub ranked: bool,
    /// Cases matching, over all pages: with a sentence, the cases that really match it (scoring at
    /// least [`STRONG_SHARE`] of the best case), not every case that shares a word with it.
    pub total: usize,
    /// Cases that match the sentence more weakly; listed after the real matches (and counted
    /// in `total`) only when the request asks for `all`, otherwise just counted here.
    pub weaker: usize,
    /// The words matched nothing well (most of them are in no case and none names a value):
    /// every case scored is a weaker match, whatever filters are applied.
    pub poor: bool,
    /// Results skipped.
    pub offset: usize,
    /// This page of results.
    pub hits: Vec<Hit>,
    /// Facet values found in the sentence, not yet applied, best first.
    pub suggestions: Vec<Suggestion>,
    /// "These N cases involve A and B."
    pub summary: String,
    /// Counts over all matching cases.
    pub breakdown: Breakdown,
}

impl Response {
    /// "1 to 20 of 57".
    pub fn range(&self) -> String {
        breakdown::range_text(self.offset, self.hits.len(), self.total)
    }
}

/// A case really matches a sentence when it scores at least this share of the best case's score.
/// Relevance adds up what a case shares with the sentence, each word weighed by its rarity and by
/// whether it names something (see [`weights`]); a case that shares only the sentence's common or
/// generic words scores a small fraction of one that shares what the sentence is about.
pub const STRONG_SHARE: f32 = 0.3;

/// The least confidence at which the learned facet model (`corpus::learned`) suggests a value
/// the words do not name. Set on the labelled suggestion set and the logs (`tests/eval.rs`),
/// never on the leave-one-out cases the model is measured on.
pub const SUGGEST_CONFIDENCE: f32 = 0.9;
/// A value the learned model reads in a text: (catalog id, the words, the confidence).
type Learned = (usize, Vec<String>, f32);

/// In a log, a value named by one plain word of an alias is suggested only where the learned
/// model reads the lines as pointing at it at least this much.
pub const LOG_WORD_SUPPORT: f32 = 0.5;
/// In a sentence, a value named by one word of an alias is not suggested when the learned model
/// gives it less than this while it reads another value of the same kind at [`RIVAL`] or more.
pub const WORD_DOUBT: f32 = 0.15;
/// See [`WORD_DOUBT`].
pub const RIVAL: f32 = 0.7;
/// At most this many learned suggestions of one kind.
pub const LEARNED_PER_KIND: usize = 1;
/// A learned suggestion's strength per unit of confidence (an exact alias word is about 1).
const LEARNED_STRENGTH: f32 = 0.9;

/// What an engine can be built on besides its library: the search index opened already and the
/// catalog stored with it (both come from the on-disk cache, `crate::store::cache`).
#[derive(Debug, Default)]
pub struct Prebuilt {
    /// The index of the library's cases.
    pub index: Option<CaseIndex>,
    /// The library's catalog.
    pub catalog: Option<Catalog>,
}

/// The search engine over one library. Cheap to share across threads (`Send + Sync`).
#[derive(Debug)]
pub struct Engine {
    library: Arc<Library>,
    catalog: Catalog,
    index: CaseIndex,
    matcher: Matcher,
    /// Taxonomy value position -> catalog value id.
    value_ids: Vec<Option<usize>>,
    /// The facet model learned from the bundled library, and its value ids -> catalog ids.
    learned: Option<(&'static FacetModel, Vec<Option<usize>>)>,
    tuning: index::Tuning,
}

impl Engine {
    /// Build the index, the catalog and the matcher for `library`.
    pub fn new(library: Arc<Library>) -> Result<Engine> {
        Engine::with_tuning(library, index::Tuning::default())
    }

    /// [`Engine::new`] with other relevance settings (for evaluating them).
    pub fn with_tuning(library: Arc<Library>, tuning: index::Tuning) -> Result<Engine> {
        let catalog = Catalog::new(&library);
        let index = CaseIndex::build(&library.cases)?;
        let (matcher, value_ids) = Engine::matcher(&library, &catalog);
        let learned = Engine::learned(&catalog, Some(FacetModel::bundled()));
        Ok(Engine { library, catalog, index, matcher, value_ids, learned, tuning })
    }

    /// The engine over `library` on what was `prebuilt` for it (by the on-disk cache: see
    /// `crate::store::cache`); what is missing is built now. With a stored catalog no case is decoded.
    pub fn with_prebuilt(library: Arc<Library>, prebuilt: Prebuilt) -> Result<Engine> {
        let catalog = prebuilt.catalog.unwrap_or_else(|| Catalog::new(&library));
        let index = match prebuilt.index {
            Some(index) => index,
            None => CaseIndex::build(&library.cases)?,
        };
        let (matcher, value_ids) = Engine::matcher(&library, &catalog);
        let learned = Engine::learned(&catalog, Some(FacetModel::bundled()));
        Ok(Engine { library, catalog, index, matcher, value_ids, learned, tuning: index::Tuning::default() })
    }

    /// The engine without the learned facet model: suggestions from aliases and signatures
    /// alone (the baseline the model is measured against).
    pub fn aliases_only(mut self) -> Engine {
        self.learned = None;
        self
    }

    /// `model` with where each of its values is in `catalog`.
    fn learned(
        catalog: &Catalog,
        model: Option<&'static FacetModel>,
    ) -> Option<(&'static FacetModel, Vec<Option<usize>>)> {
        let model = model.filter(|m| m.cases() > 0)?;
        Some((model, model.values().iter().map(|v| catalog.id(v.kind, &v.name)).collect()))
    }

    /// The taxonomy's matcher, and where each of its values is in the catalog.
    fn matcher(library: &Library, catalog: &Catalog) -> (Matcher, Vec<Option<usize>>) {
        let ids = library.taxonomy.values().iter().map(|v| catalog.id(v.kind, &v.name)).collect();
        (Matcher::new(&library.taxonomy), ids)
    }

    /// Get ready now for what the first sentence with a word no case contains would otherwise
    /// wait for (the words for typo corrections; a third of a second at 100,000 cases).
    pub fn prepare_corrections(&self) {
        self.index.prepare_corrections();
    }

    /// The library searched.
    pub fn library(&self) -> &Arc<Library> {
        &self.library
    }

    /// The facet values, organizations and dates of the library as case sets.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Split `input` into its sentence and inline filters, without searching.
    pub fn parse(&self, input: &str) -> ParsedQuery {
        query::parse(input, &self.library.taxonomy, self.catalog.organizations())
    }

    /// Run one search; see the module docs.
    pub fn search(&self, request: &Request<'_>) -> Response {
        let parsed = if request.inline_syntax {
            self.parse(request.input)
        } else {
            ParsedQuery { text: request.input.trim().to_string(), ..ParsedQuery::default() }
        };
        let mut errors = parsed.errors;
        let filters = merge(request.filters, &parsed.filters);
        let allowed = self.catalog.filter(&filters);
        let found = self.find_values(&parsed.text, request.typos);
        let words = self.index.words(&parsed.text);
        // Words most of which no case contains, none naming a value, match nothing well: the
        // best of poor matches is not an answer ("zxqv blorpt foo bar").
        let poor = found.is_empty() && mostly_unknown(&words);
        // A log is searched with typos off and without inline syntax: the lines a program printed.
        let log = !request.typos && !request.inline_syntax;
        // A sentence is ranked on the values it would suggest: a word that names a value only
        // by accident (`down` in "loss went down then spiked", where the model reads a loss
        // spike; in "MFU went down", where a longer phrase names slow training) neither widens
        // the query nor counts double. A log keeps every value its lines name, for ranking.
        let believed = (!log && request.suggest_from.is_none())
            .then(|| self.suggestible(&parsed.text, found.clone(), false));
        let rank_on = believed.as_ref().map_or(&found, |(named, _)| named);
        let (ranked, mut results) = match self.rank(&parsed.text, words, rank_on, &allowed, request.typos) {
            Ok(Some(results)) => (true, results),
            Ok(None) => (false, unranked(&allowed)),
            Err(e) => {
                errors.push(QueryError { span: 0..0, message: e.to_string(), nearest: Vec::new() });
                (false, unranked(&allowed))
            }
        };
        let mut weaker = 0;
        // Every case scored, before the cut: what a suggestion would leave is counted on it.
        let scored = if ranked && !request.all { results.clone() } else { Vec::new() };
        let poor = ranked && poor;
        if ranked {
            let best = results.iter().map(|r| r.1).fold(0.0, f32::max);
            let (strong, weak): (Vec<_>, Vec<_>) =
                results.into_iter().partition(|r| !poor && r.1 >= STRONG_SHARE * best);
            weaker = weak.len();
            results = strong;
            if request.all {
                results.extend(weak);
                weaker = 0;
            }
        }
        let mut result_set = CaseSet::empty(self.catalog.len());
        for &(i, _) in &results {
            result_set.insert(i as usize);
        }
        let total = results.len();
        let hits = self.page(results, request.offset, request.limit, ranked);
        let leaves = |value: &catalog::ValueEntry| match ranked && !request.all {
            true if poor => 0,
            true => strong_count(&scored, &value.cases),
            false => value.cases.intersection_count(&result_set),
        };
        let (found, learned) = match (believed, request.suggest_from) {
            (Some(believed), _) => believed,
            (None, Some(text)) => self.suggestible(text, self.find_values(text, request.typos), log),
            (None, None) => self.suggestible(&parsed.text, found, log),
        };
        let suggestions = self.suggestions(found, learned, &filters, &leaves);
        let breakdown = breakdown::breakdown(&self.catalog, &result_set);
        let summary = breakdown::summary(total, &breakdown);
        Response {
            text: parsed.text,
            filters,
            inline: parsed.filters,
            errors,
            notes: parsed.notes,
            ranked,
            total,
            weaker,
            poor,
            offset: request.offset,
            hits,
            suggestions,
            summary,
            breakdown,
        }
    }

    /// The taxonomy values `text` names (kind and name), strongest first; `typos`: also through
    /// misspellings.
    pub fn values_named(&self, text: &str, typos: bool) -> Vec<(FacetKind, &str)> {
        self.find_values(text, typos)
            .into_iter()
            .map(|f| {
                let v = &self.catalog.values()[f.value];
                (v.kind, v.name.as_str())
            })
            .collect()
    }

    /// The taxonomy values named in `text`, as catalog ids; `typos`: also through misspellings.
    fn find_values(&self, text: &str, typos: bool) -> Vec<matcher::Found> {
        // With typos off every word counts as known, so none is read as a misspelt value.
        self.matcher
            .find(text, &|w| !typos || self.index.is_known(w))
            .into_iter()
            .filter_map(|mut f| {
                f.value = self.value_ids.get(f.value).copied().flatten()?;
                Some(f)
            })
            .collect()
    }

    /// Every allowed case matching `text` (cut into `words` by the index), with its score, in no
    /// order; `None` when `text` has no word to search for. The values `found` in the text widen
    /// the query.
    fn rank(
        &self,
        text: &str,
        mut words: Vec<index::QueryWord>,
        found: &[matcher::Found],
        allowed: &CaseSet,
        typos: bool,
    ) -> Result<Option<Vec<(u32, f32)>>> {
        // Where each value was named, and how many words named it there: the words a phrase
        // stepped over (`got` in `gpu got lost`) cut its place in pieces and name nothing.
        let mut named: Vec<(usize, usize, usize)> = Vec::new();
        for f in found {
            for &(a, b) in &f.spans {
                let inside: Vec<(usize, usize)> =
                    f.skipped.iter().copied().filter(|&(x, y)| a <= x && y <= b).collect();
                let words = crate::text::words::word_spans(text.get(a..b).unwrap_or_default()).count();
                let words = words.saturating_sub(inside.len());
                let mut from = a;
                for &(x, y) in &inside {
                    named.push((from, x, words));
                    from = y;
                }
                named.push((from, b, words));
            }
        }
        weights::weigh(&mut words, &named, self.library.cases.len() as u64);
        let expansions: Vec<index::Expansion<'_>> = found
            .iter()
            .map(|f| {
                let v = &self.catalog.values()[f.value];
                index::Expansion {
                    kind: v.kind,
                    value: &v.name,
                    strength: f.score * self.index.specificity(&f.matched),
                }
            })
            .collect();
        let tuning = if typos {
            self.tuning.clone()
        } else {
            index::Tuning { fuzzy_boost: 0.0, ..self.tuning.clone() }
        };
        match self.index.query(&words, &expansions, &tuning) {
            Some(q) => self.index.run(q.as_ref(), &|i| allowed.contains(i)).map(Some),
            None => Ok(None),
        }
    }

    /// The page `offset..offset + limit` of `results` in order: score, then library order
    /// (newest first, then id). Only the cases up to the page's end are sorted.
    fn page(&self, mut results: Vec<(u32, f32)>, offset: usize, limit: usize, ranked: bool) -> Vec<Hit> {
        let end = offset.saturating_add(limit).min(results.len());
        let by_rank = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if end > 0 && end < results.len() {
            results.select_nth_unstable_by(end - 1, by_rank);
            results.truncate(end);
        }
        results.sort_by(by_rank);
        results
            .iter()
            .skip(offset)
            .take(limit)
            .map(|&(i, score)| Hit {
                index: i as usize,
                id: self.library.cases[i as usize].id.clone(),
                score: ranked.then_some(score),
            })
            .collect()
    }

    /// Every value the learned model finds evidence for in `text`: (catalog id, the words, the
    /// confidence), strongest first within each kind.
    fn learned_values(&self, text: &str) -> Vec<Learned> {
        let Some((model, ids)) = &self.learned else { return Vec::new() };
        if text.trim().is_empty() {
            return Vec::new();
        }
        let predicted = model.predict(&[(Part::Summary, text)], Reading::default());
        predicted
            .into_iter()
            .flatten()
            .filter_map(|p| {
                Some((ids.get(usize::from(p.value)).copied().flatten()?, p.because, p.confidence))
            })
            .collect()
    }

    /// What the words name and what the learned model adds, for suggesting: every value found
    /// by aliases and signatures (in a log, a value named by one plain word or identifier of an
    /// alias only where the model also reads it there, at [`LOG_WORD_SUPPORT`] or more: log lines
    /// are full of `gpu`, `controller`, `replica` and `torch.distributed.…` paths; in a sentence,
    /// unless the model reads the words as another value of its kind, [`WORD_DOUBT`], or the word
    /// lies inside a longer phrase of another value of its kind), and the values the model is at
    /// least [`SUGGEST_CONFIDENCE`] sure of that the words do not name, at most
    /// [`LEARNED_PER_KIND`] of a kind. A sentence is also ranked on the values kept here.
    fn suggestible(
        &self,
        text: &str,
        found: Vec<matcher::Found>,
        log: bool,
    ) -> (Vec<matcher::Found>, Vec<Learned>) {
        let learned = self.learned_values(text);
        let support = |value: usize| learned.iter().find(|l| l.0 == value).map_or(0.0, |l| l.2);
        // One word, or one identifier (`torch.distributed` inside a module path): no space.
        let one_word = |f: &matcher::Found| {
            !f.signature
                && f.spans
                    .iter()
                    .all(|&(a, b)| !text.get(a..b).unwrap_or_default().contains(char::is_whitespace))
        };
        // The strongest reading of each kind: a typed word the model reads as another value of
        // its kind (`temperature` beside `GPU` and `92C`: not sampling) is not suggested.
        let mut rival = [0.0f32; 4];
        for l in &learned {
            let kind = self.catalog.values()[l.0].kind.index();
            rival[kind] = rival[kind].max(l.2);
        }
        let kind_of = |value: usize| self.catalog.values()[value].kind.index();
        // A word that is only a part of a longer name names the identifier, not the value: of a
        // snake_case name (`default` in `default_pg`), and in a log of a dotted module path
        // (`torch.distributed` in `torch.distributed.DistBackendError`) or a file path (`c10d`
        // in `csrc/distributed/c10d/ProcessGroupNCCL.cpp`): where a program printed a line, not
        // what failed. (Typed, `torch.distributed.barrier hangs` is about the framework.)
        let joined = |before: &str, after: &str| {
            let name_char = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
            let mut back = before.chars().rev();
            let (b1, b2) = (back.next(), back.next());
            let mut ahead = after.chars();
            let (a1, a2) = (ahead.next(), ahead.next());
            let path = (matches!(a1, Some('.' | '/')) && name_char(a2))
                || (matches!(b1, Some('.' | '/')) && name_char(b2));
            b1 == Some('_') || a1 == Some('_') || (log && path)
        };
        let in_identifier = |f: &matcher::Found| {
            !f.signature
                && f.spans.iter().all(|&(a, b)| {
                    joined(text.get(..a).unwrap_or_default(), text.get(b..).unwrap_or_default())
                })
        };
        let found: Vec<matcher::Found> = found.into_iter().filter(|f| !in_identifier(f)).collect();
        // A word that lies inside a longer phrase of another value of its kind means that value
        // there (`down` in `MFU went down`: the metric fell, no service is out).
        let inside = |outer: (usize, usize), inner: (usize, usize)| {
            outer != inner && outer.0 <= inner.0 && inner.1 <= outer.1
        };
        let shadowed: Vec<bool> = found
            .iter()
            .map(|f| {
                one_word(f)
                    && f.spans.iter().all(|&span| {
                        found.iter().any(|o| {
                            o.value != f.value
                                && kind_of(o.value) == kind_of(f.value)
                                && o.spans.iter().any(|&t| inside(t, span))
                        })
                    })
            })
            .collect();
        let found: Vec<matcher::Found> =
            found.into_iter().zip(shadowed).filter(|(_, s)| log || !*s).map(|(f, _)| f).collect();
        let found: Vec<matcher::Found> = match self.learned.is_some() {
            true => found
                .into_iter()
                .filter(|f| {
                    let doubted = support(f.value) < WORD_DOUBT && rival[kind_of(f.value)] >= RIVAL;
                    match (one_word(f), log) {
                        (false, false) => true,
                        (false, true) => !doubted,
                        (true, true) => support(f.value) >= LOG_WORD_SUPPORT,
                        (true, false) => !doubted,
                    }
                })
                .collect(),
            false => found,
        };
        let mut per_kind = [0usize; 4];
        let mut added = Vec::new();
        for (value, words, confidence) in learned {
            let kind = kind_of(value);
            if confidence >= SUGGEST_CONFIDENCE
                && per_kind[kind] < LEARNED_PER_KIND
                && !found.iter().any(|f| f.value == value)
            {
                per_kind[kind] += 1;
                added.push((value, words, confidence));
            }
        }
        (found, added)
    }

    /// The values found by aliases and signatures and by the learned model, less those already
    /// applied or negated, with what each would leave (`leaves`: exactly the total that applying
    /// it gives; none that would leave nothing); strongest first, then most cases.
    fn suggestions(
        &self,
        found: Vec<matcher::Found>,
        learned: Vec<Learned>,
        filters: &Filters,
        leaves: &dyn Fn(&catalog::ValueEntry) -> usize,
    ) -> Vec<Suggestion> {
        let named = found.into_iter().map(|f| {
            let basis = Basis::of_match(&f);
            (f.value, f.matched, f.certain, f.score, basis)
        });
        let learned = learned.into_iter().map(|(value, words, confidence)| {
            let basis = Basis::learned(words.clone(), confidence);
            // Below every alias found (about 1 for one exact word): the model adds, it does not
            // outrank what the words name.
            (value, words, true, LEARNED_STRENGTH * confidence, basis)
        });
        let mut suggestions: Vec<Suggestion> = named
            .chain(learned)
            .filter_map(|(value, matched, certain, strength, basis)| {
                let v = &self.catalog.values()[value];
                if filters.facets.iter().any(|a| a.kind == v.kind && a.value == v.name) {
                    return None;
                }
                let count = leaves(v);
                (count > 0).then(|| Suggestion {
                    kind: v.kind,
                    value: v.name.clone(),
                    count,
                    matched,
                    certain,
                    basis,
                    strength,
                })
            })
            .collect();
        suggestions.sort_by(|a, b| {
            b.strength
                .total_cmp(&a.strength)
                .then(b.count.cmp(&a.count))
                .then(a.kind.cmp(&b.kind))
                .then_with(|| a.value.cmp(&b.value))
        });
        suggestions
    }
}

/// How many of the `scored` cases in `with` really match once only they are left: a filter
/// narrows the allowed cases without changing any case's score, so applying it keeps the cases
/// of `with` that score at least [`STRONG_SHARE`] of the best among them — a count that is
/// exactly the total the filtered search gives.
fn strong_count(scored: &[(u32, f32)], with: &CaseSet) -> usize {
    let best = scored.iter().filter(|r| with.contains(r.0 as usize)).map(|r| r.1).fold(0.0, f32::max);
    scored.iter().filter(|r| with.contains(r.0 as usize) && r.1 >= STRONG_SHARE * best).count()
}

/// Whether at least half the `words` of a sentence (two or more) are in no case.
fn mostly_unknown(words: &[index::QueryWord]) -> bool {
    let unknown = words.iter().filter(|w| w.doc_freq == 0).count();
    words.len() >= 2 && unknown * 2 >= words.len()
}

/// Every allowed case, unscored, in library order (newest first, ties by id).
fn unranked(allowed: &CaseSet) -> Vec<(u32, f32)> {
    allowed.iter().map(|i| (i as u32, 0.0)).collect()
}

/// The applied filters and the inline ones together: every condition of both holds.
pub fn merge(applied: &Filters, inline: &Filters) -> Filters {
    let mut filters = applied.clone();
    for f in &inline.facets {
        filters.set_facet(f.clone());
    }
    for o in &inline.organizations {
        if !filters.organizations.iter().any(|a| a.eq_ignore_ascii_case(o)) {
            filters.organizations.push(o.clone());
        }
    }
    if let Some(a) = inline.after {
        query::narrow_after(&mut filters, a);
    }
    if let Some(b) = inline.before {
        query::narrow_before(&mut filters, b);
    }
    filters
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine() -> Engine {
        Engine::new(Arc::new(Library::bundled())).unwrap()
    }

    #[test]
    fn engine_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Engine>();
    }

    #[test]
    fn no_sentence_lists_every_case_newest_first() {
        let e = engine();
        let none = Filters::default();
        let r = e.search(&Request { limit: 1000, ..Request::new("", &none) });
        assert!(!r.ranked);
        assert_eq!(r.total, e.library().cases.len());
        let ids: Vec<&str> = r.hits.iter().map(|h| h.id.as_str()).collect();
        let want: Vec<&str> = e.library().cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, want);
        assert!(r.hits.iter().all(|h| h.score.is_none()));
    }

    #[test]
    fn a_sentence_ranks_and_pages_consistently() {
        let e = engine();
        let none = Filters::default();
        let all = e.search(&Request { limit: usize::MAX, ..Request::new("checkpoint hang", &none) });
        assert!(all.ranked && all.total > 0);
        assert!(all.hits.windows(2).all(|w| w[0].score >= w[1].score));
        let page = e.search(&Request { offset: 1, limit: 2, ..Request::new("checkpoint hang", &none) });
        assert_eq!(page.hits, all.hits[1..3.min(all.total)]);
        assert_eq!(page.total, all.total);
        let far = e.search(&Request { offset: 100_000, limit: 5, ..Request::new("checkpoint hang", &none) });
        assert!(far.hits.is_empty());
        assert_eq!(far.range(), format!("0 of {}", all.total));
    }

    #[test]
    fn inline_syntax_filters_and_reports_errors() {
        let e = engine();
        let none = Filters::default();
        let r = e.search(&Request::new("component:nccl hang", &none));
        assert_eq!(r.text, "hang");
        assert!(r.filters.facets.iter().any(|f| f.value == "NCCL"));
        for hit in &r.hits {
            assert!(e.library().cases[hit.index].facets.contains(FacetKind::Component, "NCCL"));
        }
        let bad = e.search(&Request::new("component:fluxcapacitor hang", &none));
        assert_eq!(bad.errors.len(), 1);
        assert!(bad.errors[0].message.contains("nearest"), "{}", bad.errors[0].message);
        let off = e.search(&Request { inline_syntax: false, ..Request::new("component:nccl", &none) });
        assert!(off.filters.is_empty() && off.errors.is_empty());
    }

    #[test]
    fn suggestions_count_what_would_remain_and_skip_applied_values() {
        let e = engine();
        let none = Filters::default();
        let r = e.search(&Request::new("training job hung", &none));
        let hang = r.suggestions.iter().find(|s| s.value == "Hang").expect("Hang is suggested");
        assert!(hang.matched.iter().any(|m| m == "hung"), "{:?}", hang.matched);
        let mut applied = Filters::default();
        applied.add_facet(&e.library().taxonomy, FacetKind::Symptom, "Hang", false).unwrap();
        let narrowed = e.search(&Request::new("training job hung", &applied));
        assert_eq!(narrowed.total, hang.count, "the count is what applying it leaves");
        assert!(narrowed.suggestions.iter().all(|s| s.value != "Hang"));
    }

    #[test]
    fn the_learned_model_adds_what_the_words_do_not_name_and_says_so() {
        let e = engine();
        let none = Filters::default();
        let r = e.search(&Request::new("kube-apiserver OOM from LIST calls", &none));
        let learned = r
            .suggestions
            .iter()
            .find(|s| matches!(s.basis, Basis::Learned { .. }))
            .unwrap_or_else(|| panic!("a learned suggestion: {:?}", r.suggestions));
        let Basis::Learned { words, confidence } = &learned.basis else { unreachable!() };
        assert!(*confidence >= SUGGEST_CONFIDENCE, "{learned:?}");
        assert!(!words.is_empty() && words.iter().all(|w| r.text.contains(w.as_str())), "{learned:?}");
        // Without the model, only what the words name.
        let plain = Engine::new(e.library().clone()).unwrap().aliases_only();
        let r = plain.search(&Request::new("kube-apiserver OOM from LIST calls", &none));
        assert!(
            r.suggestions.iter().all(|s| !matches!(s.basis, Basis::Learned { .. })),
            "{:?}",
            r.suggestions
        );
    }

    #[test]
    fn a_part_of_a_longer_name_suggests_nothing() {
        let e = engine();
        let none = Filters::default();
        let has = |r: &Response, value: &str| r.suggestions.iter().any(|s| s.value == value);
        // snake_case, typed or logged: `default` in `default_pg` is no unsafe default.
        let r = e.search(&Request::new("ProcessGroupNCCL default_pg timed out", &none));
        assert!(!has(&r, "Unsafe default"), "{:?}", r.suggestions);
        // In a log, a module path says where a line was printed.
        let line = "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027";
        let r = e.search(&Request::log(line, &none));
        assert!(!has(&r, "Distributed training framework"), "{:?}", r.suggestions);
        // Typed, an API name is about the framework.
        let r = e.search(&Request::new("torch.distributed.barrier hangs", &none));
        assert!(has(&r, "Distributed training framework"), "{:?}", r.suggestions);
    }

    #[test]
    fn a_word_inside_a_longer_phrase_of_its_kind_names_that_phrase_s_value() {
        let e = engine();
        let none = Filters::default();
        let has = |r: &Response, value: &str| r.suggestions.iter().any(|s| s.value == value);
        // `down` alone is an alias of Service outage; in `MFU went down` it is the metric that fell.
        let r = e.search(&Request::new("MFU went down", &none));
        assert!(has(&r, "Slow training") && !has(&r, "Service outage"), "{:?}", r.suggestions);
        let r = e.search(&Request::new("the server went down", &none));
        assert!(has(&r, "Service outage"), "{:?}", r.suggestions);
        // In a log every value a line names is kept: the lines are the program's, not a sentence.
        let r = e.search(&Request::log("MFU went down", &none));
        assert!(has(&r, "Slow training"), "{:?}", r.suggestions);
    }

    #[test]
    fn a_sentence_is_ranked_on_the_values_it_suggests() {
        let e = engine();
        let none = Filters::default();
        // `down` names Service outage, but the model reads a loss spike here: the outages do not
        // come first.
        let r = e.search(&Request::new("loss went down then spiked", &none));
        assert!(r.suggestions.iter().all(|s| s.value != "Service outage"), "{:?}", r.suggestions);
        for hit in r.hits.iter().take(3) {
            let case = &e.library().cases[hit.index];
            assert!(case.facets.contains(FacetKind::Symptom, "Loss spike or divergence"), "{}", case.id);
        }
    }

    #[test]
    fn summary_and_breakdown_follow_the_results() {
        let e = engine();
        let none = Filters::default();
        let r = e.search(&Request::new("", &none));
        let years: usize = r.breakdown.year.iter().map(|c| c.count).sum();
        assert_eq!(years, r.total);
        assert!(r.summary.starts_with(&format!("These {} cases involve ", r.total)), "{}", r.summary);
        for unknown in ["qqqqqqqqzzzzzz", "zqx", "zqx the", "zxqv blorpt", "zxqv blorpt foo bar baz qux"] {
            let nothing = e.search(&Request::new(unknown, &none));
            assert!(nothing.ranked, "{unknown}");
            assert_eq!(nothing.total, 0, "unknown words match nothing: {unknown}");
            assert_eq!(nothing.summary, "No case matches.");
            // No filter can be promised to leave a case.
            assert!(nothing.suggestions.is_empty(), "{unknown}: {:?}", nothing.suggestions);
        }
        let stop_words = e.search(&Request::new("the and of", &none));
        assert!(!stop_words.ranked);
        assert_eq!(stop_words.total, e.library().cases.len(), "no word to search: every case");
    }
}
