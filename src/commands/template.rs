//! `incidex template`: print a Markdown postmortem to start from, with front matter holding
//! every field and a heading for every section incidex reads.

use std::io::Write;

use crate::{commands::stdout_error, support::error::Result};

/// The template: loads cleanly as it is, so a team can copy it, fill it in and `check` it.
pub const POSTMORTEM_TEMPLATE: &str = include_str!("postmortem_template.md");

/// Print the template.
pub fn run(out: &mut dyn Write) -> Result<()> {
    out.write_all(POSTMORTEM_TEMPLATE.as_bytes()).map_err(stdout_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        corpus::{
            markdown::{SECTIONS, Section, parse_postmortem},
            parse::FacetPolicy,
        },
        taxonomy::Taxonomy,
    };

    #[test]
    fn the_unedited_template_warns_for_each_placeholder() {
        let found = crate::corpus::placeholders::find("pm/template.md", POSTMORTEM_TEMPLATE);
        let said = |text: &str| found.iter().any(|d| d.message.contains(&format!("\"{text}\"")));
        for text in ["Example Team", "name", "TICKET-1", "TICKET-2", "TICKET-3", "TICKET-4"] {
            assert!(said(text), "{text}: {found:#?}");
        }
        // Every prompt under a heading is example text too.
        assert!(found.len() >= 20, "{found:#?}");
        assert!(found.iter().all(|d| d.severity == crate::support::diag::Severity::Warning));
    }

    #[test]
    fn the_template_loads_as_a_complete_case() {
        let (taxonomy, _) =
            Taxonomy::parse(crate::corpus::bundled::TAXONOMY_PATH, crate::corpus::bundled::TAXONOMY);
        let parsed = parse_postmortem(
            "pm/template.md",
            POSTMORTEM_TEMPLATE,
            &taxonomy,
            FacetPolicy::Lenient,
            None,
            None,
        );
        let errors: Vec<String> =
            parsed.diagnostics.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
        assert!(errors.is_empty(), "{errors:?}");
        let case = parsed.case.expect("the template is a postmortem");
        assert_eq!(case.date.map(|d| d.to_string()).as_deref(), Some("2025-01-15"));
        assert!(case.body.trigger.is_some() && case.body.root_cause.is_some() && case.body.lessons.is_some());
        assert!(case.body.timeline.is_some() && case.body.impact.is_none());
        assert_eq!(case.body.action_items.len(), 4);
        assert_eq!(case.body.remediation.len(), 2);
    }

    #[test]
    fn the_template_has_a_heading_for_every_section() {
        let headings: Vec<&str> = POSTMORTEM_TEMPLATE.lines().filter_map(|l| l.strip_prefix("## ")).collect();
        for (_, section) in SECTIONS {
            let named = headings.iter().any(|h| crate::corpus::markdown::section_for(h) == Some(*section));
            assert!(named || *section == Section::Symptoms, "{section:?}");
        }
    }
}
