//! The long text of a case ([`CaseBody`]) and its parts: action items, sources and impact.
//! Plain data, serialised with the data files' own field names; loading it lazily is `body`'s job.

use std::str::FromStr;

use serde::Serialize;

use super::date::PartialDate;

/// What an action item does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionType {
    /// Notice it sooner.
    Detect,
    /// Limit the damage when it happens.
    Mitigate,
    /// Stop it from happening.
    Prevent,
    /// Change how people work.
    Process,
}

impl ActionType {
    /// Every type, in checklist order.
    pub const ALL: [ActionType; 4] =
        [ActionType::Detect, ActionType::Mitigate, ActionType::Prevent, ActionType::Process];

    /// The data-file spelling.
    pub fn key(self) -> &'static str {
        match self {
            ActionType::Detect => "detect",
            ActionType::Mitigate => "mitigate",
            ActionType::Prevent => "prevent",
            ActionType::Process => "process",
        }
    }
}

impl FromStr for ActionType {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        ActionType::ALL.into_iter().find(|t| t.key() == s.trim().to_lowercase()).ok_or(())
    }
}

/// Where an action item comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemOrigin {
    /// The source report lists it.
    Report,
    /// Written by the library's editors from the report's fix.
    Editorial,
}

impl FromStr for ItemOrigin {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s.trim().to_lowercase().as_str() {
            "report" => Ok(ItemOrigin::Report),
            "editorial" => Ok(ItemOrigin::Editorial),
            _ => Err(()),
        }
    }
}

/// One thing that should be done so the incident cannot recur.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ActionItem {
    /// What to do.
    pub text: String,
    /// Detect, mitigate, prevent or process.
    #[serde(rename = "type")]
    pub kind: ActionType,
    /// From the report or editorial.
    pub origin: ItemOrigin,
    /// The components it applies to, when fewer than the case's; empty means all of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<String>,
}

/// What kind of document a source is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SourceKind {
    /// The operator's own postmortem.
    Postmortem,
    /// A paper.
    Paper,
    /// A GitHub issue or pull request.
    Issue,
    /// A blog post.
    Blog,
    /// A talk.
    Talk,
    /// A news article.
    News,
}

impl SourceKind {
    /// Every kind.
    pub const ALL: [SourceKind; 6] = [
        SourceKind::Postmortem,
        SourceKind::Paper,
        SourceKind::Issue,
        SourceKind::Blog,
        SourceKind::Talk,
        SourceKind::News,
    ];

    /// The data-file spelling.
    pub fn key(self) -> &'static str {
        match self {
            SourceKind::Postmortem => "postmortem",
            SourceKind::Paper => "paper",
            SourceKind::Issue => "issue",
            SourceKind::Blog => "blog",
            SourceKind::Talk => "talk",
            SourceKind::News => "news",
        }
    }
}

impl FromStr for SourceKind {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        SourceKind::ALL.into_iter().find(|k| k.key() == s.trim().to_lowercase()).ok_or(())
    }
}

/// A public document the case is written from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    /// The document's own title.
    pub title: String,
    /// Its address (http or https); empty only when `note` says why there is none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub url: String,
    /// What kind of document it is.
    pub kind: SourceKind,
    /// When it was published, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<PartialDate>,
    /// A remark on the source, such as why no public address could be found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// What the incident cost, as far as the source says.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Impact {
    /// How long it lasted, as written (`"3h"`, `"about two days"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// GPU hours lost.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_hours_lost: Option<f64>,
    /// Who was affected, as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub users_affected: Option<String>,
}

impl Impact {
    /// True when the source gave no figure at all.
    pub fn is_empty(&self) -> bool {
        self.duration.is_none() && self.gpu_hours_lost.is_none() && self.users_affected.is_none()
    }
}

/// The long text of a case.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CaseBody {
    /// How big the system was.
    pub scale: Option<String>,
    /// What people saw.
    pub symptoms: String,
    /// What set it off.
    pub trigger: Option<String>,
    /// Why it happened, in words: a postmortem's Root cause section (case files say it through
    /// `root_causes` and the other fields).
    pub root_cause: Option<String>,
    /// How it was noticed.
    pub detection: String,
    /// What was done.
    pub remediation: Vec<String>,
    /// What should be done so it cannot recur.
    pub action_items: Vec<ActionItem>,
    /// What others should take from it.
    pub lessons: Option<String>,
    /// The public documents it is written from.
    pub sources: Vec<Source>,
    /// What it cost.
    pub impact: Option<Impact>,
    /// A postmortem's timeline, kept as text.
    pub timeline: Option<String>,
    /// Who owns a postmortem and its follow-up (its `Owner:` line), as written.
    pub owner: Option<String>,
    /// A team's own id for the incident (its `Incident ID:` line: a ticket, `INC-2043`).
    pub incident_id: Option<String>,
}

impl CaseBody {
    /// The body shown in place of one that could not be read back from the cache.
    pub fn unreadable(why: &str) -> CaseBody {
        CaseBody {
            symptoms: format!(
                "The text of this case could not be read from the cache ({}). \
                 Start incidex again: the library will be read from its files.",
                crate::text::one_line(why)
            ),
            ..CaseBody::default()
        }
    }
}
