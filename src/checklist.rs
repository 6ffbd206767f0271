//! The checklist for a component: the action items past incidents taught, as a GitHub
//! task list to paste into an incident ticket or a launch review.
//!
//! [`build`] gathers, from every case that involves the component and meets the further
//! filters, the action items that apply to it (an item tagged for other components only is
//! left out); merges near-duplicates — the same advice phrased alike in several cases — keeping
//! every case each came from; and groups them by type (detect, mitigate, prevent, process).
//! [`to_markdown`] renders it: a header (component, filters, library version, date, number of
//! cases), then one `- [ ] ...` line per item, each followed by the cases it came from (id and
//! title) and their source links. Every piece of case text goes through
//! [`crate::text::markdown`], so nothing in a case can break the list, open a link or inject HTML;
//! the only links are the cases' own http(s) sources.
//!
//! Pure: data in, a value or a `String` out. The date and library version are given, not
//! looked up, so output is reproducible.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::taxonomy::FacetKind;
use crate::{
    corpus::filter::{FacetFilter, Filters},
    corpus::{
        Case,
        model::{ActionType, ItemOrigin},
    },
    text::markdown::{escape_inline, escape_link_text, safe_url},
};

/// What to build a checklist for.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// The component (its canonical name).
    pub component: &'a str,
    /// Further conditions every case must meet (a condition on the component itself is
    /// redundant and left out of the header).
    pub filters: &'a Filters,
    /// The program and library version to name in the header.
    pub version: &'a str,
    /// The date to name in the header (`YYYY-MM-DD`).
    pub date: &'a str,
}

/// A source of a case, as the checklist links it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceLink {
    /// The document's title.
    pub title: String,
    /// Its address, when it is a plain http(s) address that can be linked safely.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// A case under the checklist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CaseEntry {
    /// The case id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Its sources.
    pub sources: Vec<SourceLink>,
}

/// One case an item came from, and whether the item was in its report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ItemSource {
    /// The case id (one of [`Checklist::cases`]).
    pub id: String,
    /// Report or editorial, in that case.
    pub origin: ItemOrigin,
}

/// One piece of advice, possibly merged from several cases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Item {
    /// What to do, as the first case to give it phrased it (the first report, if any is one).
    pub text: String,
    /// `report` when at least one report lists it, else `editorial`.
    pub origin: ItemOrigin,
    /// Every case it came from, in library order.
    pub cases: Vec<ItemSource>,
}

/// The items of one type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Group {
    /// Detect, mitigate, prevent or process.
    #[serde(rename = "type")]
    pub kind: ActionType,
    /// Most-taught first (by number of cases), then report before editorial, then first seen.
    pub items: Vec<Item>,
}

/// A checklist, ready to render.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Checklist {
    /// The component.
    pub component: String,
    /// The further filters in the inline syntax; empty when there are none.
    pub filters: String,
    /// The program and library version.
    pub version: String,
    /// The date.
    pub date: String,
    /// Every case under the component and filters, in library order.
    pub cases: Vec<CaseEntry>,
    /// The number of items over all groups.
    pub item_count: usize,
    /// Non-empty groups, in the order detect, mitigate, prevent, process.
    pub groups: Vec<Group>,
}

/// Words that carry no advice of their own; left out when comparing items.
const STOPWORDS: &[&str] = &[
    "a", "an", "the", "of", "to", "and", "or", "in", "on", "for", "with", "at", "by", "from", "into", "as",
    "is", "are", "be", "it", "its", "this", "that", "every", "each", "all", "any", "so", "which", "their",
    "them", "they", "then", "there", "these", "those", "via", "per",
];

/// A word without the commonest English endings (`-ing`, `-ed`, a plural `-s`), so that
/// "affecting" and "affect", "checkpoints" and "checkpoint" compare equal. Crude on purpose:
/// both sides are cut the same way, and only likeness is asked of it.
fn stem(word: &str) -> &str {
    let n = word.len();
    if n > 5 && word.ends_with("ing") {
        &word[..n - 3]
    } else if n > 4 && word.ends_with("ed") {
        &word[..n - 2]
    } else if n > 3 && word.ends_with('s') && !word.ends_with("ss") {
        &word[..n - 1]
    } else {
        word
    }
}

