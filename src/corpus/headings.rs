//! The words postmortems are written with: the headings that name each part incidex reads
//! ([`SECTIONS`]), the headings of a metadata block, and the labels of the facts a postmortem
//! states about itself (`Date:`, `Owner:`, `Incident ID:`, ...), gathered from the SRE-book
//! template and the templates most often copied from public collections.
//!
//! Everything is compared after [`normalize_heading`]: case, numbering, emphasis, a trailing
//! colon or parenthesis, `(s)`, `&`, `/` and hyphens do not matter. This module only names
//! things; finding them in a file is `corpus::markdown`'s job.

/// The parts of a postmortem incidex reads, in the order their text is joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Section {
    /// What happened, in short (part of the case's symptoms).
    Summary,
    /// What people saw (part of the case's symptoms).
    Symptoms,
    /// What it cost (part of the case's symptoms).
    Impact,
    /// What set it off.
    Trigger,
    /// Why it happened.
    RootCause,
    /// How it was noticed.
    Detection,
    /// What was done.
    Resolution,
    /// What should be done so it cannot recur.
    ActionItems,
    /// What went well, what went wrong, where we got lucky.
    Lessons,
    /// What happened when, kept as text.
    Timeline,
}

impl Section {
    /// How the section is named in messages and labels.
    pub fn label(self) -> &'static str {
        match self {
            Section::Summary => "Summary",
            Section::Symptoms => "Symptoms",
            Section::Impact => "Impact",
            Section::Trigger => "Trigger",
            Section::RootCause => "Root cause",
            Section::Detection => "Detection",
            Section::Resolution => "Resolution",
            Section::ActionItems => "Action items",
            Section::Lessons => "Lessons learned",
            Section::Timeline => "Timeline",
        }
    }
}

/// Section headings, normalised (see [`normalize_heading`]), and the section each names.
pub const SECTIONS: &[(&str, Section)] = &[
    ("summary", Section::Summary),
    ("incident summary", Section::Summary),
    ("executive summary", Section::Summary),
    ("issue summary", Section::Summary),
    ("summary of the incident", Section::Summary),
    ("overview", Section::Summary),
    ("incident overview", Section::Summary),
    ("description", Section::Summary),
    ("incident description", Section::Summary),
    ("what happened", Section::Summary),
    ("tl;dr", Section::Summary),
    ("tldr", Section::Summary),
    ("symptoms", Section::Symptoms),
    ("symptom", Section::Symptoms),
    ("what we saw", Section::Symptoms),
    ("observed behavior", Section::Symptoms),
    ("observed behaviour", Section::Symptoms),
    ("impact", Section::Impact),
    ("customer impact", Section::Impact),
    ("user impact", Section::Impact),
    ("customer / user impact", Section::Impact),
    ("user / customer impact", Section::Impact),
    ("customer and user impact", Section::Impact),
    ("business impact", Section::Impact),
    ("service impact", Section::Impact),
    ("impact assessment", Section::Impact),
    ("impact summary", Section::Impact),
    ("impact and scope", Section::Impact),
    ("scope and impact", Section::Impact),
    ("impact and severity", Section::Impact),
    ("severity and impact", Section::Impact),
    ("blast radius", Section::Impact),
    ("who was affected", Section::Impact),
    ("trigger", Section::Trigger),
    ("triggers", Section::Trigger),
    ("triggering event", Section::Trigger),
    ("root cause", Section::RootCause),
    ("root causes", Section::RootCause),
    ("cause", Section::RootCause),
    ("causes", Section::RootCause),
    ("root cause analysis", Section::RootCause),
    ("rca", Section::RootCause),
    ("primary cause", Section::RootCause),
    ("primary root cause", Section::RootCause),
    ("proximate cause", Section::RootCause),
    ("underlying cause", Section::RootCause),
    ("technical root cause", Section::RootCause),
    ("contributing factors", Section::RootCause),
    ("contributing factor", Section::RootCause),
    ("root causes and contributing factors", Section::RootCause),
    ("root cause and contributing factors", Section::RootCause),
    ("causes and contributing factors", Section::RootCause),
    ("five whys", Section::RootCause),
    ("5 whys", Section::RootCause),
    ("why it happened", Section::RootCause),
    ("detection", Section::Detection),
    ("how it was detected", Section::Detection),
    ("how was it detected", Section::Detection),
    ("how we found out", Section::Detection),
    ("how we noticed", Section::Detection),
    ("how it was discovered", Section::Detection),
    ("discovery", Section::Detection),
    ("detected by", Section::Detection),
    ("detection and alerting", Section::Detection),
    ("resolution", Section::Resolution),
    ("remediation", Section::Resolution),
    ("remediation steps", Section::Resolution),
    ("mitigation", Section::Resolution),
    ("mitigations", Section::Resolution),
    ("mitigation steps", Section::Resolution),
    ("mitigation and resolution", Section::Resolution),
    ("resolution and mitigation", Section::Resolution),
    ("mitigation and recovery", Section::Resolution),
    ("resolution and recovery", Section::Resolution),
    ("recovery", Section::Resolution),
    ("recovery steps", Section::Resolution),
    ("immediate actions", Section::Resolution),
    ("immediate response", Section::Resolution),
    ("immediate mitigation", Section::Resolution),
    ("workaround", Section::Resolution),
    ("workarounds", Section::Resolution),
    ("response", Section::Resolution),
    ("incident response", Section::Resolution),
    ("fix", Section::Resolution),
    ("the fix", Section::Resolution),
    ("how it was fixed", Section::Resolution),
    ("action items", Section::ActionItems),
    ("action item", Section::ActionItems),
    ("actions", Section::ActionItems),
    ("follow up", Section::ActionItems),
    ("follow ups", Section::ActionItems),
    ("followups", Section::ActionItems),
    ("follow up actions", Section::ActionItems),
    ("follow up items", Section::ActionItems),
    ("action items and follow ups", Section::ActionItems),
    ("next steps", Section::ActionItems),
    ("corrective actions", Section::ActionItems),
    ("corrective action items", Section::ActionItems),
    ("corrective measures", Section::ActionItems),
    ("preventive actions", Section::ActionItems),
    ("preventative actions", Section::ActionItems),
    ("preventive measures", Section::ActionItems),
    ("preventative measures", Section::ActionItems),
    ("corrective and preventive actions", Section::ActionItems),
    ("corrective and preventative actions", Section::ActionItems),
    ("remediation items", Section::ActionItems),
    ("repair items", Section::ActionItems),
    ("long term fixes", Section::ActionItems),
    ("action plan", Section::ActionItems),
    ("lessons learned", Section::Lessons),
    ("lessons learnt", Section::Lessons),
    ("lessons", Section::Lessons),
    ("learnings", Section::Lessons),
    ("takeaways", Section::Lessons),
    ("key takeaways", Section::Lessons),
    ("what we learned", Section::Lessons),
    ("what went well", Section::Lessons),
    ("what went right", Section::Lessons),
    ("what went wrong", Section::Lessons),
    ("what went poorly", Section::Lessons),
    ("what didn't go well", Section::Lessons),
    ("what did not go well", Section::Lessons),
    ("what could have gone better", Section::Lessons),
    ("where we got lucky", Section::Lessons),
    ("where we were lucky", Section::Lessons),
    ("what we got lucky", Section::Lessons),
    ("got lucky", Section::Lessons),
    ("things that went well", Section::Lessons),
    ("things that went wrong", Section::Lessons),
    ("timeline", Section::Timeline),
    ("timeline of events", Section::Timeline),
    ("incident timeline", Section::Timeline),
    ("detailed timeline", Section::Timeline),
    ("sequence of events", Section::Timeline),
    ("chronology", Section::Timeline),
];

