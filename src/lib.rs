//! incidex: a terminal UI and command-line tool over a curated library of public
//! AI/ML-infrastructure incident reports.
//!
//! The modules are the layers of the house, lowest first; each may use the ones listed before it
//! and never one after it (`tests/layers.rs` holds this). `ARCHITECTURE.md`, at the top of the
//! repository, walks a keystroke, a case file and a log through them.
//!
//! - the ground: [`text`] (hygiene, words, columns, numbers, Markdown escaping, the clock) and
//!   [`support`] (diagnostics, errors, progress, positioned TOML fields, atomic export);
//! - the model: [`taxonomy`] (the vocabulary and its facet kinds), then [`corpus`] (the cases,
//!   their loading and checking, filters and facet counts);
//! - the engines, each knowing the model and nothing above it: [`search`], [`graph`], [`logs`],
//!   [`checklist`], [`doctor`] (the node audit); beside them, [`settings`] (config and themes, which both fronts read);
//! - the [`store`]: the library baked at build time and the on-disk cache;
//! - the fronts, siblings that never import each other: [`cli`] and [`commands`], and [`tui`].

pub mod checklist;
pub mod cli;
pub mod commands;
pub mod corpus;
pub mod doctor;
pub mod graph;
pub mod logs;
pub mod search;
pub mod settings;
pub mod store;
pub mod support;
pub mod taxonomy;
pub mod text;
pub mod tui;

pub use support::error::{Error, Result};

// Synthetic libraries are benchmark code (`benches/support/`), written against the public API as
// `incidex::...`; the unit tests that need a large library compile them in too.
#[cfg(test)]
extern crate self as incidex;
#[cfg(test)]
#[path = "../benches/support/synthetic.rs"]
mod synthetic;

/// What `--version` prints after the program name: the program's and the library's versions.
pub static VERSION_LINE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("{} ({})", env!("CARGO_PKG_VERSION"), corpus::load::library_version())
});