/// The words of an item that carry its meaning: lower case, `n't` spelled `not`, punctuation
/// dropped, stopwords dropped, stemmed.
fn signature(text: &str) -> BTreeSet<String> {
    text.to_lowercase()
        .replace("n't", " not")
        .replace("n\u{2019}t", " not")
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(w))
        .map(|w| stem(w).to_string())
        .collect()
}

/// Whether a signature says "don't": `not`, `no` or `never`.
fn negated(sig: &BTreeSet<String>) -> bool {
    ["not", "no", "never"].iter().any(|w| sig.contains(*w))
}

/// How alike two items are: the Dice coefficient of their signatures (1 = the same words),
/// and 0 when one says "don't" and the other does not.
fn similarity(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    if negated(a) != negated(b) {
        return 0.0;
    }
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    2.0 * a.intersection(b).count() as f64 / (a.len() + b.len()) as f64
}

/// Items at least this alike are the same advice. Chosen so that a reworded sentence or an
/// added qualifier merges ("Raise the NCCL watchdog timeout" / "... for large jobs") while
/// opposite advice does not ("Raise ..." / "Lower the watchdog timeout"). On the bundled
/// library (510 items) the one pair of true duplicates scores 0.89 and the nearest pair of
/// different items 0.78.
pub const MERGE_THRESHOLD: f64 = 0.8;

/// Gather, merge and group the action items for `request` from `cases` (library order).
pub fn build(cases: &[Case], request: &Request) -> Checklist {
    let component = request.component;
    let own = FacetFilter { kind: FacetKind::Component, value: component.to_string(), negated: false };
    let mut shown_filters = request.filters.clone();
    shown_filters.facets.retain(|f| *f != own);

    let under: Vec<&Case> = cases
        .iter()
        .filter(|c| c.facets.contains(FacetKind::Component, component) && request.filters.matches(c))
        .collect();

    // Greedy, in library order: each item joins the first group of its type whose first item
    // it is alike, so the result does not depend on anything but the order of the library.
    let mut merged: Vec<(ActionType, BTreeSet<String>, Item, usize)> = Vec::new();
    // Where an item with a given signature went: the same words always land in the same group
    // (groups are only appended, so the first match never changes), and a large library with
    // much repeated advice is not compared item by item.
    let mut seen: HashMap<(ActionType, BTreeSet<String>), usize> = HashMap::new();
    for case in &under {
        for item in case.action_items_for(component) {
            let sig = signature(&item.text);
            let source = ItemSource { id: case.id.clone(), origin: item.origin };
            let found = match seen.get(&(item.kind, sig.clone())) {
                Some(&i) => Some(i),
                None => merged
                    .iter()
                    .position(|(kind, s, _, _)| *kind == item.kind && similarity(s, &sig) >= MERGE_THRESHOLD),
            };
            seen.entry((item.kind, sig.clone())).or_insert_with(|| found.unwrap_or(merged.len()));
            match found.and_then(|i| merged.get_mut(i)) {
                Some((_, _, existing, _)) => {
                    if item.origin == ItemOrigin::Report && existing.origin == ItemOrigin::Editorial {
                        // The report's own words say it best.
                        existing.origin = ItemOrigin::Report;
                        existing.text = crate::text::one_line(&item.text);
                    }
                    // A case's items come one after another, so a repeat is the last entry.
                    match existing.cases.last_mut().filter(|s| s.id == case.id) {
                        // A case saying it twice counts once, as from the report if either is.
                        Some(s) => s.origin = s.origin.min(item.origin),
                        None => existing.cases.push(source),
                    }
                }
                None => {
                    let order = merged.len();
                    let text = crate::text::one_line(&item.text);
                    merged.push((
                        item.kind,
                        sig,
                        Item { text, origin: item.origin, cases: vec![source] },
                        order,
                    ));
                }
            }
        }
    }

    let groups: Vec<Group> = ActionType::ALL
        .into_iter()
        .filter_map(|kind| {
            let mut items: Vec<(usize, Item)> = merged
                .iter()
                .filter(|(k, ..)| *k == kind)
                .map(|(_, _, item, order)| (*order, item.clone()))
                .collect();
            items.sort_by(|(oa, a), (ob, b)| {
                b.cases.len().cmp(&a.cases.len()).then(a.origin.cmp(&b.origin)).then(oa.cmp(ob))
            });
            (!items.is_empty()).then(|| Group { kind, items: items.into_iter().map(|(_, i)| i).collect() })
        })
        .collect();

    Checklist {
        component: component.to_string(),
        filters: shown_filters.to_query_string(),
        version: request.version.to_string(),
        date: request.date.to_string(),
        cases: under
            .iter()
            .map(|c| CaseEntry {
                id: c.id.clone(),
                title: c.title.clone(),
                sources: c
                    .body
                    .sources
                    .iter()
                    .map(|s| SourceLink { title: s.title.clone(), url: safe_url(&s.url) })
                    .collect(),
            })
            .collect(),
        item_count: groups.iter().map(|g| g.items.len()).sum(),
        groups,
    }
}

