//! The command line, as clap derive types. The doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Explore a library of public AI/ML-infrastructure incident reports: type what you see, get the
/// past cases that match, their detection and remediation, and the action items to take.
///
/// With no command, opens the interactive terminal UI.
#[derive(Debug, Parser)]
#[command(name = "incidex", version = crate::VERSION_LINE.as_str(), about, long_about)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// The command to run; none opens the terminal UI.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options every command takes.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Add a library directory of your own cases (repeatable; also $INCIDEX_DATA, colon-separated,
    /// and `data = [...]` in the config file).
    #[arg(long = "data", value_name = "DIR", global = true)]
    pub data: Vec<PathBuf>,

    /// Leave the bundled library out.
    #[arg(long, global = true)]
    pub no_bundled: bool,

    /// Colour theme: a bundled or user theme name, or a path to a theme file.
    #[arg(long, value_name = "NAME|PATH", global = true)]
    pub theme: Option<String>,

    /// Turn on mouse support in the terminal UI (click to select, wheel to scroll).
    #[arg(long, global = true)]
    pub mouse: bool,

    /// Bring back the last query, filters, selection and pane in the terminal UI.
    #[arg(long, global = true)]
    pub resume: bool,
}

/// The non-interactive commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every case, newest first.
    List(ListArgs),
    /// Show one case.
    Show(ShowArgs),
    /// List facet values with the number of cases tagged with each.
    Facets(FacetsArgs),
    /// Validate libraries: every problem as path:line:column; exit 1 when there is an error.
    Check(CheckArgs),
    /// Print shell completions.
    Completions(CompletionsArgs),
}

/// `incidex list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How `show` prints a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowFormat {
    /// Wrapped plain text.
    Text,
    /// The case as JSON, with the data file's field names.
    Json,
    /// Markdown, for a ticket or a wiki.
    Markdown,
}

/// `incidex show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The case id.
    pub id: String,
    /// Print JSON.
    #[arg(long, conflicts_with = "markdown")]
    pub json: bool,
    /// Print Markdown.
    #[arg(long)]
    pub markdown: bool,
}

impl ShowArgs {
    /// The format asked for.
    pub fn format(&self) -> ShowFormat {
        if self.json {
            ShowFormat::Json
        } else if self.markdown {
            ShowFormat::Markdown
        } else {
            ShowFormat::Text
        }
    }
}

/// `incidex facets`.
#[derive(Debug, Args)]
pub struct FacetsArgs {
    /// One kind only: root_cause, component, symptom or contributing_factor.
    pub kind: Option<String>,
    /// Include values no case uses.
    #[arg(long)]
    pub all: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `incidex check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Library directories to check; none checks the bundled library.
    pub dirs: Vec<PathBuf>,
    /// Treat warnings (such as facet values missing from the taxonomy) as errors.
    #[arg(long)]
    pub strict: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `incidex completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    pub shell: clap_complete::Shell,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
