//! Facet values a postmortem leaves out, inferred from its text with the matcher that suggests
//! filters from a sentence ([`Matcher`]), so a team can search and filter its postmortems
//! before it has tagged any of them.
//!
//! Inference is deliberately cautious: only what the report says about the incident itself
//! (title, summary and symptoms, trigger, cause, detection) is read, not its lessons, action items
//! or timeline, which talk about other things; only whole names, aliases and signatures count
//! (no typo matching), at least [`MIN_SCORE`] strong; at most [`MAX_PER_KIND`] values per kind,
//! strongest first. Inferred values are marked as such on the case (`Facets::add_inferred`).

use crate::{
    corpus::{Case, FacetKind},
    taxonomy::{FacetValue, Taxonomy, matcher::Matcher},
};

/// At most this many values of one kind are inferred.
pub const MAX_PER_KIND: usize = 3;

/// The weakest match that counts: one exact word of a name or alias scores about 1.
pub const MIN_SCORE: f32 = 1.0;

/// Of each field, only its first this many bytes are read: the matcher keeps several words of
/// state per word of text, so a 50 MB field (a pasted log) cost nine times its size in memory,
/// while what a report is about is said at its start.
pub const FIELD_BYTES: usize = 64 * 1024;

/// The start of `field`, at most [`FIELD_BYTES`] long, cut at a character boundary.
fn start_of(field: &str) -> &str {
    let mut end = field.len().min(FIELD_BYTES);
    while !field.is_char_boundary(end) {
        end -= 1;
    }
    &field[..end]
}

/// Infers facet values from case text; built once per taxonomy, shared across threads.
#[derive(Debug)]
pub struct Inferrer {
    values: Vec<FacetValue>,
    matcher: Matcher,
}

impl Inferrer {
    /// An inferrer over `taxonomy`'s values.
    pub fn new(taxonomy: &Taxonomy) -> Inferrer {
        Inferrer { values: taxonomy.values().to_vec(), matcher: Matcher::new(taxonomy) }
    }

    /// The values of `kind` that `case`'s text points at, strongest first.
    pub fn infer(&self, case: &Case, kind: FacetKind) -> Vec<String> {
        let mut text = vec![start_of(&case.title), start_of(&case.body.symptoms)];
        text.extend(case.body.trigger.as_deref().map(start_of));
        text.extend(case.body.root_cause.as_deref().map(start_of));
        text.push(start_of(&case.body.detection));
        // A paragraph break between fields keeps a phrase from matching across two of them.
        let text = text.join("\n\n");
        // Every word counts as known, so none is read as a typo of a taxonomy word.
        self.matcher
            .find(&text, &|_| true)
            .into_iter()
            .filter(|f| f.score >= MIN_SCORE)
            .filter_map(|f| self.values.get(f.value))
            .filter(|v| v.kind == kind)
            .take(MAX_PER_KIND)
            .map(|v| v.name.clone())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Library, model::Provenance};

    #[test]
    fn a_huge_field_is_read_from_its_start_only() {
        let wide = "é".repeat(FIELD_BYTES);
        let cut = start_of(&wide);
        assert!(cut.len() <= FIELD_BYTES && cut.len() > FIELD_BYTES - 4);
        assert_eq!(start_of("short"), "short");
    }

    fn case(title: &str, symptoms: &str, detection: &str) -> Case {
        Case {
            id: "x".into(),
            title: title.into(),
            date: None,
            organization: "Us".into(),
            facets: Default::default(),
            provenance: Provenance { path: "x.md".into(), bundled: false },
            body: crate::corpus::CaseBody {
                symptoms: symptoms.into(),
                detection: detection.into(),
                lessons: Some("Next time we will look at the GPU dashboards sooner.".into()),
                ..Default::default()
            }
            .into(),
        }
    }

    #[test]
    fn strong_matches_in_the_incident_text_are_inferred() {
        let library = Library::bundled();
        let inferrer = Inferrer::new(&library.taxonomy);
        let c = case(
            "Data loader workers killed by bus errors",
            "Training crashed with \"DataLoader worker (pid 77) is killed by signal: Bus error\".",
            "The job failed at once.",
        );
        let components = inferrer.infer(&c, FacetKind::Component);
        assert!(components.contains(&"Training data loader".to_string()), "{components:?}");
        assert!(components.len() <= MAX_PER_KIND);
        // The lessons mention GPUs; lessons are not read.
        assert!(!components.contains(&"GPU".to_string()), "{components:?}");
    }

    #[test]
    fn typos_and_unrelated_text_infer_nothing() {
        let library = Library::bundled();
        let inferrer = Inferrer::new(&library.taxonomy);
        let c =
            case("The quarterly planning meeting ran long", "Nobody minded.", "Someone looked at the clock.");
        for kind in FacetKind::ALL {
            assert_eq!(inferrer.infer(&c, kind), Vec::<String>::new(), "{kind:?}");
        }
        let typo = case("Dataloadr workers", "", "");
        assert!(!inferrer.infer(&typo, FacetKind::Component).contains(&"Training data loader".to_string()));
    }
}
