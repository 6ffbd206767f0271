//! The search worker: the thread that owns the search engine, answers the newest request and
//! drops the ones it has been overtaken by, so typing never waits for a search.
//!
//! [`Request`] and [`Response`] are the TUI's whole view of search: what was typed, the applied
//! filters and a window of the results in; totals, the window of hits, suggestions, the summary,
//! the breakdown and the query's error out. [`run`] is the one place that calls the engine.

use std::{
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use crate::{
    corpus::{FacetKind, Library},
    filter::Filters,
};

/// What to search for. `generation` identifies the query (input and filters); a page request
/// for the same query keeps its generation and changes `offset`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The query this request belongs to.
    pub generation: u64,
    /// What was typed: a sentence and inline filters (`component:nccl`).
    pub input: String,
    /// The applied filters.
    pub filters: Filters,
    /// The first result wanted.
    pub offset: usize,
    /// How many results wanted.
    pub limit: usize,
}

/// A suggested filter: a taxonomy value found in the words typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// Its kind.
    pub kind: FacetKind,
    /// Its canonical name.
    pub value: String,
    /// Cases that would remain if it were applied.
    pub count: usize,
    /// The words that matched it.
    pub matched: Vec<String>,
}

/// What a breakdown counts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dimension {
    /// Root cause (the seed page's "By root cause"; the default).
    RootCause,
    /// Component.
    Component,
    /// Symptom.
    Symptom,
    /// Contributing factor.
    ContributingFactor,
    /// Year.
    Year,
}

impl Dimension {
    /// Every dimension, in the order the breakdown pane cycles through them.
    pub const ALL: [Dimension; 5] = [
        Dimension::RootCause,
        Dimension::Component,
        Dimension::Symptom,
        Dimension::ContributingFactor,
        Dimension::Year,
    ];

    /// The facet kind counted, if it is one.
    pub fn kind(self) -> Option<FacetKind> {
        match self {
            Dimension::RootCause => Some(FacetKind::RootCause),
            Dimension::Component => Some(FacetKind::Component),
            Dimension::Symptom => Some(FacetKind::Symptom),
            Dimension::ContributingFactor => Some(FacetKind::ContributingFactor),
            Dimension::Year => None,
        }
    }

    /// The label shown: "Root cause", ..., "Year".
    pub fn label(self) -> &'static str {
        self.kind().map_or("Year", FacetKind::label)
    }

    /// The machine name, as saved in the session file.
    pub fn key(self) -> &'static str {
        self.kind().map_or("year", FacetKind::key)
    }

    /// The dimension with this [`Dimension::key`].
    pub fn from_key(key: &str) -> Option<Dimension> {
        Dimension::ALL.into_iter().find(|d| d.key() == key)
    }

    /// Position in [`Dimension::ALL`].
    pub fn index(self) -> usize {
        Dimension::ALL.iter().position(|d| *d == self).unwrap_or(0)
    }
}

/// Counts per value, most first, for each [`Dimension`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakdown {
    counts: [Vec<(String, usize)>; 5],
}

impl Breakdown {
    /// The counts for one dimension, most first, ties by name.
    pub fn of(&self, dimension: Dimension) -> &[(String, usize)] {
        &self.counts[dimension.index()]
    }

    /// Set the counts for one dimension (sorted here: most first, ties by name).
    pub fn set(&mut self, dimension: Dimension, mut counts: Vec<(String, usize)>) {
        counts.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        self.counts[dimension.index()] = counts;
    }
}

/// The answer to a [`Request`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Response {
    /// The request's generation.
    pub generation: u64,
    /// The request's offset: `hits[0]` is result number `offset`.
    pub offset: usize,
    /// How many cases match in all.
    pub total: usize,
    /// The window of results: indices into `Library::cases`, best first.
    pub hits: Vec<usize>,
    /// Suggested filters, best first.
    pub suggestions: Vec<Suggestion>,
    /// "These N cases involve A and B".
    pub summary: String,
    /// Counts by each dimension over the matching cases.
    pub breakdown: Breakdown,
    /// What is wrong with the query (an unknown inline filter value), if anything.
    pub error: Option<String>,
    /// How long the search took.
    pub elapsed: Duration,
}

/// The search engine over one library, built once.
pub struct Searcher {
    library: Arc<Library>,
}

impl Searcher {
    /// Build the engine for `library`.
    pub fn new(library: Arc<Library>) -> Searcher {
        Searcher { library }
    }

    /// Answer one request.
    pub fn run(&self, request: &Request) -> Response {
        let started = Instant::now();
        let library = &self.library;
        let words: Vec<String> = request.input.split_whitespace().map(str::to_lowercase).collect();
        let matching: Vec<usize> = (0..library.cases.len())
            .filter(|&i| {
                let case = &library.cases[i];
                let haystack = format!("{} {}", case.title, case.symptoms).to_lowercase();
                request.filters.matches(case) && words.iter().all(|w| haystack.contains(w.as_str()))
            })
            .collect();
        let mut suggestions = Vec::new();
        for kind in FacetKind::ALL {
            for value in library.taxonomy.values_of(kind) {
                let matched: Vec<String> = words
                    .iter()
                    .filter(|w| value.phrases().any(|p| crate::taxonomy::normalize_term(p) == **w))
                    .cloned()
                    .collect();
                if matched.is_empty() || request.filters.facets.iter().any(|f| f.value == value.name) {
                    continue;
                }
                let count =
                    matching.iter().filter(|&&i| library.cases[i].facets.contains(kind, &value.name)).count();
                suggestions.push(Suggestion { kind, value: value.name.clone(), count, matched });
            }
        }
        let mut breakdown = Breakdown::default();
        for dimension in Dimension::ALL {
            let mut counts: Vec<(String, usize)> = Vec::new();
            for &i in &matching {
                let case = &library.cases[i];
                let values: Vec<String> = match dimension.kind() {
                    Some(kind) => case.facets.values(kind).to_vec(),
                    None => case.year().map(|y| y.to_string()).into_iter().collect(),
                };
                for v in values {
                    match counts.iter_mut().find(|(name, _)| *name == v) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((v, 1)),
                    }
                }
            }
            breakdown.set(dimension, counts);
        }
        let top: Vec<String> =
            breakdown.of(Dimension::Component).iter().take(2).map(|(v, _)| v.clone()).collect();
        let summary = if matching.is_empty() || top.is_empty() {
            String::new()
        } else {
            format!("These {} cases involve {}", matching.len(), top.join(" and "))
        };
        Response {
            generation: request.generation,
            offset: request.offset,
            total: matching.len(),
            hits: matching.iter().skip(request.offset).take(request.limit).copied().collect(),
            suggestions,
            summary,
            breakdown,
            error: None,
            elapsed: started.elapsed(),
        }
    }
}

/// Start the worker: it builds the engine, then answers requests from the returned sender with
/// `reply(response)`, always the newest request first and never an overtaken one. It stops
/// when the sender is dropped or `reply` returns false.
pub fn spawn(
    library: Arc<Library>,
    reply: impl Fn(Response) -> bool + Send + 'static,
) -> std::io::Result<mpsc::Sender<Request>> {
    let (tx, rx) = mpsc::channel::<Request>();
    std::thread::Builder::new().name("incidex-search".into()).spawn(move || {
        let searcher = Searcher::new(library);
        while let Ok(mut request) = rx.recv() {
            // Requests that arrived while the last search ran are overtaken by the newest.
            while let Ok(newer) = rx.try_recv() {
                request = newer;
            }
            if !reply(searcher.run(&request)) {
                break;
            }
        }
    })?;
    Ok(tx)
}
