//! Benchmarks of the graph and the checklist: building the graph, a case's related cases, a
//! neighbourhood, the pane's layout, and a component's checklist — on the bundled library and
//! on a synthetic library of 100,000 cases (the bundled cases repeated under new ids, so the
//! facet values keep their real spread).
//!
//! Run with `cargo bench --bench graph`.

use std::sync::LazyLock;

use divan::{Bencher, black_box};
use incidex::{
    checklist::{self, Request},
    corpus::filter::Filters,
    corpus::{Case, Library},
    graph::{
        Graph,
        layout::layout,
        picture::{MAX_INNER, MAX_OUTER},
    },
};

fn main() {
    divan::main();
}

static BUNDLED: LazyLock<Vec<Case>> = LazyLock::new(|| Library::bundled().cases.into_vec());

static LARGE: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let base = &*BUNDLED;
    (0..100_000)
        .map(|i| {
            let mut case = base[i % base.len()].clone();
            case.id = format!("{}-{i}", case.id);
            case
        })
        .collect()
});

fn cases(size: &str) -> &'static [Case] {
    if size == "bundled" { &BUNDLED } else { &LARGE }
}

const SIZES: [&str; 2] = ["bundled", "100k"];

#[divan::bench(args = SIZES)]
fn build(bencher: Bencher, size: &str) {
    let cases = cases(size);
    bencher.bench(|| Graph::build(black_box(cases)));
}

/// The related cases of the library's first case (newest), as the case pane shows them.
#[divan::bench(args = SIZES)]
fn related_top5(bencher: Bencher, size: &str) {
    let graph = Graph::build(cases(size));
    let first = graph.case_node(&cases(size)[0].id).expect("a case");
    bencher.bench(|| graph.related(black_box(first), 5));
}

/// What the graph pane computes when it recentres on a case: the picture and its layout.
#[divan::bench(args = SIZES)]
fn recentre_and_layout_80x24(bencher: Bencher, size: &str) {
    let graph = Graph::build(cases(size));
    let first = graph.case_node(&cases(size)[0].id).expect("a case");
    bencher.bench(|| {
        let picture = graph.picture(black_box(first), MAX_INNER, MAX_OUTER);
        let inner: Vec<&str> = picture.inner.iter().map(|&n| graph.node(n).label.as_str()).collect();
        let outer: Vec<(&str, Vec<usize>)> = picture
            .outer
            .iter()
            .zip(&picture.links)
            .map(|(r, l)| (graph.node(r.node).label.as_str(), l.clone()))
            .collect();
        layout(&graph.node(first).label, &inner, &outer, 78, 20)
    });
}

#[divan::bench(args = SIZES)]
fn neighbourhood_depth2(bencher: Bencher, size: &str) {
    let graph = Graph::build(cases(size));
    let first = graph.case_node(&cases(size)[0].id).expect("a case");
    bencher.bench(|| graph.neighbourhood(black_box(first), 2));
}

#[divan::bench(args = SIZES)]
fn checklist_nccl(bencher: Bencher, size: &str) {
    let cases = cases(size);
    let filters = Filters::default();
    let request = Request { component: "NCCL", filters: &filters, version: "bench", date: "2025-01-01" };
    bencher.bench(|| checklist::to_markdown(&checklist::build(black_box(cases), &request)));
}
