//! `incidex completions SHELL`: shell completion scripts from the clap definition, offering the
//! bundled library's case ids and facet values where a command takes one (`cli::offer`).

use std::io::Write;

use clap::CommandFactory;

use crate::{cli::Cli, commands::stdout_error, support::error::Result};

/// Print the completion script for `shell`. The script is made in memory first: clap_complete
/// panics when its writer fails, and a closed pipe (`| head -1`) is not an error.
pub fn run(shell: clap_complete::Shell, out: &mut dyn Write) -> Result<()> {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "incidex", &mut script);
    if shell == clap_complete::Shell::Fish {
        fish_positionals(&mut script);
    }
    out.write_all(&script).map_err(stdout_error)
}

/// clap_complete's fish script completes the values of options only; add those of the
/// commands' positional arguments (`show ID`, `graph NODE`) in fish's own form.
fn fish_positionals(script: &mut Vec<u8>) {
    let cmd = Cli::command();
    for sub in cmd.get_subcommands() {
        for arg in sub.get_positionals() {
            let values = arg.get_possible_values();
            if values.is_empty() {
                continue;
            }
            let words: Vec<&str> = values.iter().map(|v| v.get_name()).collect();
            // Values are bare words (ids, `kind:Value`), so a space-separated list needs no quotes.
            let _ = writeln!(
                script,
                "complete -c incidex -n \"__fish_incidex_using_subcommand {}\" -f -a \"{}\"",
                sub.get_name(),
                words.join(" ")
            );
        }
    }
}
