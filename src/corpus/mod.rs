//! The case library: the model, reading case files and Markdown postmortems (with a team's
//! defaults), loading the bundled and user libraries, checking them, and the two things every
//! front asks of a set of cases: which of them a set of filters keeps ([`filter`]) and how many
//! carry each facet value ([`facet_counts`]).
//!
//! The model's upper half: it is built on the vocabulary ([`crate::taxonomy`]) and the ground
//! ([`crate::text`], [`crate::support`]), and knows nothing of search, the graph, the store or
//! the screen.

pub mod basis;
pub mod body;
pub mod bundled;
pub mod cases;
pub mod check;
pub mod content;
pub mod date;
pub mod facet_counts;
pub mod filter;
pub mod headings;
pub mod infer;
pub mod learned;
pub mod listing;
pub mod load;
pub mod markdown;
pub mod mention;
pub mod model;
pub mod parse;
pub mod parts;
pub mod placeholders;
pub mod team;

pub use load::{Library, LoadOptions};
pub use model::{Case, CaseBody};
