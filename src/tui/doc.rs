//! A case laid out as wrapped lines for the case pane: every section, facet values and source
//! addresses as selectable items.
//!
//! A source's address has lines of its own: whole on one when it fits, else wrapped whole over
//! several, broken after a `/`, `?`, `&`, `=`, `-` or `.` where one is near the edge, with
//! nothing else on those lines, so every character of it can be read (and selected) at 80
//! columns. The status line shows the highlighted one in full, and `y` copies it.
//!
//! Pure: a case and a width in, lines of tagged text out. The tags ([`Part`]) say what each
//! piece is; the renderer picks the theme's style for it, and `App::update` uses the same
//! document to scroll and to move between facet values, so the two always agree.

use textwrap::Options;
use unicode_width::UnicodeWidthStr;

use crate::corpus::Case;
use crate::taxonomy::FacetKind;

/// What a piece of a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The case's title.
    Title,
    /// Date, organization, scale, id.
    Meta,
    /// A section heading.
    Heading,
    /// Body text.
    Body,
    /// A list bullet or an action item's type.
    Bullet,
    /// Secondary text.
    Muted,
    /// The web address of the source with this index in [`CaseDoc::sources`].
    Source(usize),
    /// The facet value with this index in [`CaseDoc::facets`].
    Facet(usize),
}

/// One line: pieces of text with what they are.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocLine(pub Vec<(Part, String)>);

impl DocLine {
    fn of(part: Part, text: impl Into<String>) -> DocLine {
        DocLine(vec![(part, text.into())])
    }

    /// The line's text without tags.
    pub fn text(&self) -> String {
        self.0.iter().map(|(_, t)| t.as_str()).collect()
    }
}

/// A facet value shown in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FacetRef {
    /// Its kind.
    pub kind: FacetKind,
    /// Its name.
    pub value: String,
    /// The line it is on.
    pub line: usize,
}

/// A source's web address shown in the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRef {
    /// The address, whole.
    pub url: String,
    /// The line it starts on.
    pub line: usize,
    /// How many lines it takes (more than one when it is wrapped).
    pub lines: usize,
}

/// A case related to the one shown, as the "Related cases" section lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelatedCase {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The facet values it shares, rarest first.
    pub shared: Vec<String>,
}

/// A case as lines of a given width.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CaseDoc {
    /// The lines, top to bottom.
    pub lines: Vec<DocLine>,
    /// The facet values, in reading order.
    pub facets: Vec<FacetRef>,
    /// The sources that have an address, in reading order.
    pub sources: Vec<SourceRef>,
}

/// Where the case pane's highlight can be: a facet value or a source's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    /// `CaseDoc::facets[i]`.
    Facet(usize),
    /// `CaseDoc::sources[i]`.
    Source(usize),
}

impl CaseDoc {
    /// Every item the highlight can move to, in reading order, with its line.
    pub fn items(&self) -> Vec<(Item, usize)> {
        let facets = self.facets.iter().enumerate().map(|(i, f)| (Item::Facet(i), f.line));
        let sources = self.sources.iter().enumerate().map(|(i, s)| (Item::Source(i), s.line));
        facets.chain(sources).collect()
    }
}

const INDENT: &str = "  ";

struct Builder {
    width: usize,
    doc: CaseDoc,
}

impl Builder {
    fn push(&mut self, line: DocLine) {
        self.doc.lines.push(line);
    }

    fn blank(&mut self) {
        if self.doc.lines.last().is_some_and(|l| !l.0.is_empty()) {
            self.push(DocLine::default());
        }
    }

