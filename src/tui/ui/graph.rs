//! The graph pane: the walk's centre in the middle, its facet values (or cases) on a ring,
//! related nodes on an outer ring, edges drawn with a braille `Canvas`, every node labelled and
//! coloured by kind, the highlighted node selected; under it the highlighted node in full and a
//! legend. Too small to draw legibly, it lists the same nodes grouped by kind.
//!
//! Positions come from `crate::graph::layout` through `GraphView::layout`, the same call the
//! keys use, so what is drawn is what the arrows move through. Markers and labels are written
//! straight into the buffer at their cells (after the canvas), so they line up exactly.

use ratatui::{
    buffer::Buffer,
    layout::Rect,
    style::{Color, Modifier, Style},
    symbols::Marker,
    widgets::{
        Widget,
        canvas::{Canvas, Line as CanvasLine},
    },
};
use unicode_width::UnicodeWidthStr;

use super::{no_case, pane, put};
use crate::{
    graph::{
        Graph, NodeKind,
        layout::{Layout, Placed, Slot},
    },
    settings::theme::Role,
    tui::{
        app::{App, Focus},
        graph_view::{FOOTER_ROWS, GraphView},
        style::Styles,
    },
};

/// The graph pane widget.
pub struct GraphPane<'a> {
    /// The state drawn.
    pub app: &'a App,
    /// The theme.
    pub styles: &'a Styles,
}

/// The role that colours nodes of `kind`.
pub fn role(kind: NodeKind) -> Role {
    match kind {
        NodeKind::Facet(k) => Role::of_kind(k),
        NodeKind::Case => Role::Case,
    }
}

/// The marker of a node of `kind`: values are dots, cases squares, so kinds differ without
/// colour too.
pub fn marker(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Facet(_) => "●",
        NodeKind::Case => "■",
    }
}

/// The legend in the widest form that fits `width`: the kinds' names and the gap between
/// entries (each entry is a marker, a space and the name).
fn legend(width: usize) -> (Vec<(NodeKind, &'static str)>, usize) {
    let long = ["Root cause", "Component", "Symptom", "Contributing factor", "Case"];
    let medium = ["Root cause", "Component", "Symptom", "Factor", "Case"];
    let short = ["Root", "Comp.", "Symptom", "Factor", "Case"];
    let size = |names: &[&str; 5], gap: usize| names.iter().map(|n| n.width() + 2).sum::<usize>() + gap * 4;
    let (names, gap) = [(long, 2), (medium, 2), (short, 2), (short, 1)]
        .into_iter()
        .find(|(n, g)| size(n, *g) <= width)
        .unwrap_or((short, 1));
    (NodeKind::ALL.into_iter().zip(names).collect(), gap)
}

impl Widget for GraphPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let area = area.intersection(buf.area);
        let app = self.app;
        let s = self.styles;
        let focused = app.focus == Focus::Detail && app.overlay.is_none();
        let view = &app.graph_view;
        let hint = match (&view.picture, focused) {
            (Some(p), true) if p.inner_hidden > 0 => format!("{} more not drawn", p.inner_hidden),
            (Some(_), true) if !view.history.is_empty() => {
                format!("Backspace: back ({})", view.history.len())
            }
            (_, true) => String::new(),
            (_, false) => "v: next pane".to_string(),
        };
        let block = pane("Graph", &hint, focused, s, area.width);
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.is_empty() {
            return;
        }
        if view.picture.is_none() {
            no_case(buf, inner, app, s);
            return;
        }
        let graph = app.graph();
        let canvas = GraphView::canvas(inner);
        let highlight_style = s.get(if focused { Role::Selection } else { Role::SelectionInactive });
        match view.layout(graph, canvas) {
            Some(layout) => draw(buf, canvas, graph, view, &layout, s, highlight_style),
            None => list(buf, canvas, graph, view, s, highlight_style),
        }
        if inner.height > FOOTER_ROWS {
            footer(buf, inner, graph, view, s);
        }
    }
}

