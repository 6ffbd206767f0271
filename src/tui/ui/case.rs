//! The case pane: the selected case's document (see `tui::doc`), scrolled, with facet values
//! in their kind's colour, source addresses underlined, and the highlighted item selected.
//! [`links`] says where the addresses were drawn, for the main loop to make them OSC 8
//! hyperlinks (`tui::hyperlink`); the two walk the same visible lines.

use ratatui::{
    buffer::Buffer,
    layout::Rect,
    widgets::{Block, Widget},
};
use unicode_width::UnicodeWidthStr;

use super::{no_case, pane, put};
use crate::{
    settings::theme::Role,
    tui::{
        app::{App, Focus},
        doc::{CaseDoc, DocLine, Part},
        hyperlink::Link,
        style::Styles,
    },
};

/// The document's lines the pane of `inner` (inside its border) shows, with their rows.
fn visible<'a>(app: &App, doc: &'a CaseDoc, inner: Rect) -> impl Iterator<Item = (u16, &'a DocLine)> {
    let rows = usize::from(inner.height);
    doc.lines.iter().skip(app.case_view.scroll).take(rows).zip(inner.y..).map(|(line, y)| (y, line))
}

/// Where the case pane drawn in `area` shows the pieces of each source's address (see the
/// module docs); pieces that do not fit the pane whole are left out.
pub fn links(app: &App, area: Rect) -> Vec<Link> {
    let Some(doc) = app.case_doc() else { return Vec::new() };
    let inner = Block::bordered().inner(area);
    let mut links = Vec::new();
    for (y, line) in visible(app, doc, inner) {
        let mut x = usize::from(inner.x);
        for (part, text) in &line.0 {
            let width = text.width();
            let source = match part {
                Part::Source(i) => doc.sources.get(*i),
                _ => None,
            };
            if let Some(source) = source
                && x + width <= usize::from(inner.right())
            {
                links.push(Link { x: x as u16, y, text: text.clone(), url: source.url.clone() });
            }
            x += width;
        }
    }
    links
}

/// The case pane widget.
pub struct CasePane<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
}

impl Widget for CasePane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let app = self.app;
        let s = self.styles;
        let focused = app.focus == Focus::Detail && app.overlay.is_none();
        // The highlighted facet value or source address, in the selection style of the pane.
        let highlighted = |base: ratatui::style::Style, on: bool| {
            if on {
                base.patch(s.get(if focused { Role::Selection } else { Role::SelectionInactive }))
            } else {
                base
            }
        };
        let doc = app.case_doc();
        let height = usize::from(area.height.saturating_sub(2));
        let position = match &doc {
            Some(d) if d.lines.len() > height => {
                let last = (app.case_view.scroll + height).min(d.lines.len());
                format!("{}%", last * 100 / d.lines.len().max(1))
            }
            _ => String::new(),
        };
        let hint = if focused { position } else { format!("v: next pane {position}").trim().to_string() };
        // A case opened from the graph (`o`) may not be in the list: say where it came from.
        let title = if app.opened.is_some() { "Case (from the graph)" } else { "Case" };
        let block = pane(title, &hint, focused, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(doc) = doc else {
            no_case(buf, inner, app, s);
            return;
        };
        for (y, line) in visible(app, doc, inner) {
            let spans: Vec<(String, ratatui::style::Style)> = line
                .0
                .iter()
                .map(|(part, text)| {
                    let style = match part {
                        Part::Title => s.get(Role::Title),
                        Part::Meta | Part::Muted => s.get(Role::Muted),
                        Part::Heading => s.get(Role::Accent),
                        Part::Body => s.get(Role::Text),
                        Part::Bullet => s.get(Role::Muted),
                        Part::Source(i) => highlighted(
                            s.get(Role::Text).add_modifier(ratatui::style::Modifier::UNDERLINED),
                            app.case_view.source() == Some(*i),
                        ),
                        Part::Facet(i) => highlighted(
                            doc.facets.get(*i).map_or(s.get(Role::Text), |f| s.get(Role::of_kind(f.kind))),
                            app.case_view.facet() == Some(*i),
                        ),
                    };
                    (text.clone(), style)
                })
                .collect();
            put(buf, inner.x, y, inner.width, &spans);
        }
    }
}
