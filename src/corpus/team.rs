//! A team's defaults for its own postmortems: an `incidex.toml` in a data directory says once
//! what every postmortem below it would otherwise have to repeat.
//!
//! ```toml
//! organization = "Vision Training Platform"   # for postmortems that name none
//! components = ["Training data loader"]       # default tags: added to every postmortem
//! ```
//!
//! The keys are those of postmortem front matter: `organization`, and the facet lists
//! `root_causes`, `components`, `symptom_tags`, `contributing_factors`, whose values are added
//! to every postmortem's own (as written values, not inferred ones). A postmortem's own
//! organization (front matter or an `Organization:` line) wins over the team's. The nearest
//! `incidex.toml` above a postmortem applies (one in a subdirectory overrides its parent's).
//! Case files (`*.toml` cases) are complete by themselves and take nothing from it. Parsing
//! only: finding the files is `corpus::load`'s job.

use std::path::Path;

use crate::taxonomy::FacetKind;
use crate::{
    corpus::{
        model::Facets,
        parse::{FacetPolicy, read_facets},
    },
    support::diag::Diagnostic,
    support::toml_fields::{Ctx, Fields},
    taxonomy::Taxonomy,
};

/// The file name of a directory's team defaults.
pub const TEAM_FILE: &str = "incidex.toml";

/// The keys a team file may have.
const TEAM_KEYS: &str = "organization, root_causes, components, symptom_tags, contributing_factors";

/// What a team's `incidex.toml` says for every postmortem below it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TeamDefaults {
    /// The organization of postmortems that name none.
    pub organization: Option<String>,
    /// Facet values added to every postmortem (the team's default tags).
    pub facets: Facets,
}

/// Whether `path` is a team file.
pub fn is_team_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == TEAM_FILE)
}

/// Read the team file `text` (shown as `path`); its values are checked against `taxonomy`.
/// Problems are reported with their line and column; a file that is not TOML gives no defaults.
pub fn parse_team(path: &str, text: &str, taxonomy: &Taxonomy) -> (Option<TeamDefaults>, Vec<Diagnostic>) {
    let mut ctx = Ctx::new(path, text);
    let team = ctx.parse_document(text).map(|doc| {
        let mut fields = Fields::new(doc.get_ref(), doc.span(), "incidex.toml");
        let organization = fields
            .str(&mut ctx, "organization")
            .map(|o| crate::text::one_line(&o.value))
            .filter(|o| !o.is_empty());
        let facets = read_facets(&mut ctx, &mut fields, taxonomy, FacetPolicy::Lenient, false);
        let before = ctx.diagnostics.len();
        fields.finish(&mut ctx);
        if let Some(first) =
            ctx.diagnostics[before..].iter_mut().find(|d| d.message.starts_with("unknown key"))
        {
            first.message.push_str(&format!("; incidex.toml has: {TEAM_KEYS}"));
        }
        TeamDefaults { organization, facets }
    });
    (team, ctx.diagnostics)
}

impl TeamDefaults {
    /// Add the team's facet values to `facets`, after the postmortem's own.
    pub fn tag(&self, facets: &mut Facets) {
        for kind in FacetKind::ALL {
            for value in self.facets.values(kind) {
                if !facets.contains(kind, value) {
                    facets.push(kind, value.clone());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taxonomy() -> Taxonomy {
        Taxonomy::parse(crate::corpus::bundled::TAXONOMY_PATH, crate::corpus::bundled::TAXONOMY).0
    }

    #[test]
    fn a_team_file_gives_an_organization_and_default_tags() {
        let (team, diags) = parse_team(
            "pm/incidex.toml",
            "organization = \"Serving\"\ncomponents = [\"inference engine\"]\n",
            &taxonomy(),
        );
        assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
        let team = team.expect("defaults");
        assert_eq!(team.organization.as_deref(), Some("Serving"));
        let mut facets = Facets::default();
        facets.push(FacetKind::Component, "NCCL".into());
        team.tag(&mut facets);
        assert_eq!(facets.values(FacetKind::Component), ["NCCL", "Inference engine"]);
    }

    #[test]
    fn unknown_keys_and_bad_toml_are_reported_with_their_line() {
        let (team, diags) =
            parse_team("pm/incidex.toml", "organization = \"A\"\nteam = \"B\"\n", &taxonomy());
        assert!(team.is_some());
        let messages: Vec<String> = diags.iter().map(ToString::to_string).collect();
        assert!(messages[0].starts_with("pm/incidex.toml:2:1: error: unknown key `team`"), "{messages:?}");
        assert!(messages[0].contains("incidex.toml has: organization"), "{messages:?}");
        let (team, diags) = parse_team("pm/incidex.toml", "organization = \n", &taxonomy());
        assert!(team.is_none());
        assert!(diags[0].to_string().contains("TOML syntax"), "{diags:?}");
    }
}
