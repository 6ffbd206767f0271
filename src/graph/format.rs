//! A neighbourhood as text, Graphviz DOT, Mermaid flowchart or JSON (`incidex graph`).
//!
//! Pure: graph data in, a `String` (or a JSON value) out. Every label is escaped for the
//! format it goes into, so no case title can break the syntax: DOT strings escape `"` and `\`;
//! Mermaid labels are quoted and every character outside a plain set becomes an entity code
//! (`#35;`); node ids are generated (`n0`, `n1`, ...) or are case ids and `kind:value` keys
//! inside quotes. Text reaching here has already been sanitized on load (no control characters).

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::{Graph, NodeId, NodeKind, neighbourhood::Neighbourhood, related::Related};
use crate::taxonomy::FacetKind;
use crate::text::columns::{id_then, truncate, wrap_at};

/// How many related nodes `text` and `json` list.
pub const RELATED_LIMIT: usize = 10;

/// The fill colour of a node kind in DOT and Mermaid (light tints, dark text readable on all).
fn fill(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Facet(FacetKind::RootCause) => "#f4b6b6",
        NodeKind::Facet(FacetKind::Component) => "#b3d4f0",
        NodeKind::Facet(FacetKind::Symptom) => "#f8d9a8",
        NodeKind::Facet(FacetKind::ContributingFactor) => "#c6e6bf",
        NodeKind::Case => "#e4e4e4",
    }
}

/// A label wrapped into at most three lines of about 32 columns, the last one shortened.
fn wrapped(label: &str) -> Vec<String> {
    let lines: Vec<String> = textwrap::wrap(label, 32).into_iter().map(|l| l.into_owned()).collect();
    if lines.len() <= 3 {
        return lines;
    }
    let mut kept: Vec<String> = lines[..3].to_vec();
    kept[2] = format!("{}…", kept[2].trim_end_matches(['.', ',', ';', ':']));
    kept
}

/// The neighbourhood as readable text: the centre, then the nodes at each distance grouped by
/// kind, then the related nodes with why, all within `width` columns (URLs aside), and a
/// case's id always whole.
pub fn to_text(graph: &Graph, hood: &Neighbourhood, related: &[Related], width: usize) -> String {
    let centre = graph.node(hood.centre);
    let mut s = String::new();
    for line in textwrap::wrap(&centre.label, wrap_at(width)) {
        s.push_str(&line);
        s.push('\n');
    }
    let count = graph.neighbours(hood.centre).len();
    let _ = match centre.kind() {
        NodeKind::Case => writeln!(s, "{} · {count} facet values", centre.key),
        NodeKind::Facet(_) => writeln!(s, "{} · {}", centre.key, cases(count)),
    };
    for distance in 1..=hood.depth {
        let at: Vec<NodeId> = hood.nodes.iter().filter(|(_, d)| *d == distance).map(|(n, _)| *n).collect();
        if at.is_empty() {
            break;
        }
        let hops = if distance == 1 { "1 hop" } else { &format!("{distance} hops") };
        let _ = writeln!(s, "\nAt {hops}: {} nodes", at.len());
        for kind in NodeKind::ALL {
            let of_kind: Vec<NodeId> = at.iter().copied().filter(|&n| graph.node(n).kind() == kind).collect();
            if of_kind.is_empty() {
                continue;
            }
            let _ = writeln!(s, "  {}", kind.label());
            for n in of_kind {
                let node = graph.node(n);
                // A case's id is whole (it is what people copy); its title takes what is left.
                let line = match kind {
                    NodeKind::Case => format!(
                        "    {}",
                        id_then(&node.key.to_string(), &node.label, width.saturating_sub(4))
                    ),
                    NodeKind::Facet(_) => {
                        truncate(&format!("    {} ({})", node.label, cases(graph.neighbours(n).len())), width)
                    }
                };
                s.push_str(&line);
                s.push('\n');
            }
        }
    }
    if !related.is_empty() {
        let title = match centre.kind() {
            NodeKind::Case => "Related cases (by shared facet values, rarer ones weighing more)",
            NodeKind::Facet(_) => "Values found with it (by shared cases, rarer values weighing more)",
        };
        let _ = writeln!(s, "\n{title}");
        for (i, r) in related.iter().enumerate() {
            let node = graph.node(r.node);
            // A case: its title, then its id on a line of its own (ids are what people copy).
            let head = match node.kind() {
                NodeKind::Case => format!("{:>4}. {}", i + 1, node.label),
                NodeKind::Facet(kind) => {
                    format!("{:>4}. {} ({})", i + 1, node.label, kind.label().to_lowercase())
                }
            };
            s.push_str(&truncate(&head, width));
            s.push('\n');
            if node.kind() == NodeKind::Case {
                let _ = writeln!(s, "      {}", node.key);
            }
            let why = match node.kind() {
                NodeKind::Case => format!("shares {}", r.reason(graph)),
                NodeKind::Facet(_) => r.reason(graph),
            };
            let options =
                textwrap::Options::new(wrap_at(width)).initial_indent("      ").subsequent_indent("      ");
            for line in textwrap::wrap(&why, options) {
                s.push_str(&line);
                s.push('\n');
            }
        }
    }
    s
}