    fn wrapped(&mut self, part: Part, text: &str, first: &str, rest: &str) {
        let mut first_paragraph = true;
        for paragraph in text.split("\n\n").map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")) {
            if paragraph.is_empty() {
                continue;
            }
            if !first_paragraph {
                self.push(DocLine::default());
            }
            let indent = if first_paragraph { first } else { rest };
            // First fit: the case pane is rebuilt on every frame that shows it, and optimal fit
            // costs several times more for a ragged edge nobody reads differently.
            let options = Options::new(self.width.max(1))
                .initial_indent(indent)
                .subsequent_indent(rest)
                .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit);
            for line in textwrap::wrap(&paragraph, options) {
                let line = line.into_owned();
                let (lead, body) = split_indent(&line, indent, rest);
                // An indent of spaces takes the text's own style: a style change costs bytes on
                // every line sent to the terminal, and spaces look the same in any colour.
                let lead_part = if lead.trim().is_empty() { part } else { Part::Bullet };
                self.push(DocLine(vec![(lead_part, lead), (part, body)]));
            }
            first_paragraph = false;
        }
    }

    /// A source's address on lines of its own, wrapped whole (see the module docs).
    fn address(&mut self, url: &str) {
        let index = self.doc.sources.len();
        let pieces = wrap_address(url, self.width.saturating_sub(INDENT.len() * 2));
        let (line, lines) = (self.doc.lines.len(), pieces.len());
        self.doc.sources.push(SourceRef { url: url.to_string(), line, lines });
        for piece in pieces {
            self.push(DocLine(vec![(Part::Body, INDENT.repeat(2)), (Part::Source(index), piece)]));
        }
    }

    fn heading(&mut self, title: &str) {
        self.blank();
        self.push(DocLine::of(Part::Heading, crate::text::columns::truncate(title, self.width)));
    }

    fn section(&mut self, title: &str, text: &str) {
        self.heading(title);
        self.wrapped(Part::Body, text, INDENT, INDENT);
    }

    fn bullets<'a>(&mut self, title: &str, items: impl IntoIterator<Item = &'a str>) {
        self.heading(title);
        for item in items {
            self.wrapped(Part::Body, item, "  • ", "    ");
        }
    }

    /// The values of `kind` as items flowing across lines, each whole unless it alone is wider
    /// than a line.
    fn facets(&mut self, case: &Case, kind: FacetKind, label: Option<&str>) {
        let values = case.facets.values(kind);
        // A label only where it leaves room for values.
        let label = label.filter(|l| INDENT.len() + l.width() <= self.width / 2).unwrap_or_default();
        if values.is_empty() {
            self.push(DocLine::of(Part::Muted, format!("{INDENT}{label}–")));
            return;
        }
        let mut line = DocLine(vec![(Part::Muted, INDENT.into()), (Part::Muted, label.into())]);
        let mut used = INDENT.len() + label.width();
        let mut first_on_line = true;
        for value in values {
            let inferred = if case.facets.is_inferred(kind, value) { " (inferred)" } else { "" };
            let full = value.width() + inferred.len();
            if !first_on_line && used + 3 + full > self.width {
                // Continuation lines line up under the first value.
                let hang = format!("{INDENT}{}", " ".repeat(label.width()));
                used = hang.len();
                self.push(std::mem::replace(&mut line, DocLine::of(Part::Muted, hang)));
                first_on_line = true;
            }
            if !first_on_line {
                line.0.push((Part::Muted, " · ".into()));
                used += 3;
            }
            let room = self.width.saturating_sub(used + inferred.len()).max(1);
            let shown = crate::text::columns::truncate(value, room);
            let index = self.doc.facets.len();
            self.doc.facets.push(FacetRef { kind, value: value.clone(), line: self.doc.lines.len() });
            used += shown.width() + inferred.len();
            line.0.push((Part::Facet(index), shown));
            if !inferred.is_empty() {
                line.0.push((Part::Muted, inferred.into()));
            }
            first_on_line = false;
        }
        self.push(line);
    }
}

/// `url` as pieces of at most `room` columns that join back into it: each broken after the last
/// `/ ? & = # - . _` in its second half, else at the edge.
fn wrap_address(url: &str, room: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthChar;
    let room = room.max(1);
    let mut pieces = Vec::new();
    let mut rest: Vec<char> = url.chars().collect();
    while rest.iter().map(|c| c.width().unwrap_or(0)).sum::<usize>() > room {
        let mut used = 0;
        let mut fits = 0;
        for c in &rest {
            let w = c.width().unwrap_or(0);
            if used + w > room {
                break;
            }
            used += w;
            fits += 1;
        }
        let fits = fits.max(1);
        let cut = (fits / 2..fits)
            .rev()
            .find(|&i| matches!(rest[i], '/' | '?' | '&' | '=' | '#' | '-' | '.' | '_'))
            .map_or(fits, |i| i + 1);
        pieces.push(rest.drain(..cut).collect());
    }
    pieces.push(rest.into_iter().collect());
    pieces
}

