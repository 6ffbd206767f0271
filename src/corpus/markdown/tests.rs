//! Postmortems read as teams write them: front matter or none, the SRE book's labelled lines,
//! tables of action items, inferred facets, and every problem with its position.

use super::fields::{action_type, guess_action_type, split_type_prefix};

use crate::taxonomy::FacetKind;
use crate::{
    corpus::infer::Inferrer,
    corpus::{
        model::ActionType,
        parse::{FacetPolicy, Parsed},
    },
    support::diag::{Diagnostic, Severity},
    taxonomy::Taxonomy,
};

use super::*;

fn taxonomy() -> Taxonomy {
    let (t, d) = Taxonomy::parse(
        "taxonomy.toml",
        "[[component]]\nname = \"NCCL\"\ndescription = \"x\"\n[[symptom]]\nname = \"Hang\"\ndescription = \"x\"\n",
    );
    assert!(d.is_empty(), "{d:?}");
    t
}

fn parse(path: &str, text: &str) -> Parsed {
    parse_postmortem(path, text, &taxonomy(), FacetPolicy::Lenient, None, None)
}

fn messages(p: &Parsed) -> Vec<String> {
    p.diagnostics.iter().map(ToString::to_string).collect()
}

const SRE: &str = "# Search outage postmortem\n\nDate: 2015-10-21\nAuthors: a, b\nOrganization: Example\n\
Summary: Search was down for 66 minutes.\nImpact: 1.2B queries lost.\nRoot Causes: A file descriptor leak\n\
under load.\nTrigger: A traffic spike.\nResolution: Added capacity.\nDetection: Alerts paged on-call.\n\n\
## Action Items\n\n| Action Item | Type | Owner | Bug |\n|---|---|---|---|\n| Plug the leak | prevent | alice | Bug 1 |\n\
| Update the playbook | mitigate | bob | n/a |\n| Freeze releases | other | carol | - |\n\n\
## Lessons Learned\n\n### What went well\n\n- Paging worked.\n\n### Where we got lucky\n\n- Spare capacity.\n\n\
## Timeline\n\n2015-10-21 (all times UTC)\n\n- 14:51 Traffic spikes\n- 14:53 Pages fire\n";

#[test]
fn the_sre_book_layout_reads_whole() {
    let p = parse("pm/search-outage.md", SRE);
    let got = messages(&p);
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(got.iter().all(|m| m.starts_with("pm/search-outage.md:1:1: warning: no ")), "{got:?}");
    let case = p.case.unwrap();
    assert_eq!(case.id, "search-outage");
    assert_eq!(case.title, "Search outage postmortem");
    assert_eq!(case.date.unwrap().to_string(), "2015-10-21");
    assert_eq!(case.organization, "Example");
    assert_eq!(case.body.symptoms, "Search was down for 66 minutes.\n\nImpact: 1.2B queries lost.");
    assert_eq!(case.body.root_cause.as_deref(), Some("A file descriptor leak under load."));
    assert_eq!(case.body.trigger.as_deref(), Some("A traffic spike."));
    assert_eq!(case.body.remediation, ["Added capacity."]);
    assert_eq!(case.body.detection, "Alerts paged on-call.");
    let items: Vec<(&str, ActionType)> =
        case.body.action_items.iter().map(|i| (i.text.as_str(), i.kind)).collect();
    assert_eq!(
        items,
        [
            ("Plug the leak (owner: alice; tracking: Bug 1)", ActionType::Prevent),
            ("Update the playbook (owner: bob)", ActionType::Mitigate),
            ("Freeze releases (owner: carol)", ActionType::Process),
        ]
    );
    assert_eq!(
        case.body.lessons.as_deref(),
        Some("What went well:\n\n- Paging worked.\n\nWhere we got lucky:\n\n- Spare capacity.")
    );
    assert_eq!(
        case.body.timeline.as_deref(),
        Some("2015-10-21 (all times UTC)\n14:51 Traffic spikes\n14:53 Pages fire")
    );
}