fn cases(n: usize) -> String {
    if n == 1 { "1 case".into() } else { format!("{n} cases") }
}

/// `s` escaped for the inside of a DOT double-quoted string: `"` and `\` get a backslash.
fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A DOT double-quoted string.
fn dot_string(s: &str) -> String {
    format!("\"{}\"", dot_escape(s))
}

/// The neighbourhood as an undirected Graphviz graph, nodes coloured and shaped by kind, the
/// centre drawn bold; `dot -Tsvg` renders it.
pub fn to_dot(graph: &Graph, hood: &Neighbourhood) -> String {
    let mut s = String::from("graph incidex {\n");
    s.push_str("  graph [rankdir=LR, fontname=\"Helvetica\"];\n");
    s.push_str("  node [fontname=\"Helvetica\", fontsize=10, style=\"filled\", color=\"#555555\"];\n");
    for &(id, _) in &hood.nodes {
        let node = graph.node(id);
        let kind = node.kind();
        // Each line is escaped on its own, then joined with DOT's `\n` line break.
        let mut lines: Vec<String> = wrapped(&node.label);
        if let NodeKind::Facet(k) = kind {
            lines.push(format!("({})", k.label().to_lowercase()));
        }
        let label: Vec<String> = lines.iter().map(|l| dot_escape(l)).collect();
        let shape = if kind == NodeKind::Case { "box" } else { "ellipse" };
        let bold = if id == hood.centre { ", penwidth=3" } else { "" };
        let _ = writeln!(
            s,
            "  {} [label=\"{}\", shape={shape}, fillcolor=\"{}\", tooltip={}{bold}];",
            dot_string(&node.key.to_string()),
            label.join("\\n"),
            fill(kind),
            dot_string(&node.label),
        );
    }
    for (case, value) in &hood.edges {
        let _ = writeln!(
            s,
            "  {} -- {};",
            dot_string(&graph.node(*case).key.to_string()),
            dot_string(&graph.node(*value).key.to_string())
        );
    }
    s.push_str("}\n");
    s
}

/// A Mermaid label: quoted, every character but letters, digits, spaces and plain punctuation
/// written as an entity code, so nothing in it can end the string or be read as markup.
pub fn mermaid_label(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c.is_alphanumeric()
            || matches!(c, ' ' | '-' | '.' | ',' | ':' | '/' | '(' | ')' | '\'' | '+' | '%' | '?' | '!')
        {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
    out.push('"');
    out
}

/// The class name of a kind in Mermaid output.
fn mermaid_class(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Facet(FacetKind::RootCause) => "rootCause",
        NodeKind::Facet(FacetKind::Component) => "component",
        NodeKind::Facet(FacetKind::Symptom) => "symptom",
        NodeKind::Facet(FacetKind::ContributingFactor) => "factor",
        NodeKind::Case => "case",
    }
}

/// The neighbourhood as a Mermaid flowchart: cases as rectangles, values as stadiums, a class
/// per kind, the centre outlined thick.
pub fn to_mermaid(graph: &Graph, hood: &Neighbourhood) -> String {
    let mut s = String::from("flowchart LR\n");
    let index: std::collections::HashMap<NodeId, usize> =
        hood.nodes.iter().enumerate().map(|(i, (id, _))| (*id, i)).collect();
    for (i, &(id, _)) in hood.nodes.iter().enumerate() {
        let node = graph.node(id);
        let label = match node.kind() {
            NodeKind::Case => node.label.clone(),
            NodeKind::Facet(k) => format!("{} ({})", node.label, k.label().to_lowercase()),
        };
        let (open, close) = if node.kind() == NodeKind::Case { ("[", "]") } else { ("([", "])") };
        let _ = writeln!(s, "  n{i}{open}{}{close}:::{}", mermaid_label(&label), mermaid_class(node.kind()));
    }
    for (case, value) in &hood.edges {
        let _ = writeln!(s, "  n{} --- n{}", index[case], index[value]);
    }
    for kind in NodeKind::ALL {
        let _ = writeln!(
            s,
            "  classDef {} fill:{},stroke:#555555,color:#111111",
            mermaid_class(kind),
            fill(kind)
        );
    }
    s.push_str("  style n0 stroke-width:3px\n");
    s
}

