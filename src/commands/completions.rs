//! `incidex completions SHELL`: shell completion scripts from the clap definition.

use std::io::Write;

use clap::CommandFactory;

use crate::{cli::Cli, error::Result};

/// Print the completion script for `shell`.
pub fn run(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<()> {
    clap_complete::generate(shell, &mut Cli::command(), "incidex", out);
    Ok(())
}
