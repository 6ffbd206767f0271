//! The search worker: the thread that owns the search engine, answers the newest request and
//! drops the ones it has been overtaken by, so typing never waits for a search.
//!
//! [`Request`] and [`Response`] are the TUI's whole view of search: what was typed, the applied
//! filters and a window of the results in; totals, the window of hits, suggestions, the summary,
//! the breakdown and the query's error out; while the facet picker is open, also what applying
//! each value would leave ([`ValueCounts`]). `run` is the one place that calls the engine.

use std::{
    collections::HashMap,
    sync::{Arc, mpsc},
    time::{Duration, Instant},
};

use crate::taxonomy::FacetKind;
use crate::{
    corpus::Library,
    corpus::filter::Filters,
    search::{self, Engine, Prebuilt, leaves::Leaves},
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
    /// A case (by id) whose result number is wanted even when it is not in the window: the
    /// selection to keep when the library changes or a session is resumed.
    pub locate: Option<String>,
    /// List the weaker matches after the real ones.
    pub all: bool,
    /// The input is the lines a pasted log was read down to: no inline syntax, no typo
    /// corrections (see `search::Request::log`).
    pub log: bool,
    /// For a pasted log, its failure lines, where filters are suggested from
    /// (`logs::Digest::failure_text`).
    pub suggest_from: Option<String>,
    /// Also count what applying each facet value (or excluding it) would leave: the facet
    /// picker is open and shows them.
    pub value_counts: bool,
}

/// What applying each facet value to one query would leave, with it and excluding it: the
/// facet picker's counts, each exactly the total the search gives once the value is applied
/// (see `search::leaves`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueCounts {
    /// Per kind (by `FacetKind::index`): value name -> what applying it would leave.
    by_kind: [HashMap<String, Leaves>; 4],
}

impl ValueCounts {
    /// The counts of `values`.
    pub fn new(values: impl IntoIterator<Item = search::leaves::ValueLeaves>) -> ValueCounts {
        let mut counts = ValueCounts::default();
        for v in values {
            counts.by_kind[v.kind.index()].insert(v.value, v.leaves);
        }
        counts
    }

    /// What applying (kind, value) would leave; `None` for a value the library does not know.
    pub fn get(&self, kind: FacetKind, value: &str) -> Option<Leaves> {
        self.by_kind[kind.index()].get(value).copied()
    }
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
    /// What it rests on, in words (`corpus::basis::Basis::describe`).
    pub basis: String,
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

/// Counts per value for each [`Dimension`]: most cases first (years newest first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Breakdown {
    counts: [Vec<(String, usize)>; 5],
}

impl Breakdown {
    /// The counts for one dimension, in the order shown.
    pub fn of(&self, dimension: Dimension) -> &[(String, usize)] {
        &self.counts[dimension.index()]
    }

    /// Set the counts for one dimension, in the order they are to be shown.
    pub fn set(&mut self, dimension: Dimension, counts: Vec<(String, usize)>) {
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
    /// Further cases that match the sentence weakly (not listed unless asked for).
    pub weaker: usize,
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
    /// What inline filter values were read as when they were not exact.
    pub notes: Vec<String>,
    /// The result number of the case the request asked to locate, when it matches.
    pub located: Option<usize>,
    /// What applying each facet value would leave, when the request asked for it.
    pub value_counts: Option<Arc<ValueCounts>>,
    /// How long the search took.
    pub elapsed: Duration,
}

/// The search engine over a loaded library, built or still to build.
#[derive(Debug)]
pub enum Search {
    /// Built on the loading thread.
    Built(Box<Searcher>),
    /// To be built by the search worker, on what the cache had ready.
    Unbuilt(Box<Prebuilt>),
}

impl Search {
    /// The engine over `library` (building it now when it is not built yet).
    pub fn into_searcher(self, library: Arc<Library>) -> Searcher {
        match self {
            Search::Built(searcher) => *searcher,
            Search::Unbuilt(prebuilt) => Searcher::with_prebuilt(library, *prebuilt),
        }
    }
}

/// The search engine over one library, built once; or why it could not be built.
#[derive(Debug)]
pub struct Searcher {
    engine: std::result::Result<Engine, String>,
}

impl Searcher {
    /// Build the engine for `library`.
    pub fn new(library: Arc<Library>) -> Searcher {
        Searcher::with_prebuilt(library, Prebuilt::default())
    }

    /// Build the engine for `library`, on what the cache had ready for it.
    pub fn with_prebuilt(library: Arc<Library>, prebuilt: Prebuilt) -> Searcher {
        Searcher { engine: Engine::with_prebuilt(library, prebuilt).map_err(|e| e.to_string()) }
    }

    /// Get ready for what a later search could otherwise wait for.
    pub fn prepare(&self) {
        if let Ok(engine) = &self.engine {
            engine.prepare_corrections();
        }
    }