/// The file name an export suggests: `incidex-checklist-<component>-<date>.md`, the component
/// as a lowercase slug (`Training data loader` -> `training-data-loader`).
pub fn default_file_name(component: &str, date: &str) -> String {
    let mut slug = String::new();
    for c in component.to_lowercase().chars() {
        if c.is_alphanumeric() {
            slug.push(c);
        } else if !slug.ends_with('-') && !slug.is_empty() {
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "component" } else { slug };
    format!("incidex-checklist-{slug}-{date}.md")
}

/// The heading of a group.
fn heading(kind: ActionType) -> &'static str {
    match kind {
        ActionType::Detect => "Detect",
        ActionType::Mitigate => "Mitigate",
        ActionType::Prevent => "Prevent",
        ActionType::Process => "Process",
    }
}

/// A case id as Markdown: a code span when it is a plain slug (bundled ids always are), else
/// escaped text.
fn case_id(id: &str) -> String {
    if crate::corpus::parse::is_slug(id) { format!("`{id}`") } else { escape_inline(id) }
}

/// The checklist as GitHub-flavoured Markdown (see the module docs for the shape).
pub fn to_markdown(list: &Checklist) -> String {
    let mut s = format!("# Checklist: {}\n\n", escape_inline(&list.component));
    // The header is one paragraph with hard line breaks, so the only list in the file is the
    // task list.
    let filters = if list.filters.is_empty() { "none".to_string() } else { escape_inline(&list.filters) };
    let header = [
        format!("Component: {}", escape_inline(&list.component)),
        format!("Filters: {filters}"),
        format!("Version: {}", escape_inline(&list.version)),
        format!("Date: {}", escape_inline(&list.date)),
        format!("Cases: {}", list.cases.len()),
    ];
    s.push_str(&header.join("\\\n"));
    s.push_str("\n\n");
    if list.groups.is_empty() {
        s.push_str("No action items apply to this component in these cases.\n");
        return s;
    }
    s.push_str(
        "Each item is something a past incident taught. Items marked *editorial* were written by \
         the library's editors from a report's fix; the others are listed in the reports themselves.\n",
    );
    // Each case's reference is escaped once, however many items it backs.
    let refs: HashMap<&str, (String, String)> =
        list.cases.iter().map(|c| (c.id.as_str(), case_ref(c))).collect();
    for group in &list.groups {
        s.push_str(&format!("\n## {}\n\n", heading(group.kind)));
        for item in &group.items {
            let mark = if item.origin == ItemOrigin::Editorial { " *(editorial)*" } else { "" };
            s.push_str(&format!("- [ ] {}{mark}", escape_inline(&item.text)));
            let mixed = item.origin == ItemOrigin::Report
                && item.cases.iter().any(|c| c.origin == ItemOrigin::Editorial);
            for source in &item.cases {
                let Some((head, links)) = refs.get(source.id.as_str()) else { continue };
                // A backslash at the end of a line is a hard break that keeps the case inside
                // the item; the indent keeps it out of column 0.
                s.push_str("\\\n  ");
                s.push_str(head);
                if mixed && source.origin == ItemOrigin::Editorial {
                    s.push_str(" *(editorial in this case)*");
                }
                s.push_str(links);
            }
            s.push('\n');
        }
    }
    s
}