/// Lessons headings that label a part of the lessons rather than start them.
pub const LESSON_PARTS: &[&str] = &[
    "what went well",
    "what went right",
    "what went wrong",
    "what went poorly",
    "what didn't go well",
    "what did not go well",
    "what could have gone better",
    "where we got lucky",
    "where we were lucky",
    "what we got lucky",
    "got lucky",
    "things that went well",
    "things that went wrong",
];

/// Headings of a block of facts about the report (a `## Metadata` list): its labelled lines
/// are read as facts, the rest is not part of the case.
const METADATA: &[&str] = &[
    "metadata",
    "incident metadata",
    "postmortem metadata",
    "document metadata",
    "details",
    "incident details",
    "incident information",
    "incident info",
    "key information",
    "key facts",
    "at a glance",
    "incident at a glance",
    "document control",
];

/// Facts a postmortem states about itself in `Label: value` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// When it happened.
    Date,
    /// Who ran the system.
    Organization,
    /// How long it lasted.
    Duration,
    /// Who owns the report and its follow-up.
    Owner,
    /// The team's own id for the incident (a ticket, `INC-2043`).
    IncidentId,
    /// Known, and not kept: authors, status, severity (every team has its own scale)...
    Ignored,
}

const META: &[(&str, Meta)] = &[
    ("date", Meta::Date),
    ("incident date", Meta::Date),
    ("date of incident", Meta::Date),
    ("date of the incident", Meta::Date),
    ("start date", Meta::Date),
    ("incident start", Meta::Date),
    ("started", Meta::Date),
    ("organization", Meta::Organization),
    ("organisation", Meta::Organization),
    ("org", Meta::Organization),
    ("team", Meta::Organization),
    ("owning team", Meta::Organization),
    ("company", Meta::Organization),
    ("duration", Meta::Duration),
    ("incident duration", Meta::Duration),
    ("outage duration", Meta::Duration),
    ("total duration", Meta::Duration),
    ("time to resolve", Meta::Duration),
    ("time to resolution", Meta::Duration),
    ("owner", Meta::Owner),
    ("owners", Meta::Owner),
    ("incident owner", Meta::Owner),
    ("postmortem owner", Meta::Owner),
    ("document owner", Meta::Owner),
    ("dri", Meta::Owner),
    ("incident id", Meta::IncidentId),
    ("incident", Meta::IncidentId),
    ("incident number", Meta::IncidentId),
    ("incident no.", Meta::IncidentId),
    ("incident #", Meta::IncidentId),
    ("incident ticket", Meta::IncidentId),
    ("ticket", Meta::IncidentId),
    ("ticket id", Meta::IncidentId),
    ("id", Meta::IncidentId),
    ("authors", Meta::Ignored),
    ("author", Meta::Ignored),
    ("status", Meta::Ignored),
    ("severity", Meta::Ignored),
    ("severity level", Meta::Ignored),
    ("sev", Meta::Ignored),
    ("priority", Meta::Ignored),
    ("reviewers", Meta::Ignored),
    ("participants", Meta::Ignored),
    ("responders", Meta::Ignored),
    ("incident commander", Meta::Ignored),
    ("prepared by", Meta::Ignored),
    ("written by", Meta::Ignored),
    ("last updated", Meta::Ignored),
];