#[test]
fn front_matter_gives_metadata_and_facets_with_file_positions() {
    let text = "+++\nid = \"2024-05-x\"\ntitle = \"Rings hung\"\ndate = 2024-05-02\norganization = \"Us\"\n\
components = [\"nccl\"]\nsymptom_tags = [\"Cosmic\"]\ncolour = 1\n+++\n\n## Summary\n\nHung.\n\n## Detection\n\nPager.\n\n\
## Remediation\n\n- Restarted.\n\n## Action items\n\n- [detect] Alert on stalls.\n";
    let p = parse("pm/whatever.md", text);
    let got = messages(&p);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(got[3].starts_with("pm/whatever.md:1:1: warning: no root cause value"), "{got:?}");
    assert!(
        got[0].starts_with("pm/whatever.md:6:15: warning: Component 'nccl' is spelled 'NCCL'"),
        "{got:?}"
    );
    assert!(
        got[1].starts_with("pm/whatever.md:7:17: warning: Symptom 'Cosmic' is not in the taxonomy"),
        "{got:?}"
    );
    assert!(got[2].starts_with("pm/whatever.md:8:1: error: unknown key `colour` in front matter"), "{got:?}");
    let case = p.case.unwrap();
    assert_eq!(case.id, "2024-05-x");
    assert_eq!(case.date.unwrap().to_string(), "2024-05-02");
    assert_eq!(case.facets.values(FacetKind::Component), ["NCCL"]);
    assert_eq!(case.facets.values(FacetKind::Symptom), ["Cosmic"]);
    assert_eq!(case.body.action_items[0].kind, ActionType::Detect);
    assert_eq!(case.body.action_items[0].text, "Alert on stalls.");
}

#[test]
fn every_missing_field_is_named_with_its_line() {
    let p = parse("pm/notes.md", "# Notes\n\nSome text.\n\n## Timeline\n\n- 10:00 it broke\n");
    let got = messages(&p);
    for want in [
        "pm/notes.md:1:1: warning: no date",
        "pm/notes.md:1:1: warning: no organization",
        "pm/notes.md:1:1: warning: no `## Detection` section",
        "pm/notes.md:1:1: warning: no `## Resolution` section",
        "pm/notes.md:1:1: warning: no `## Action items` section",
    ] {
        assert!(got.iter().any(|g| g.starts_with(want)), "want {want:?} in {got:?}");
    }
    // Gaps leave a case that can be shown: none of them is an error.
    assert!(!p.diagnostics.iter().any(Diagnostic::is_error), "{got:?}");
    let case = p.case.expect("a postmortem with gaps still loads");
    assert_eq!(case.date, None);
    assert_eq!(case.body.symptoms, "Some text.");
}

#[test]
fn empty_sections_and_bad_dates_point_at_their_lines() {
    let p = parse(
        "pm/x.md",
        "# X\n\n**Date:** sometime\n\nTeam: Ours\n\n## Summary\n\nA.\n\n## Detection\n\n## Resolution\n\n- B.\n\n## Action items\n\n- C.\n",
    );
    let got = messages(&p);
    assert!(
        got.iter().any(|g| g.starts_with("pm/x.md:3:3: warning: cannot read the date 'sometime'")),
        "{got:?}"
    );
    assert!(
        got.iter().any(|g| g.starts_with("pm/x.md:11:1: warning: the Detection section is empty")),
        "{got:?}"
    );
    assert_eq!(p.case.unwrap().organization, "Ours");
}

#[test]
fn facets_left_out_are_inferred_with_a_hint() {
    let (taxonomy, _) =
        Taxonomy::parse(crate::corpus::bundled::TAXONOMY_PATH, crate::corpus::bundled::TAXONOMY);
    let inferrer = Inferrer::new(&taxonomy);
    let text = "+++\norganization = \"Us\"\ncontributing_factors = []\n+++\n# Every rank hung in NCCL\n\n\
## Summary\n\nThe job hung with NCCL WARN Timeout on every rank.\n\n## Detection\n\nA watchdog.\n\n\
## Resolution\n\n- Restarted.\n\n## Action items\n\n- Alert on stalls.\n";
    let p =
        parse_postmortem("pm/2024-01-01-x.md", text, &taxonomy, FacetPolicy::Lenient, Some(&inferrer), None);
    let got = messages(&p);
    assert!(
        got.iter()
            .any(|m| m.starts_with("pm/2024-01-01-x.md:1:1: hint: Component inferred from the text: 'NCCL'")),
        "{got:?}"
    );
    let case = p.case.unwrap();
    assert!(case.facets.is_inferred(FacetKind::Component, "NCCL"));
    assert!(case.facets.is_inferred(FacetKind::Symptom, "Hang"), "{:?}", case.facets);
    // `contributing_factors = []` says there is none: nothing is inferred for it.
    assert!(case.facets.values(FacetKind::ContributingFactor).is_empty());
}