/// The neighbourhood as JSON: `center`, `depth`, `nodes` (`id`, `kind`, `label`, `distance`),
/// `edges` (`source` case, `target` value) and `related` (`id`, `kind`, `label`, `score`,
/// `shared`: ids).
pub fn to_json(graph: &Graph, hood: &Neighbourhood, related: &[Related]) -> Value {
    let id = |n: NodeId| graph.node(n).key.to_string();
    json!({
        "center": id(hood.centre),
        "depth": hood.depth,
        "nodes": hood.nodes.iter().map(|&(n, d)| {
            let node = graph.node(n);
            json!({ "id": id(n), "kind": node.kind(), "label": node.label, "distance": d })
        }).collect::<Vec<_>>(),
        "edges": hood.edges.iter().map(|&(c, v)| json!({ "source": id(c), "target": id(v) })).collect::<Vec<_>>(),
        "related": related.iter().map(|r| {
            let node = graph.node(r.node);
            json!({
                "id": id(r.node),
                "kind": node.kind(),
                "label": node.label,
                // Rounded so the output does not churn in the last digit across platforms.
                "score": (r.score * 1e4).round() / 1e4,
                "shared": r.shared.iter().map(|&n| id(n)).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::tests::{case, small};

    #[test]
    fn dot_strings_escape_quotes_and_backslashes() {
        for (input, want) in [
            ("plain", "\"plain\""),
            ("say \"hi\"", "\"say \\\"hi\\\"\""),
            ("a\\nb", "\"a\\\\nb\""),
            ("}; digraph x {", "\"}; digraph x {\""),
        ] {
            assert_eq!(dot_string(input), want, "{input}");
        }
    }

    #[test]
    fn mermaid_labels_cannot_break_out() {
        for (input, want) in [
            ("NCCL", "\"NCCL\""),
            ("Training data loader (component)", "\"Training data loader (component)\""),
            ("a \"quoted\" <b>bold</b> #1", "\"a #34;quoted#34; #60;b#62;bold#60;/b#62; #35;1\""),
            ("x]; end; y[", "\"x#93;#59; end#59; y#91;\""),
            ("`md` & *it*", "\"#96;md#96; #38; #42;it#42;\""),
            ("日本語", "\"日本語\""),
        ] {
            assert_eq!(mermaid_label(input), want, "{input}");
        }
    }

    #[test]
    fn json_has_nodes_edges_and_related() {
        let g = Graph::build(&small());
        let a = g.case_node("a").unwrap();
        let hood = g.neighbourhood(a, 1);
        let v = to_json(&g, &hood, &g.related(a, 2));
        assert_eq!(v["center"], "a");
        assert_eq!(v["nodes"][0], json!({"id": "a", "kind": "case", "label": "Title of a", "distance": 0}));
        assert_eq!(
            v["nodes"][1],
            json!({"id": "root_cause:Uneven work", "kind": "root_cause", "label": "Uneven work", "distance": 1})
        );
        assert_eq!(v["edges"].as_array().unwrap().len(), 4);
        assert_eq!(v["edges"][0], json!({"source": "a", "target": "root_cause:Uneven work"}));
        assert_eq!(v["related"][0]["id"], "c");
        assert_eq!(v["related"][0]["shared"], json!(["component:NCCL", "symptom:Hang", "component:GPU"]));
    }

    #[test]
    fn text_groups_by_distance_and_kind_and_explains() {
        let g = Graph::build(&small());
        let a = g.case_node("a").unwrap();
        let text = to_text(&g, &g.neighbourhood(a, 1), &g.related(a, 10), 80);
        assert_eq!(
            text,
            "Title of a\n\
             a · 4 facet values\n\
             \n\
             At 1 hop: 4 nodes\n  Root cause\n    Uneven work (2 cases)\n  Component\n    GPU (4 cases)\n    NCCL (2 cases)\n  Symptom\n    Hang (2 cases)\n\
             \n\
             Related cases (by shared facet values, rarer ones weighing more)\n\
             \x20  1. Title of c\n      c\n      shares NCCL (component), Hang (symptom), GPU (component)\n\
             \x20  2. Title of b\n      b\n      shares Uneven work (root cause), GPU (component)\n\
             \x20  3. Title of d\n      d\n      shares GPU (component)\n"
        );
    }

    #[test]
    fn mermaid_is_one_statement_per_line() {
        let mut cases = small();
        cases.push(case("q", &[(FacetKind::Component, "GPU \"]; click n0 call x()")]));
        let g = Graph::build(&cases);
        let m = to_mermaid(&g, &g.neighbourhood(g.case_node("q").unwrap(), 2));
        assert!(m.starts_with("flowchart LR\n"));
        assert!(m.lines().skip(1).all(|l| l.starts_with("  ")));
        let odd = m.lines().find(|l| l.contains("click")).unwrap();
        assert_eq!(odd.matches('"').count(), 2, "the label stays one quoted string: {odd}");
        assert!(odd.ends_with("\"]):::component"), "{odd}");
    }
}
