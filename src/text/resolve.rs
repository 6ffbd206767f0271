//! The one resolver for values people type: a facet value (`--component nccll`,
//! `component:nccll`, `incidex graph nccll`, the terminal UI's picker) or an organization
//! (`--org metaa`, `org:metaa`) becomes one of a list of candidates, each with a name and the
//! aliases people use for it.
//!
//! The rule, in order: an exact name or alias (compared with [`normalize`]); else the only
//! candidate with a word that starts with the input; else a near spelling that stands out from
//! the rest — the one candidate fewest typos away (one for a short word, two for a longer one),
//! or one spelled clearly more alike than any other (Jaro-Winkler). Anything else is unresolved, with the candidates to name in the error. Every
//! resolution says [`How`] it was reached, so callers can say what a word was read as when it
//! was not exact (a note on stderr, a line in the terminal UI).
//!
//! This module knows nothing of taxonomies, libraries or terminals: callers hand it names.

/// How an input reached its candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The input is the candidate's name.
    Name,
    /// The input is one of the candidate's aliases.
    Alias,
    /// A word of the candidate's name or of an alias starts with the input, and of no other.
    WordStart,
    /// The input is spelled like the candidate, more than like any other.
    NearSpelling,
}

impl How {
    /// Whether the input named the candidate outright (its name or a listed alias).
    pub fn is_exact(self) -> bool {
        matches!(self, How::Name | How::Alias)
    }

    /// A few words on how an inexact match was made, for notes.
    pub fn reason(self) -> &'static str {
        match self {
            How::Name => "its name",
            How::Alias => "an alias",
            How::WordStart => "the only one with a word starting so",
            How::NearSpelling => "the nearest spelling",
        }
    }
}

/// One thing an input can resolve to.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    /// Its canonical name.
    pub name: &'a str,
    /// Other words people type for it.
    pub aliases: &'a [String],
}

impl<'a> Candidate<'a> {
    /// A candidate known by its name alone.
    pub fn named(name: &'a str) -> Candidate<'a> {
        Candidate { name, aliases: &[] }
    }

    fn terms(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        std::iter::once(self.name).chain(self.aliases.iter().map(String::as_str))
    }
}

/// What an input resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    /// Index of the candidate.
    pub index: usize,
    /// How it was reached.
    pub how: How,
}

/// Why an input did not resolve to one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// Words of several candidates start with the input: these (indices, at most five).
    Ambiguous(Vec<usize>),
    /// Nothing is close enough; these are the nearest (indices, best first, at most three).
    Unknown(Vec<usize>),
}

impl Miss {
    /// The candidates to name in an error message.
    pub fn candidates(&self) -> &[usize] {
        match self {
            Miss::Ambiguous(c) | Miss::Unknown(c) => c,
        }
    }
}