#[test]
fn a_readme_is_not_a_postmortem() {
    let p = parse("pm/README.md", "# Our postmortems\n\nOne file per incident.\n");
    assert!(p.case.is_none());
    assert_eq!(p.diagnostics.len(), 1);
    assert_eq!(p.diagnostics[0].severity, Severity::Hint);
}

#[test]
fn front_matter_must_be_closed_and_yaml_is_named() {
    let p = parse("pm/x.md", "+++\ntitle = \"x\"\n\n## Summary\n\nA.\n");
    assert!(p.case.is_none());
    assert!(messages(&p)[0].starts_with("pm/x.md:1:1: error: front matter opened"));
    let p = parse("pm/2024-01-02-y.md", "---\ntitle: y\n---\n# Y\n\n## Summary\n\nA.\n");
    assert!(messages(&p)[0].contains("YAML front matter"), "{:?}", messages(&p));
    assert_eq!(p.case.unwrap().date.unwrap().to_string(), "2024-01-02");
}

#[test]
fn loose_dates() {
    for (input, want) in [
        ("2015-10-21", Some("2015-10-21")),
        ("2015-10-21 (all times UTC)", Some("2015-10-21")),
        ("2015/10/21", Some("2015-10-21")),
        ("2015-10", Some("2015-10")),
        ("2015", Some("2015")),
        ("October 21, 2015", Some("2015-10-21")),
        ("21st Oct 2015", Some("2015-10-21")),
        ("Mar 2024", Some("2024-03")),
        ("2015-13-01", None),
        ("soon", None),
        ("15-10-21", None),
    ] {
        assert_eq!(parse_loose_date(input).map(|d| d.to_string()).as_deref(), want, "{input}");
    }
}

#[test]
fn ids_and_dates_from_file_names() {
    assert_eq!(id_from_file_name("a/Shakespeare Outage (2015).md"), "shakespeare-outage-2015");
    assert_eq!(id_from_file_name("a/__.md"), "");
    assert_eq!(date_from_file_name("2024-03-02-x").map(|d| d.to_string()).as_deref(), Some("2024-03-02"));
    assert_eq!(date_from_file_name("2024-03-x").map(|d| d.to_string()).as_deref(), Some("2024-03"));
    assert_eq!(date_from_file_name("20240302-x"), None);
    assert_eq!(date_from_file_name("x-2024"), None);
}

#[test]
fn action_item_prefixes_and_guesses() {
    for (item, want_kind, want_text) in [
        ("[prevent] Add load shedding", ActionType::Prevent, "Add load shedding"),
        ("Mitigate: Add a circuit breaker", ActionType::Mitigate, "Add a circuit breaker"),
        ("Add an alert on stalled steps", ActionType::Detect, "Add an alert on stalled steps"),
        ("Update the runbook", ActionType::Process, "Update the runbook"),
        ("Pin the driver version", ActionType::Prevent, "Pin the driver version"),
        ("Note: this one has a colon", ActionType::Prevent, "Note: this one has a colon"),
    ] {
        let (kind, text) = split_type_prefix(item);
        let kind = kind.and_then(action_type).unwrap_or_else(|| guess_action_type(text));
        assert_eq!((kind, text), (want_kind, want_text), "{item}");
    }
}

#[test]
fn hostile_text_is_sanitized_and_reported() {
    let p = parse("pm/2024-x.md", "# T\u{1b}]0;x\u{7}\n\nOrg: A\n\n## Summary\n\nA &#27;[2J b.\n");
    assert!(messages(&p).iter().any(|m| m.contains("control or bidi")));
    let case = p.case.unwrap();
    assert!(!case.title.chars().any(crate::text::is_unsafe_char));
    assert!(!case.body.symptoms.chars().any(crate::text::is_unsafe_char), "{:?}", case.body.symptoms);
}