/// The drawing: edges on a braille canvas, then markers and labels at their cells.
fn draw(
    buf: &mut Buffer,
    canvas: Rect,
    graph: &Graph,
    view: &GraphView,
    layout: &Layout,
    s: &Styles,
    highlight_style: Style,
) {
    let Some(picture) = &view.picture else { return };
    let (w, h) = (f64::from(canvas.width), f64::from(canvas.height));
    let point = |p: &Placed| (f64::from(p.x) + 0.5, h - f64::from(p.y) - 0.5);
    let colour = |role: Role| s.get(role).fg.unwrap_or(Color::Reset);
    let (plain, lit) = (colour(Role::Border), colour(Role::Accent));
    // Every value to the centre; each related node to its strongest link (the rarest value it
    // shares, beside which it is placed); every link of the highlighted node, lit.
    let mut edges: Vec<(Slot, Slot)> =
        (0..layout.inner.len()).map(|i| (Slot::Centre, Slot::Inner(i))).collect();
    for (o, links) in picture.links.iter().enumerate().take(layout.outer.len()) {
        for (rank, &i) in links.iter().filter(|&&i| i < layout.inner.len()).enumerate() {
            let (a, b) = (Slot::Inner(i), Slot::Outer(o));
            if rank == 0 || a == view.highlight || b == view.highlight {
                edges.push((a, b));
            }
        }
    }
    Canvas::default()
        .marker(Marker::Braille)
        .x_bounds([0.0, w])
        .y_bounds([0.0, h])
        .paint(|ctx| {
            // Edges of the highlighted node last, so they stay on top where lines cross.
            for lit_pass in [false, true] {
                for &(a, b) in &edges {
                    let touches = a == view.highlight || b == view.highlight;
                    if touches != lit_pass {
                        continue;
                    }
                    let (Some(pa), Some(pb)) = (layout.get(a), layout.get(b)) else { continue };
                    let ((x1, y1), (x2, y2)) = (point(pa), point(pb));
                    ctx.draw(&CanvasLine { x1, y1, x2, y2, color: if touches { lit } else { plain } });
                }
            }
        })
        .render(canvas, buf);
    for (slot, placed) in layout.placed() {
        let Some(node) = view.node(slot) else { continue };
        let kind = graph.node(node).kind();
        let base = s.get(role(kind));
        let mut label_style = if slot == Slot::Centre { base.add_modifier(Modifier::BOLD) } else { base };
        if slot == view.highlight {
            label_style = label_style.patch(highlight_style);
        }
        let label = &placed.label;
        if slot == Slot::Centre {
            // A blank cell either side, so the edges leaving the centre do not touch its name.
            let y = canvas.y + label.y;
            for cx in [(canvas.x + label.x).checked_sub(1), Some(canvas.x + label.x + label.width)]
                .into_iter()
                .flatten()
            {
                if canvas.contains((cx, y).into()) {
                    buf.set_string(cx, y, " ", Style::default());
                }
            }
        } else {
            let (x, y) = (canvas.x + placed.x, canvas.y + placed.y);
            // The cell between the marker and its label stays blank, so an edge passing
            // through it does not run into the text.
            // So does the cell past its far end.
            let (gap, far) = if label.x > placed.x {
                (x + 1, canvas.x + label.x + label.width)
            } else {
                (x.saturating_sub(1), (canvas.x + label.x).saturating_sub(1))
            };
            for (cx, symbol, style) in
                [(x, marker(kind), base), (gap, " ", Style::default()), (far, " ", Style::default())]
            {
                if canvas.contains((cx, y).into()) {
                    buf.set_string(cx, y, symbol, style);
                }
            }
        }
        put(buf, canvas.x + label.x, canvas.y + label.y, label.width, &[(label.text.clone(), label_style)]);
    }
}

