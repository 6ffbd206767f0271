//! `incidex graph NODE`: the neighbourhood of a case or facet value, as text, Graphviz DOT,
//! a Mermaid flowchart or JSON, with the related nodes and why they are related.

use std::io::Write;

use crate::{
    cli::{GraphArgs, GraphFormat},
    commands::{stdout_error, text_width, write_json},
    corpus::Library,
    graph::{Graph, format},
    support::error::Result,
};

/// Print the neighbourhood of `args.node` to `args.depth` hops in the format asked for.
pub fn run(args: &GraphArgs, library: &Library, out: &mut dyn Write) -> Result<()> {
    let graph = Graph::build(&library.cases);
    let located = graph.resolve(&library.taxonomy, &args.node)?;
    crate::commands::print_notes(located.note.as_slice());
    let centre = located.id;
    let hood = graph.neighbourhood(centre, usize::from(args.depth));
    let text = match args.format() {
        GraphFormat::Json => {
            let related = graph.related(centre, format::RELATED_LIMIT);
            return write_json(out, &format::to_json(&graph, &hood, &related));
        }
        GraphFormat::Text => {
            let related = graph.related(centre, format::RELATED_LIMIT);
            format::to_text(&graph, &hood, &related, text_width())
        }
        GraphFormat::Dot => format::to_dot(&graph, &hood),
        GraphFormat::Mermaid => format::to_mermaid(&graph, &hood),
    };
    out.write_all(text.as_bytes()).map_err(stdout_error)
}
