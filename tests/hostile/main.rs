//! The hostile suite: incidex as its users meet it — over SSH and in tmux, with hostile
//! libraries, damaged caches and dying terminals. Every input is built when the test runs
//! (escape payloads in every field, file name and taxonomy value; link loops, FIFOs and device
//! nodes; each kind of damage to each file of a cache entry; a 10 MB paste; a resize with no key
//! pressed; a terminal that closes; a stderr that cannot be written), and every test asserts the
//! outcome: the exit code, output identical to a clean run, no escape byte from content, and time
//! and CPU bounds generous enough for a loaded two-core machine.
//!
//! Each module is one kind of hostility; `support` runs the binary and builds the inputs.

#[path = "../pty_support/mod.rs"]
mod pty_support;

mod cache;
mod echo;
mod exits;
mod files;
mod keys;
mod large;
mod library;
mod support;
mod terminal;
mod tmux;
mod width;
