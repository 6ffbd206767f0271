//! incidex: a terminal UI and command-line tool over a curated library of public
//! AI/ML-infrastructure incident reports.
//!
//! The library half holds everything that is not the terminal: the case model and loading
//! ([`corpus`]), the taxonomy ([`taxonomy`]), text hygiene ([`text`]), diagnostics ([`diag`]),
//! settings ([`config`]), themes ([`theme`]) and the commands ([`commands`]). Only [`tui`] talks
//! to a terminal.

pub mod cache;
pub mod checklist;
pub mod cli;
pub mod clock;
pub mod columns;
pub mod commands;
pub mod config;
pub mod corpus;
pub mod diag;
pub mod embedded;
pub mod error;
pub mod export;
pub mod facet_counts;
pub mod filter;
pub mod graph;
pub mod logs;
pub mod markdown;
pub mod numbers;
pub mod osc52;
pub mod progress;
pub mod resolve;
pub mod search;
pub mod synthetic;
pub mod taxonomy;
pub mod text;
pub mod theme;
pub mod toml_fields;
pub mod tui;
pub mod words;

pub use error::{Error, Result};

/// What `--version` prints after the program name: the program's and the library's versions.
pub static VERSION_LINE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!("{} ({})", env!("CARGO_PKG_VERSION"), corpus::load::library_version())
});