/// A heading or label as it is compared: lowercase, without numbering (`2.`), emphasis marks,
/// a trailing colon or a trailing parenthesis (`Timeline (all times UTC)`); `(s)` plurals,
/// hyphens, `&` and `/` folded.
pub fn normalize_heading(heading: &str) -> String {
    let mut s = heading.trim().to_lowercase().replace("(s)", "s").replace('&', " and ").replace('/', " / ");
    s.retain(|c| !matches!(c, '*' | '_' | '`'));
    let s = s.trim_start_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | ')' | ' ' | '#'));
    let mut s = s.trim().trim_end_matches(':').trim().to_string();
    if s.ends_with(')')
        && let Some(open) = s.rfind('(')
        && open > 0
    {
        s.truncate(open);
    }
    s.split(|c: char| c.is_whitespace() || c == '-').filter(|w| !w.is_empty()).collect::<Vec<_>>().join(" ")
}

/// The section a heading names, if any.
pub fn section_for(heading: &str) -> Option<Section> {
    let norm = normalize_heading(heading);
    SECTIONS.iter().find(|(name, _)| *name == norm).map(|(_, s)| *s)
}

/// The fact a label names, if any.
pub fn meta_for(label: &str) -> Option<Meta> {
    let norm = normalize_heading(label);
    META.iter().find(|(name, _)| *name == norm).map(|(_, m)| *m)
}

/// Whether a heading starts a metadata block.
pub fn is_metadata_heading(heading: &str) -> bool {
    METADATA.contains(&normalize_heading(heading).as_str())
}

/// Whether a (normalised) Lessons heading labels a part of the lessons.
pub fn is_lesson_part(norm: &str) -> bool {
    LESSON_PARTS.contains(&norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_map_case_insensitively_with_synonyms() {
        for (heading, want) in [
            ("Summary", Some(Section::Summary)),
            ("## 1. Executive Summary:", Some(Section::Summary)),
            ("ROOT CAUSE(S)", Some(Section::RootCause)),
            ("Root-cause analysis", Some(Section::RootCause)),
            ("Primary Cause", Some(Section::RootCause)),
            ("Remediation", Some(Section::Resolution)),
            ("Mitigation", Some(Section::Resolution)),
            ("Resolution & Recovery", Some(Section::Resolution)),
            ("Follow-up actions", Some(Section::ActionItems)),
            ("Follow-ups", Some(Section::ActionItems)),
            ("Preventive Actions", Some(Section::ActionItems)),
            ("Customer / User Impact", Some(Section::Impact)),
            ("Customer/User impact", Some(Section::Impact)),
            ("**Lessons Learned**", Some(Section::Lessons)),
            ("Where we got lucky", Some(Section::Lessons)),
            ("What didn't go well", Some(Section::Lessons)),
            ("Timeline (all times UTC)", Some(Section::Timeline)),
            ("Impact & scope", Some(Section::Impact)),
            ("Supporting information", None),
            ("Metadata", None),
        ] {
            assert_eq!(section_for(heading), want, "{heading}");
        }
    }

    #[test]
    fn every_lesson_part_is_a_lessons_heading() {
        for part in LESSON_PARTS {
            assert_eq!(section_for(part), Some(Section::Lessons), "{part}");
        }
    }

    #[test]
    fn labels_name_facts() {
        for (label, want) in [
            ("Date", Some(Meta::Date)),
            ("**Date**", Some(Meta::Date)),
            ("Incident ID", Some(Meta::IncidentId)),
            ("Incident #", Some(Meta::IncidentId)),
            ("Owner", Some(Meta::Owner)),
            ("Severity", Some(Meta::Ignored)),
            ("Team", Some(Meta::Organization)),
            ("Services affected", None),
        ] {
            assert_eq!(meta_for(label), want, "{label}");
        }
        assert!(is_metadata_heading("## Incident Metadata"));
        assert!(!is_metadata_heading("Summary"));
    }
}