    /// Answer one request.
    pub fn run(&self, request: &Request) -> Response {
        let started = Instant::now();
        let engine = match &self.engine {
            Ok(engine) => engine,
            Err(why) => {
                return Response {
                    generation: request.generation,
                    offset: request.offset,
                    error: Some(format!("search is unavailable: {why}")),
                    ..Response::default()
                };
            }
        };
        let asked = search::Request {
            input: &request.input,
            filters: &request.filters,
            offset: request.offset,
            limit: request.limit,
            inline_syntax: !request.log,
            typos: !request.log,
            all: request.all,
            suggest_from: request.suggest_from.as_deref(),
        };
        let found = engine.search(&asked);
        let value_counts =
            request.value_counts.then(|| Arc::new(ValueCounts::new(engine.facet_leaves(&asked))));
        let mut breakdown = Breakdown::default();
        for dimension in Dimension::ALL {
            let counts = match dimension.kind() {
                Some(kind) => found.breakdown.of(kind),
                None => &found.breakdown.year,
            };
            breakdown.set(dimension, counts.iter().map(|c| (c.value.clone(), c.count)).collect());
        }
        let located =
            request.locate.as_deref().and_then(|id| match found.hits.iter().position(|h| h.id == id) {
                Some(i) => Some(found.offset + i),
                // Not in the window: rank every result once to find it (a switch of library or a
                // resumed session, not a keystroke).
                None => engine
                    .search(&search::Request {
                        offset: 0,
                        limit: usize::MAX,
                        all: request.all,
                        inline_syntax: !request.log,
                        typos: !request.log,
                        ..search::Request::new(&request.input, &request.filters)
                    })
                    .hits
                    .iter()
                    .position(|h| h.id == id),
            });
        let errors: Vec<String> = found.errors.iter().map(ToString::to_string).collect();
        Response {
            generation: request.generation,
            offset: found.offset,
            total: found.total,
            weaker: found.weaker,
            hits: found.hits.iter().map(|h| h.index).collect(),
            suggestions: found
                .suggestions
                .into_iter()
                .map(|s| Suggestion {
                    kind: s.kind,
                    value: s.value,
                    count: s.count,
                    matched: s.matched,
                    basis: s.basis.describe(),
                })
                .collect(),
            summary: found.summary,
            breakdown,
            error: (!errors.is_empty()).then(|| errors.join("; ")),
            notes: found.notes,
            located,
            value_counts,
            elapsed: started.elapsed(),
        }
    }
}

/// Start the worker: it builds the engine, then answers requests from the returned sender with
/// `reply(response)`, always the newest request first and never an overtaken one. It stops
/// when the sender is dropped or `reply` returns false.
pub fn spawn(
    library: Arc<Library>,
    prebuilt: Prebuilt,
    reply: impl Fn(Response) -> bool + Send + 'static,
) -> std::io::Result<mpsc::Sender<Request>> {
    start(move || Searcher::with_prebuilt(library, prebuilt), reply)
}

/// Start a worker on the engine of a library opened in the background (built already, or
/// built first by the worker); otherwise as [`spawn`]. The UI switches libraries by dropping the
/// old worker's sender for this one's.
pub fn spawn_search(
    library: Arc<Library>,
    search: Search,
    reply: impl Fn(Response) -> bool + Send + 'static,
) -> std::io::Result<mpsc::Sender<Request>> {
    start(move || search.into_searcher(library), reply)
}

fn start(
    build: impl FnOnce() -> Searcher + Send + 'static,
    reply: impl Fn(Response) -> bool + Send + 'static,
) -> std::io::Result<mpsc::Sender<Request>> {
    let (tx, rx) = mpsc::channel::<Request>();
    std::thread::Builder::new().name("incidex-search".into()).spawn(move || {
        // The engine is built once the first request comes: the UI sends it as it draws its
        // first frame (the library's own order, from memory), which so does not share the
        // cores with building the engine and the typo corrections.
        let Ok(first) = rx.recv() else { return };
        let searcher = build();
        std::thread::scope(|scope| {
            // Typo corrections get ready beside the searches (a search that needs them first
            // waits for them; one that does not, does not).
            let _ = std::thread::Builder::new()
                .name("incidex-prepare".into())
                .spawn_scoped(scope, || searcher.prepare());
            let mut next = Some(first);
            while let Some(mut request) = next.take().or_else(|| rx.recv().ok()) {
                // Requests that arrived while the last search ran are overtaken by the newest.
                while let Ok(newer) = rx.try_recv() {
                    request = newer;
                }
                if !reply(searcher.run(&request)) {
                    break;
                }
            }
        });
    })?;
    Ok(tx)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::LoadOptions;

    #[test]
    fn a_case_to_locate_is_found_beyond_the_window() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui");
        let library = Arc::new(Library::load(&LoadOptions { bundled: false, dirs: vec![dir] }));
        let searcher = Searcher::new(library.clone());
        let request = |locate: &str| Request {
            all: false,
            log: false,
            suggest_from: None,
            generation: 1,
            input: String::new(),
            filters: Filters::default(),
            offset: 0,
            limit: 2,
            locate: Some(locate.to_string()),
            value_counts: false,
        };
        // No words: the results are the library in order.
        let ids: Vec<&str> = library.cases.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(searcher.run(&request(ids[1])).located, Some(1), "in the window");
        let beyond = searcher.run(&request(ids[4]));
        assert_eq!((beyond.located, beyond.hits.len()), (Some(4), 2), "found, the window unchanged");
        assert_eq!(searcher.run(&request("no-such-case")).located, None);
        let plain = Request { locate: None, ..request(ids[4]) };
        assert_eq!(searcher.run(&plain).located, None);
    }
}