/// A case as an item shows it: its id and title, and separately ` — ` and its source links.
fn case_ref(case: &CaseEntry) -> (String, String) {
    let head = format!("{} {}", case_id(&case.id), escape_inline(&case.title));
    let links: Vec<String> = case
        .sources
        .iter()
        .map(|src| match &src.url {
            Some(url) => format!("[{}]({url})", escape_link_text(&src.title)),
            None => escape_inline(&src.title),
        })
        .collect();
    let links = if links.is_empty() { String::new() } else { format!(" — {}", links.join(" · ")) };
    (head, links)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::model::{ActionItem, Source, SourceKind, test_case as case};

    fn item(text: &str, kind: ActionType, origin: ItemOrigin, components: &[&str]) -> ActionItem {
        ActionItem {
            text: text.into(),
            kind,
            origin,
            components: components.iter().map(|c| c.to_string()).collect(),
        }
    }

    fn with_items(id: &str, components: &[&str], items: Vec<ActionItem>) -> Case {
        let values: Vec<(FacetKind, &str)> = components.iter().map(|c| (FacetKind::Component, *c)).collect();
        let mut c = case(id, &values);
        c.body.action_items = items;
        c.body.sources = vec![Source {
            title: format!("Report on {id}"),
            url: format!("https://example.org/{id}"),
            kind: SourceKind::Issue,
            published: None,
            note: None,
        }];
        c
    }

    fn request<'a>(component: &'a str, filters: &'a Filters) -> Request<'a> {
        Request { component, filters, version: "test library", date: "2025-01-02" }
    }

    use ActionType::{Detect, Mitigate, Prevent, Process};
    use ItemOrigin::{Editorial, Report};

    #[test]
    fn alike_items_merge_and_different_ones_do_not() {
        for (a, b, alike) in [
            (
                "Set /dev/shm explicitly in every training container spec.",
                "set /dev/shm explicitly in training container specs",
                true,
            ),
            ("Raise the NCCL watchdog timeout.", "Raise the NCCL watchdog timeout for large jobs.", true),
            ("Raise the watchdog timeout.", "Lower the watchdog timeout.", false),
            ("Alert on a throughput floor.", "Checkpoint every 500 steps.", false),
            ("Do retry the launch.", "Do not retry the launch.", false),
            ("Don't retry the launch.", "Do not retry the launch", true),
            // From the library: the same advice in two cases, and a broader item beside it.
            (
                "Roll out intelligence-affecting changes gradually, with soak periods.",
                "Roll out changes that can affect model intelligence gradually, with soak periods.",
                true,
            ),
            (
                "Roll out intelligence-affecting changes gradually, with soak periods.",
                "Treat changes to intelligence-affecting defaults like model changes: evaluate them per \
                 model and roll them out gradually with soak periods.",
                false,
            ),
        ] {
            let s = similarity(&signature(a), &signature(b));
            assert_eq!(s >= MERGE_THRESHOLD, alike, "{a} / {b}: {s}");
        }
    }

    #[test]
    fn gathers_filters_merges_and_groups() {
        let cases = vec![
            with_items(
                "new",
                &["NCCL", "Checkpointing"],
                vec![
                    item("Alert when throughput drops to zero.", Detect, Report, &[]),
                    item("Save checkpoints every 500 steps.", Mitigate, Report, &["Checkpointing"]),
                    item("Raise the NCCL watchdog timeout.", Mitigate, Editorial, &["NCCL"]),
                ],
            ),
            with_items(
                "old",
                &["NCCL"],
                vec![
                    item("Alert when the throughput drops to zero!", Detect, Editorial, &[]),
                    item("Run an NCCL all-reduce test before launch.", Prevent, Editorial, &[]),
                    item("Write a runbook for hangs.", Process, Report, &[]),
                ],
            ),
            with_items("elsewhere", &["DNS"], vec![item("Cache DNS answers.", Prevent, Report, &[])]),
        ];
        let filters = Filters::default();
        let list = build(&cases, &request("NCCL", &filters));
        assert_eq!(list.cases.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["new", "old"]);
        type Shape<'a> = Vec<(ActionType, Vec<(&'a str, ItemOrigin, Vec<&'a str>)>)>;
        let shape: Shape = list
            .groups
            .iter()
            .map(|g| {
                (
                    g.kind,
                    g.items
                        .iter()
                        .map(|i| (i.text.as_str(), i.origin, i.cases.iter().map(|c| c.id.as_str()).collect()))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(
            shape,
            [
                (Detect, vec![("Alert when throughput drops to zero.", Report, vec!["new", "old"])]),
                (Mitigate, vec![("Raise the NCCL watchdog timeout.", Editorial, vec!["new"])]),
                (Prevent, vec![("Run an NCCL all-reduce test before launch.", Editorial, vec!["old"])]),
                (Process, vec![("Write a runbook for hangs.", Report, vec!["old"])]),
            ],
            "the Checkpointing-only item is left out; the DNS case is not under NCCL"
        );
        assert_eq!(list.item_count, 4);
        assert_eq!(list.groups[0].items[0].cases[1].origin, Editorial, "each case keeps its own origin");
    }

    #[test]
    fn items_taught_by_more_cases_come_first_then_report_items() {
        let cases = vec![
            with_items(
                "a",
                &["GPU"],
                vec![
                    item("Editorial one.", Detect, Editorial, &[]),
                    item("Report one.", Detect, Report, &[]),
                ],
            ),
            with_items("b", &["GPU"], vec![item("Shared advice here.", Detect, Editorial, &[])]),
            with_items("c", &["GPU"], vec![item("Shared advice here.", Detect, Editorial, &[])]),
        ];
        let filters = Filters::default();
        let list = build(&cases, &request("GPU", &filters));
        let texts: Vec<&str> = list.groups[0].items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["Shared advice here.", "Report one.", "Editorial one."]);
    }

    #[test]
    fn further_filters_narrow_and_show_in_the_header() {
        let mut a = with_items("a", &["GPU"], vec![item("A.", Detect, Report, &[])]);
        a.facets.set(FacetKind::Symptom, vec!["Hang".into()]);
        let b = with_items("b", &["GPU"], vec![item("B.", Detect, Report, &[])]);
        let mut filters = Filters::default();
        filters.set_facet(FacetFilter { kind: FacetKind::Symptom, value: "Hang".into(), negated: false });
        filters.set_facet(FacetFilter { kind: FacetKind::Component, value: "GPU".into(), negated: false });
        let list = build(&[a, b], &request("GPU", &filters));
        assert_eq!(list.cases.len(), 1);
        assert_eq!(list.filters, "symptom:Hang", "the component itself is not repeated as a filter");
    }

    #[test]
    fn markdown_shape() {
        let cases = vec![with_items(
            "a",
            &["GPU"],
            vec![
                item("Check ECC counters daily.", Detect, Report, &[]),
                item("Drain bad nodes.", Mitigate, Editorial, &[]),
            ],
        )];
        let filters = Filters::default();
        let md = to_markdown(&build(&cases, &request("GPU", &filters)));
        assert_eq!(
            md,
            "# Checklist: GPU\n\n\
             Component: GPU\\\nFilters: none\\\nVersion: test library\\\nDate: 2025-01-02\\\nCases: 1\n\n\
             Each item is something a past incident taught. Items marked *editorial* were written by the \
             library's editors from a report's fix; the others are listed in the reports themselves.\n\
             \n## Detect\n\n\
             - [ ] Check ECC counters daily.\\\n  `a` Title of a — [Report on a](https://example.org/a)\n\
             \n## Mitigate\n\n\
             - [ ] Drain bad nodes. *(editorial)*\\\n  `a` Title of a — [Report on a](https://example.org/a)\n"
        );
    }

    #[test]
    fn unsafe_urls_are_not_linked() {
        let mut c = with_items("a", &["GPU"], vec![item("X.", Detect, Report, &[])]);
        c.body.sources[0].url = "javascript:alert(1)".into();
        let filters = Filters::default();
        let md = to_markdown(&build(&[c], &request("GPU", &filters)));
        assert!(md.contains("`a` Title of a — Report on a\n"), "{md}");
        assert!(!md.contains("javascript"));
    }

    #[test]
    fn file_names_are_slugs() {
        for (component, want) in [
            ("NCCL", "incidex-checklist-nccl-2025-01-02.md"),
            ("Training data loader", "incidex-checklist-training-data-loader-2025-01-02.md"),
            ("GPU driver and firmware", "incidex-checklist-gpu-driver-and-firmware-2025-01-02.md"),
            ("../../etc/passwd", "incidex-checklist-etc-passwd-2025-01-02.md"),
            ("/", "incidex-checklist-component-2025-01-02.md"),
        ] {
            assert_eq!(default_file_name(component, "2025-01-02"), want, "{component}");
        }
    }

    #[test]
    fn no_items_says_so() {
        let c = with_items("a", &["GPU", "DNS"], vec![item("X.", Detect, Report, &["DNS"])]);
        let filters = Filters::default();
        let list = build(&[c], &request("GPU", &filters));
        assert_eq!(list.item_count, 0);
        assert!(
            to_markdown(&list)
                .ends_with("Cases: 1\n\nNo action items apply to this component in these cases.\n")
        );
    }
}