/// Split a wrapped line into its indent and its text.
fn split_indent(line: &str, first: &str, rest: &str) -> (String, String) {
    for indent in [first, rest] {
        if let Some(body) = line.strip_prefix(indent) {
            return (indent.to_string(), body.to_string());
        }
    }
    (String::new(), line.to_string())
}

/// Lay `case` out in `width` columns, with the related cases (see `crate::graph::related`) at
/// the end.
pub fn build(case: &Case, related: &[RelatedCase], width: u16) -> CaseDoc {
    build_with_checks(case, related, &[], width)
}

/// [`build`], with the node audit's results for the checks that cite this case ("On this
/// node"), right under its ids.
pub fn build_with_checks(
    case: &Case,
    related: &[RelatedCase],
    checks: &[(crate::doctor::State, String)],
    width: u16,
) -> CaseDoc {
    let mut b = Builder { width: usize::from(width).max(8), doc: CaseDoc::default() };
    b.wrapped(Part::Title, &case.title, "", "");
    let mut meta =
        vec![case.date.map_or_else(|| "undated".to_string(), |d| d.to_string()), case.organization.clone()];
    meta.extend(case.body.scale.clone());
    // A no-break space ties each dot to the item after it, so a wrapped line never ends in one.
    b.wrapped(Part::Meta, &meta.join(" ·\u{a0}"), "", "");
    // A postmortem's own incident id and owner go with the case id.
    let mut ids = vec![case.id.clone()];
    ids.extend(case.body.incident_id.as_ref().map(|i| format!("incident {i}")));
    ids.extend(case.body.owner.as_ref().map(|o| format!("owner {o}")));
    b.wrapped(Part::Muted, &ids.join(" ·\u{a0}"), "", "");
    if !checks.is_empty() {
        b.heading("On this node");
        for (state, line) in checks {
            let part = if state.is_finding() { Part::Body } else { Part::Muted };
            b.wrapped(part, line, "  • ", "    ");
        }
    }

    b.section("Symptoms", &case.body.symptoms);
    b.facets(case, FacetKind::Symptom, Some("Symptom: "));
    if let Some(trigger) = &case.body.trigger {
        b.section("Trigger", trigger);
    }
    for kind in [FacetKind::RootCause, FacetKind::Component, FacetKind::ContributingFactor] {
        b.heading(kind.label());
        b.facets(case, kind, None);
    }
    b.section("Detection", &case.body.detection);
    b.bullets("Remediation", case.body.remediation.iter().map(String::as_str));

    b.heading("Action items");
    for item in &case.body.action_items {
        let mut text = format!("[{}] {}", item.kind.key(), item.text);
        if item.origin == crate::corpus::model::ItemOrigin::Editorial {
            text.push_str(" (editorial)");
        }
        if !item.components.is_empty() {
            text.push_str(&format!(" — {}", item.components.join(", ")));
        }
        b.wrapped(Part::Body, &text, "  • ", "    ");
    }
    if let Some(lessons) = &case.body.lessons {
        b.section("Lessons", lessons);
    }
    if let Some(impact) = case.body.impact.as_ref().filter(|i| !i.is_empty()) {
        let mut facts = Vec::new();
        facts.extend(impact.duration.as_ref().map(|d| format!("Duration: {d}")));
        facts.extend(impact.gpu_hours_lost.map(|h| format!("GPU hours lost: {h}")));
        facts.extend(impact.users_affected.as_ref().map(|u| format!("Affected: {u}")));
        b.bullets("Impact", facts.iter().map(String::as_str));
    }
    if let Some(timeline) = &case.body.timeline {
        b.section("Timeline", timeline);
    }
    b.heading("Sources");
    for source in &case.body.sources {
        let mut title = format!("{} ({}", source.title, source.kind.key());
        if let Some(p) = source.published {
            title.push_str(&format!(", {p}"));
        }
        title.push(')');
        b.wrapped(Part::Body, &title, "  • ", "    ");
        if !source.url.is_empty() {
            b.address(&source.url);
        }
        if let Some(note) = &source.note {
            b.wrapped(Part::Muted, note, "    ", "    ");
        }
    }
    if !related.is_empty() {
        b.heading("Related cases");
        for r in related {
            b.wrapped(Part::Body, &r.title, "  • ", "    ");
            b.wrapped(Part::Muted, &format!("{} · shares {}", r.id, r.shared.join(", ")), "    ", "    ");
        }
    }
    b.doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Library;

    /// A fixture case with every optional section (the bundled library changes as it grows).
    fn full_case() -> Case {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui");
        let library = Library::load(&crate::corpus::LoadOptions { bundled: false, dirs: vec![dir] });
        library.case("epoch-end-hang").cloned().unwrap()
    }

    #[test]
    fn every_section_is_there_in_order() {
        let doc = build(&full_case(), &[], 60);
        let headings: Vec<String> = doc
            .lines
            .iter()
            .filter(|l| l.0.first().is_some_and(|(p, _)| *p == Part::Heading))
            .map(DocLine::text)
            .collect();
        assert_eq!(
            headings,
            [
                "Symptoms",
                "Trigger",
                "Root cause",
                "Component",
                "Contributing factor",
                "Detection",
                "Remediation",
                "Action items",
                "Lessons",
                "Sources"
            ]
        );
        assert!(doc.lines.iter().any(|l| l.text().contains("[prevent] Check that every rank")));
        assert!(doc.lines.iter().any(|l| l.text().contains("(editorial) — NCCL")), "origin and components");
    }

    #[test]
    fn no_line_is_wider_than_the_pane() {
        let case = full_case();
        for width in [8u16, 20, 37, 60, 111] {
            let doc = build(&case, &[], width);
            for line in &doc.lines {
                assert!(line.text().width() <= usize::from(width).max(8), "{width}: {:?}", line.text());
            }
        }
    }

    #[test]
    fn facet_values_know_their_lines() {
        let case = full_case();
        let doc = build(&case, &[], 40);
        assert_eq!(doc.facets.len(), case.facets.len());
        for (i, f) in doc.facets.iter().enumerate() {
            let line = &doc.lines[f.line];
            assert!(
                line.0
                    .iter()
                    .any(|(p, t)| *p == Part::Facet(i) && f.value.starts_with(t.trim_end_matches('…')))
            );
        }
    }

    #[test]
    fn each_address_has_lines_of_its_own_and_wraps_whole() {
        let mut case = full_case();
        case.body.sources[0].url = "https://github.com/pytorch/pytorch/issues/46874".into();
        for width in [30u16, 38, 60] {
            let doc = build(&case, &[], width);
            let source = &doc.sources[0];
            assert_eq!(source.url, case.body.sources[0].url, "kept whole for copying");
            let pieces: Vec<String> = doc.lines[source.line..]
                .iter()
                .take_while(|l| l.0.iter().any(|(p, _)| *p == Part::Source(0)))
                .map(|l| {
                    assert!(l.0.iter().all(|(p, t)| *p == Part::Source(0) || t.trim().is_empty()), "{l:?}");
                    l.text().trim().to_string()
                })
                .collect();
            assert_eq!(pieces.concat(), source.url, "width {width}: {pieces:?}");
            assert_eq!(source.lines, pieces.len());
            assert!(pieces.iter().all(|p| p.width() <= usize::from(width) - 4), "{pieces:?}");
            if width == 60 {
                assert_eq!(pieces.len(), 1);
            } else {
                assert!(pieces.len() > 1 && pieces[0].ends_with('/'), "broken after a slash: {pieces:?}");
            }
        }
        // A long address with no break point is cut at the edge, and still joins back.
        let long = format!("https://example.org/{}", "x".repeat(120));
        let pieces = super::wrap_address(&long, 40);
        assert_eq!(pieces.concat(), long);
        assert!(pieces.iter().all(|p| p.width() <= 40));
        let doc = build(&case, &[], 60);
        let items = doc.items();
        assert_eq!(items.len(), doc.facets.len() + doc.sources.len());
        assert_eq!(items.last().map(|(item, _)| *item), Some(Item::Source(doc.sources.len() - 1)));
    }
}
