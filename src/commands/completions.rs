//! `incidex completions SHELL`: shell completion scripts from the clap definition.

use std::io::Write;

use clap::CommandFactory;

use crate::{cli::Cli, commands::stdout_error, support::error::Result};

/// Print the completion script for `shell`. The script is made in memory first: clap_complete
/// panics when its writer fails, and a closed pipe (`| head -1`) is not an error.
pub fn run(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "incidex", &mut script);
    out.write_all(&script).map_err(stdout_error)
}
