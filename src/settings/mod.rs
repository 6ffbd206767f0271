//! Settings both fronts read: the config file, the environment and the global flags
//! ([`config`]), and the colour themes ([`theme`], plain data: colours and modifiers, no terminal).
//!
//! Settings sit below the store and the fronts and beside the engines: they may use the model
//! ([`crate::corpus`], [`crate::taxonomy`]) and the ground, and no engine, store or front.

pub mod config;
pub mod theme;
