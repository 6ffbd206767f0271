//! The case library: the model, reading case files and Markdown postmortems (with a team's
//! defaults), loading the bundled and user libraries, and checking them.

pub mod body;
pub mod bundled;
pub mod cases;
pub mod check;
pub mod headings;
pub mod infer;
pub mod listing;
pub mod load;
pub mod markdown;
pub mod model;
pub mod parse;
pub mod placeholders;
pub mod team;

pub use load::{Library, LoadOptions};
pub use model::{Case, CaseBody, FacetKind};