/// The neighbourhood as a list grouped by kind, scrolled to keep the highlight in view.
fn list(buf: &mut Buffer, canvas: Rect, graph: &Graph, view: &GraphView, s: &Styles, highlight_style: Style) {
    // (the node's slot, or none for a heading; the text; its style)
    let mut lines: Vec<(Option<Slot>, String, Style)> = Vec::new();
    for (kind, slots) in view.list(graph) {
        match kind {
            None => {
                for slot in slots {
                    let Some(n) = view.node(slot) else { continue };
                    let node = graph.node(n);
                    let style = s.get(role(node.kind())).add_modifier(Modifier::BOLD);
                    lines.push((Some(slot), node.label.clone(), style));
                }
            }
            Some(kind) => {
                lines.push((None, kind.label().to_string(), s.get(Role::Accent)));
                for slot in slots {
                    let Some(n) = view.node(slot) else { continue };
                    let text = format!("{} {}", marker(kind), graph.node(n).label);
                    lines.push((Some(slot), text, s.get(role(kind))));
                }
            }
        }
    }
    let height = usize::from(canvas.height);
    let at = lines.iter().position(|(l, ..)| *l == Some(view.highlight)).unwrap_or(0);
    let top = (at + 1).saturating_sub(height);
    for (row, (item, text, style)) in lines.iter().skip(top).take(height).enumerate() {
        let indent = u16::from(matches!(item, Some(slot) if *slot != Slot::Centre));
        let style = match item {
            Some(slot) if *slot == view.highlight => style.patch(highlight_style),
            _ => *style,
        };
        put(
            buf,
            canvas.x + indent,
            canvas.y + row as u16,
            canvas.width.saturating_sub(indent),
            &[(text.clone(), style)],
        );
    }
}

/// The highlighted node in full, and the legend.
fn footer(buf: &mut Buffer, inner: Rect, graph: &Graph, view: &GraphView, s: &Styles) {
    let y = inner.bottom().saturating_sub(FOOTER_ROWS);
    if let Some(n) = view.highlighted() {
        let node = graph.node(n);
        let kind = node.kind();
        let mut spans = vec![
            (format!("{} {}: ", marker(kind), kind.label()), s.get(role(kind))),
            (node.label.clone(), s.get(Role::Text)),
        ];
        let extra = match kind {
            NodeKind::Case => format!(" · {}", node.key),
            NodeKind::Facet(_) => match graph.neighbours(n).len() {
                1 => " · 1 case".to_string(),
                c => format!(" · {c} cases"),
            },
        };
        spans.push((extra, s.get(Role::Muted)));
        put(buf, inner.x, y, inner.width, &spans);
    }
    let mut spans = Vec::new();
    let (entries, gap) = legend(usize::from(inner.width));
    for (i, (kind, name)) in entries.into_iter().enumerate() {
        let gap = if i == 0 { String::new() } else { " ".repeat(gap) };
        spans.push((format!("{gap}{} ", marker(kind)), s.get(role(kind))));
        spans.push((name.to_string(), s.get(Role::Muted)));
    }
    put(buf, inner.x, y + 1, inner.width, &spans);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_legend_names_every_kind_in_the_room_it_has() {
        let names = |w| {
            let (entries, gap) = legend(w);
            format!("{} {gap}", entries.into_iter().map(|(_, n)| n).collect::<Vec<_>>().join(","))
        };
        assert_eq!(names(80), "Root cause,Component,Symptom,Contributing factor,Case 2");
        assert_eq!(names(67), "Root cause,Component,Symptom,Contributing factor,Case 2");
        assert_eq!(names(60), "Root cause,Component,Symptom,Factor,Case 2");
        assert_eq!(names(44), "Root,Comp.,Symptom,Factor,Case 2");
        assert_eq!(names(42), "Root,Comp.,Symptom,Factor,Case 1");
    }
}