/// Lowercase, with `-`, `_` and runs of white space folded to one space: the form in which
/// names, aliases and inputs are compared.
pub fn normalize(s: &str) -> String {
    // ASCII (nearly every term) in one pass and one allocation: taxonomies are normalised term
    // by term at every start.
    if s.is_ascii() {
        let mut out = String::with_capacity(s.len());
        let mut space = false;
        for b in s.bytes() {
            if char::from(b).is_whitespace() || b == b'-' || b == b'_' {
                space = !out.is_empty();
                continue;
            }
            if std::mem::take(&mut space) {
                out.push(' ');
            }
            out.push(char::from(b.to_ascii_lowercase()));
        }
        return out;
    }
    s.to_lowercase()
        .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A near spelling resolves when it is at least this similar (Jaro-Winkler)...
const NEAR: f64 = 0.9;
/// ...and this much more similar than the next candidate.
const STANDS_OUT: f64 = 0.03;
/// A part of a word must be at least this long to stand for the word (`nvl` for NVLink).
const PARTIAL_WORD: usize = 3;

/// Resolve `input` among `candidates` (see the module docs for the rule).
pub fn resolve(input: &str, candidates: &[Candidate<'_>]) -> Result<Match, Miss> {
    let norm = normalize(input);
    if norm.is_empty() {
        return Err(Miss::Unknown(nearest(&norm, candidates, 3)));
    }
    let mut by_alias = None;
    for (index, candidate) in candidates.iter().enumerate() {
        if normalize(candidate.name) == norm {
            return Ok(Match { index, how: How::Name });
        }
        if by_alias.is_none() && candidate.aliases.iter().any(|a| normalize(a) == norm) {
            by_alias = Some(index);
        }
    }
    if let Some(index) = by_alias {
        return Ok(Match { index, how: How::Alias });
    }
    let mut word_starts: Vec<usize> = candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.terms().any(|t| starts_a_word(&normalize(t), &norm)))
        .map(|(i, _)| i)
        .collect();
    word_starts.dedup_by(|a, b| candidates[*a].name == candidates[*b].name);
    if let [index] = word_starts.as_slice() {
        return Ok(Match { index: *index, how: How::WordStart });
    }
    if let Some(index) = fewest_typos(&norm, candidates) {
        return Ok(Match { index, how: How::NearSpelling });
    }
    let ranked = scored(&norm, candidates);
    if let [(best, index), rest @ ..] = ranked.as_slice()
        && *best >= NEAR
        && rest.first().is_none_or(|(next, _)| best - next > STANDS_OUT)
    {
        return Ok(Match { index: *index, how: How::NearSpelling });
    }
    if word_starts.len() > 1 {
        word_starts.truncate(5);
        return Err(Miss::Ambiguous(word_starts));
    }
    Err(Miss::Unknown(ranked.into_iter().take(3).map(|(_, i)| i).collect()))
}

/// How many typos (edits, a swap of neighbours counting as one) a word of `len` characters may
/// have and still be read as a near spelling: none below three letters, one up to five, two above.
fn typos_allowed(len: usize) -> usize {
    match len {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    }
}

/// The one candidate with a name or alias fewer typos away from `norm` than any other, when
/// that is few enough (`metaa` is one from Meta and two from Meta AI).
fn fewest_typos(norm: &str, candidates: &[Candidate<'_>]) -> Option<usize> {
    let allowed = typos_allowed(norm.chars().count());
    if allowed == 0 {
        return None;
    }
    let mut distances: Vec<(usize, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            (
                c.terms()
                    .map(|t| strsim::damerau_levenshtein(&normalize(t), norm))
                    .min()
                    .unwrap_or(usize::MAX),
                i,
            )
        })
        .collect();
    distances.sort_unstable();
    match distances.as_slice() {
        [(best, index), rest @ ..]
            if *best <= allowed && rest.first().is_none_or(|(next, _)| next > best) =>
        {
            Some(*index)
        }
        _ => None,
    }
}

/// The `n` candidates spelled most like `input`, best first.
pub fn nearest(input: &str, candidates: &[Candidate<'_>], n: usize) -> Vec<usize> {
    scored(&normalize(input), candidates).into_iter().take(n).map(|(_, i)| i).collect()
}

/// How alike `input` is spelled to a candidate with this name and these aliases (0 to 1,
/// Jaro-Winkler over the normalised forms, the best of its terms).
pub fn similarity(input: &str, name: &str, aliases: &[String]) -> f64 {
    let norm = normalize(input);
    Candidate { name, aliases }
        .terms()
        .map(|t| strsim::jaro_winkler(&normalize(t), &norm))
        .fold(0.0, f64::max)
}

/// Whether a word of `term` (both normalised) starts with `input`: a whole word (or words), or
/// the start of one when the input is long enough to mean something.
fn starts_a_word(term: &str, input: &str) -> bool {
    term.match_indices(input).any(|(at, _)| {
        let at_word_start = at == 0 || term[..at].ends_with(' ');
        let end = at + input.len();
        let at_word_end = end == term.len() || term[end..].starts_with(' ');
        at_word_start && (at_word_end || input.chars().count() >= PARTIAL_WORD)
    })
}

/// Every candidate with its best similarity to `norm` over its name and aliases, best first,
/// ties by name.
fn scored(norm: &str, candidates: &[Candidate<'_>]) -> Vec<(f64, usize)> {
    let mut scored: Vec<(f64, usize)> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let best = c.terms().map(|t| strsim::jaro_winkler(&normalize(t), norm)).fold(0.0, f64::max);
            (best, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| candidates[a.1].name.cmp(candidates[b.1].name)));
    scored
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aliases(list: &[&str]) -> Vec<String> {
        list.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn ascii_is_normalised_as_any_text_is() {
        let slow = |s: &str| {
            s.to_lowercase()
                .split(|c: char| c.is_whitespace() || c == '-' || c == '_')
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        };
        for s in ["GPU  Out-of_Memory", " -_ lead", "trail _- ", "", "a\x0bb\tc\r\nd", "NCCL", "x--y"] {
            assert_eq!(normalize(s), slow(s), "{s:?}");
        }
        assert_eq!(normalize("ΣΊΣΥΦΟΣ Über-Größe"), slow("ΣΊΣΥΦΟΣ Über-Größe"));
    }

    #[test]
    fn every_way_of_typing_a_value_resolves_and_says_how() {
        let loader = aliases(&["dataloader", "data loader"]);
        let nccl = aliases(&["all-reduce"]);
        let candidates = [
            Candidate { name: "Training data loader", aliases: &loader },
            Candidate { name: "NCCL", aliases: &nccl },
            Candidate::named("Meta"),
            Candidate::named("Meta Platforms"),
            Candidate::named("Shanghai AI Laboratory"),
        ];
        for (input, want, how) in [
            ("nccl", "NCCL", How::Name),
            ("  NCCL ", "NCCL", How::Name),
            ("data_loader", "Training data loader", How::Alias),
            ("all reduce", "NCCL", How::Alias),
            ("train", "Training data loader", How::WordStart),
            ("laboratory", "Shanghai AI Laboratory", How::WordStart),
            ("ai", "Shanghai AI Laboratory", How::WordStart),
            ("nccll", "NCCL", How::NearSpelling),
            ("metaa", "Meta", How::NearSpelling),
            ("ncl", "NCCL", How::NearSpelling),
            ("dataloadr", "Training data loader", How::NearSpelling),
        ] {
            let found = resolve(input, &candidates).unwrap_or_else(|e| panic!("{input}: {e:?}"));
            assert_eq!((candidates[found.index].name, found.how), (want, how), "{input}");
        }
    }

    #[test]
    fn what_does_not_stand_out_is_ambiguous_or_unknown() {
        let candidates = [
            Candidate::named("Meta Platforms"),
            Candidate::named("Meta Research"),
            Candidate::named("OpenAI"),
        ];
        assert_eq!(resolve("meta", &candidates), Err(Miss::Ambiguous(vec![0, 1])));
        // One typo from two candidates alike is no standout.
        let two = [Candidate::named("Meta AI"), Candidate::named("Meta Al"), Candidate::named("Meta")];
        assert_eq!(resolve("meta a", &two).map(|m| m.index), Err(Miss::Ambiguous(vec![0, 1])));
        assert!(matches!(resolve("flux capacitor", &candidates), Err(Miss::Unknown(n)) if n.len() == 3));
        assert!(matches!(resolve("", &candidates), Err(Miss::Unknown(_))));
        assert!(!starts_a_word("openai", "ai"), "inside a word is not a word start");
        assert!(!starts_a_word("nvlink", "nv"), "two letters are too few to stand for a word");
    }

    #[test]
    fn one_typo_from_one_name_beats_names_that_share_its_start() {
        let candidates =
            [Candidate::named("Meta"), Candidate::named("Meta AI"), Candidate::named("Meta (FAIR)")];
        let found = resolve("metaa", &candidates).unwrap();
        assert_eq!((found.index, found.how), (0, How::NearSpelling));
        assert_eq!(typos_allowed(2), 0, "two letters are too few to guess at");
        assert!(resolve("mx", &[Candidate::named("MI")]).is_err());
    }

    #[test]
    fn exact_matches_are_exact_and_the_rest_are_not() {
        assert!(How::Name.is_exact() && How::Alias.is_exact());
        assert!(!How::WordStart.is_exact() && !How::NearSpelling.is_exact());
    }
}
