//! The ground floor: text as every layer above handles it, knowing nothing of cases, the
//! taxonomy, search or the screen.
//!
//! - [`hygiene`]: what may reach a terminal (re-exported here: `text::sanitize`, `text::one_line`);
//! - [`words`]: cutting and stemming words, the one way search, the matcher and the log reader agree on;
//! - [`resolve`]: the one resolver for values people type;
//! - [`columns`]: fitting text to terminal columns;
//! - [`numbers`]: counts and sizes as people read them;
//! - [`markdown`]: writing text into Markdown safely;
//! - [`clock`]: today's date, reproducible under `$SOURCE_DATE_EPOCH`.
//!
//! May use: the standard library and plain crates. Nothing of `crate` outside this folder.

pub mod clock;
pub mod columns;
pub mod hygiene;
pub mod markdown;
pub mod numbers;
pub mod resolve;
pub mod words;

pub use hygiene::*;
