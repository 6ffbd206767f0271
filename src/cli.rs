//! The command line, as clap derive types. The doc comments are the `--help` text.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub use crate::settings::config::GlobalArgs;

/// Explore a library of public AI/ML-infrastructure incident reports: type what you see, get the
/// past cases that match, their detection and remediation, and the action items to take.
///
/// With no command, opens the interactive terminal UI; given job specs (`incidex train.sbatch`),
/// it opens on their preflight findings.
#[derive(Debug, Parser)]
#[command(name = "incidex", version = crate::VERSION_LINE.as_str(), about, long_about, subcommand_precedence_over_arg = true)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// Job specs to open the terminal UI on (batch scripts, Kubernetes manifests, env files,
    /// launch lines; a directory is walked): their preflight findings are the first view, and
    /// each leads to its cases. `incidex doctor FILE...` prints them instead.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The command to run; none opens the terminal UI.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The non-interactive commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every case, newest first.
    #[command(after_help = examples::LIST)]
    List(ListArgs),
    /// Show one case.
    #[command(after_help = examples::SHOW)]
    Show(ShowArgs),
    /// List facet values with the number of cases tagged with each.
    #[command(after_help = examples::FACETS)]
    Facets(FacetsArgs),
    /// Show the neighbourhood of a case or facet value in the case <-> facet-value graph, with
    /// the related cases and why they are related.
    #[command(after_help = examples::GRAPH)]
    Graph(GraphArgs),
    /// Export a component's action items as a markdown checklist (to stdout or a file).
    ///
    /// The first --component names the component (required); the other filter flags narrow the
    /// cases. Example: incidex checklist --component nccl --symptom hang -o nccl.md
    #[command(after_help = examples::CHECKLIST)]
    Checklist(ChecklistArgs),
    /// Search the cases: a sentence in your words, inline filters, or flags.
    #[command(after_help = examples::SEARCH)]
    Search(SearchArgs),
    /// Triage a job log file, a dmesg, kubectl output, or pasted lines (or a sentence): the lines
    /// that stand out, suggested filters and the best matching cases.
    #[command(after_help = examples::TRIAGE)]
    Triage(TriageArgs),
    /// Validate libraries: every problem as path:line:column; exit 1 when there is an error.
    #[command(after_help = examples::CHECK)]
    Check(CheckArgs),
    /// Audit this node for the gaps the cases show, or check job specs before they run
    /// (`incidex doctor FILE...`): read-only; every finding cites its cases.
    ///
    /// Exit status: 0 nothing at or above --fail-on, 1 the audit failed (or a file could not be
    /// read), 2 usage error, 3 a finding at or above --fail-on.
    #[command(after_help = examples::DOCTOR)]
    Doctor(DoctorArgs),
    /// Print shell completions.
    #[command(after_help = examples::COMPLETIONS)]
    Completions(CompletionsArgs),
    /// Print a Markdown postmortem template (front matter with every field, every section) to
    /// start your own from: `incidex template > postmortems/2025-01-15-what-broke.md`.
    #[command(after_help = examples::TEMPLATE)]
    Template,
    /// List the colour themes (bundled and your own), marking the one in use.
    #[command(after_help = examples::THEMES)]
    Themes(ThemesArgs),
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
    #[arg(value_parser = offer::Offered(offer::case_ids), hide_possible_values = true)]
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
    /// Count only cases under these filters.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `incidex search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// What you see, in your words. May hold inline filters: component:nccl, org:meta,
    /// year:2024, after:2024-06, before:2025, symptom:"training job failure", and negated ones
    /// such as -root:overheating (quote the sentence, or put it after --, when it starts with -).
    #[arg(value_name = "SENTENCE")]
    pub sentence: Vec<String>,
    /// Only cases under these filters.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Show at most this many cases.
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = at_least_one)]
    pub limit: usize,
    /// Skip this many cases first (for paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// List the weaker matches too, after the cases that really match the sentence.
    #[arg(long)]
    pub all: bool,
    /// Print JSON (the contract is in the README).
    #[arg(long)]
    pub json: bool,
}

/// `incidex triage`.
#[derive(Debug, Args)]
pub struct TriageArgs {
    /// Log files (plain or gzip, UTF-8 or UTF-16, any size; FIFOs and `/dev/fd/N` too), `-`
    /// for stdin (`dmesg | incidex triage -`), or a sentence or log line. When an argument names
    /// a file (it exists, is `-`, or is one word with a `/` or ending in .log, .out, .err, .txt
    /// or .gz), every argument is read as a log; otherwise the words are the text. Inline filter
    /// syntax is not read here: a log line is taken as it is.
    #[arg(value_name = "FILE | - | TEXT")]
    pub inputs: Vec<std::ffi::OsString>,
    /// Take the arguments as text, even those that name files.
    #[arg(long)]
    pub text: bool,
    /// Only cases under these filters.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Show at most this many cases.
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = at_least_one)]
    pub limit: usize,
    /// List the weaker matches too, after the cases that really match.
    #[arg(long)]
    pub all: bool,
    /// Print JSON (the same contract as `search --json`, with `evidence` and `read`).
    #[arg(long)]
    pub json: bool,
}

/// Filters shared by the commands that take them: every value must hold.
#[derive(Debug, Args, Clone, Default)]
pub struct FilterArgs {
    /// Only cases with this component (name or alias; repeatable; prefix with - to exclude).
    #[arg(long, value_name = "V", allow_hyphen_values = true, hide_possible_values = true,
          value_parser = offer::Offered(offer::component_values))]
    pub component: Vec<String>,
    /// Only cases with this symptom (repeatable; prefix with - to exclude).
    #[arg(long, value_name = "V", allow_hyphen_values = true, hide_possible_values = true,
          value_parser = offer::Offered(offer::symptom_values))]
    pub symptom: Vec<String>,
    /// Only cases with this root cause (repeatable; prefix with - to exclude).
    #[arg(long, value_name = "V", allow_hyphen_values = true, hide_possible_values = true,
          value_parser = offer::Offered(offer::root_cause_values))]
    pub root_cause: Vec<String>,
    /// Only cases with this contributing factor (repeatable; prefix with - to exclude).
    #[arg(long, value_name = "V", allow_hyphen_values = true, hide_possible_values = true,
          value_parser = offer::Offered(offer::factor_values))]
    pub factor: Vec<String>,
    /// Only cases from this organization (repeatable: any of them).
    #[arg(long, value_name = "ORG")]
    pub org: Vec<String>,
    /// Only cases on or after this date (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub after: Option<String>,
    /// Only cases on or before this date (YYYY, YYYY-MM or YYYY-MM-DD).
    #[arg(long, value_name = "DATE")]
    pub before: Option<String>,
}

impl FilterArgs {
    /// Resolve the flags into [`crate::corpus::filter::Filters`] through the one resolver: facet values
    /// through the taxonomy, `--org` through `organizations` (the library's own spellings). An
    /// unknown value is a usage error naming the nearest valid values; what a value was read as
    /// when it was not exact (`--component nccll` as NCCL) is added to `notes`.
    pub fn to_filters(
        &self,
        taxonomy: &crate::taxonomy::Taxonomy,
        organizations: &[String],
        notes: &mut Vec<String>,
    ) -> crate::Result<crate::corpus::filter::Filters> {
        use crate::taxonomy::FacetKind;
        let mut filters = crate::corpus::filter::Filters::default();
        for (kind, values) in [
            (FacetKind::Component, &self.component),
            (FacetKind::Symptom, &self.symptom),
            (FacetKind::RootCause, &self.root_cause),
            (FacetKind::ContributingFactor, &self.factor),
        ] {
            for v in values {
                let (negated, v) = match v.strip_prefix('-') {
                    Some(rest) => (true, rest),
                    None => (false, v.as_str()),
                };
                notes.extend(filters.add_facet(taxonomy, kind, v, negated)?);
            }
        }
        for typed in &self.org {
            let org = crate::search::query::resolve_org(typed, organizations)
                .map_err(|(message, _)| crate::Error::Usage(format!("--org: {message}")))?;
            notes.extend(org.note);
            if !filters.organizations.contains(&org.name) {
                filters.organizations.push(org.name);
            }
        }
        let date = |s: &Option<String>, flag: &str| -> crate::Result<_> {
            s.as_deref()
                .map(|d| d.parse().map_err(|e| crate::Error::Usage(format!("--{flag}: {e}"))))
                .transpose()
        };
        filters.after = date(&self.after, "after")?;
        filters.before = date(&self.before, "before")?;
        Ok(filters)
    }
}

/// How `graph` prints a neighbourhood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// Readable text: the nodes by distance and kind, then the related nodes and why.
    Text,
    /// Graphviz DOT (render with `dot -Tsvg`).
    Dot,
    /// A Mermaid flowchart (paste into GitHub Markdown in a ```mermaid block).
    Mermaid,
    /// JSON: center, depth, nodes (id, kind, label, distance), edges (source, target), related.
    Json,
}

/// `incidex graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// A case id, or a facet value as kind:value (`component:NCCL`, `symptom:hung`,
    /// `root:"uneven work"`); names and aliases resolve, and a value alone works when only one
    /// kind has it.
    #[arg(value_parser = offer::Offered(offer::graph_nodes), hide_possible_values = true)]
    pub node: String,
    /// How many hops from the node to include (0 to 6).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(0..=6))]
    pub depth: u8,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    pub format: GraphFormat,
    /// Print JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl GraphArgs {
    /// The format asked for.
    pub fn format(&self) -> GraphFormat {
        if self.json { GraphFormat::Json } else { self.format }
    }
}

/// How `checklist` writes the checklist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChecklistFormat {
    /// GitHub-flavoured Markdown: a task list grouped by type.
    Md,
    /// JSON: component, filters, version, date, cases, item_count, groups.
    Json,
}

/// `incidex checklist`.
#[derive(Debug, Args)]
pub struct ChecklistArgs {
    /// The component is the first --component; every other flag narrows the cases.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Write to FILE instead of stdout (atomically; an existing file only with --force).
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace FILE when it exists.
    #[arg(long)]
    pub force: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ChecklistFormat::Md)]
    pub format: ChecklistFormat,
    /// Print JSON (the same as --format json).
    #[arg(long, conflicts_with = "format")]
    pub json: bool,
}

impl ChecklistArgs {
    /// The format asked for.
    pub fn format(&self) -> ChecklistFormat {
        if self.json { ChecklistFormat::Json } else { self.format }
    }
}

/// `incidex check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Library directories to check; none checks the libraries in use (the config's `data`,
    /// $INCIDEX_DATA, --data), or the bundled library when there are none.
    pub dirs: Vec<PathBuf>,
    /// Treat warnings (such as facet values missing from the taxonomy) as errors.
    #[arg(long)]
    pub strict: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// `incidex themes`.
#[derive(Debug, Args)]
pub struct ThemesArgs {
    /// The theme to mark as in use: a bundled or user theme name, or a path to a theme file
    /// (also `--theme` before the command, and `theme` in the config).
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,
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

/// A count of at least one (`--limit 0` would show nothing, and used to blame `--offset`).
fn at_least_one(value: &str) -> std::result::Result<usize, String> {
    match value.parse::<usize>() {
        Ok(0) => Err("it must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}

/// `incidex doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// Job specs to check before they run instead of this node: Slurm batch scripts,
    /// Kubernetes manifests, env files, `docker run` or `torchrun` lines (a directory is walked
    /// for .yaml, .yml, .json, .sh, .sbatch, .slurm and .env files; `-` reads standard input).
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Output: text, json (the same as --json) or sarif (SARIF 2.1.0, job specs only).
    #[arg(long, value_name = "FORMAT", default_value = "text", value_parser = ["text", "json", "sarif"])]
    pub format: String,
    /// Silence a rule for job specs: RULE, or RULE:GLOB for the files a glob matches
    /// (repeatable; `incidex: ignore RULE` in a file does the same for that file).
    #[arg(long, value_name = "RULE[:GLOB]")]
    pub ignore: Vec<String>,
    /// Read the node's files under DIR (`/host` in a pod with the host's directories mounted
    /// read-only); commands run only when DIR is /.
    #[arg(long, value_name = "DIR", default_value = "/")]
    pub root: PathBuf,
    /// Audit a saved snapshot, or an nvidia-bug-report.log(.gz), instead of this node.
    #[arg(long, value_name = "FILE")]
    pub from: Option<PathBuf>,
    /// Write what was read to FILE, a text archive that --from reads back (never over an
    /// existing file without --force).
    #[arg(long, value_name = "FILE")]
    pub save_snapshot: Option<PathBuf>,
    /// Replace the --save-snapshot file if it exists.
    #[arg(long)]
    pub force: bool,
    /// Print a JSON document (schema_version 1) instead of text.
    #[arg(long)]
    pub json: bool,
    /// List every check and preflight rule: id, what it needs, how many cases it cites, what it
    /// looks for.
    #[arg(long)]
    pub list: bool,
    /// Run only these checks (comma-separated ids).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub only: Vec<String>,
    /// Leave these checks out (comma-separated ids).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    pub skip: Vec<String>,
    /// Exit 3 when a check ends at this level or worse: crit, warn, info or unknown.
    #[arg(long, value_name = "LEVEL", default_value = "crit")]
    pub fail_on: String,
    /// Each command's timeout, in seconds (a timeout is itself a finding).
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub timeout: u64,
    /// Also list the checks that passed or do not apply, with what each looked at.
    #[arg(long)]
    pub all: bool,
}

/// The EXAMPLES of each command's `--help` and man page: the commands an on-call engineer types.
/// `tests/first_hour.rs` runs every one of them (none may be a usage error).
pub mod examples {
    /// `incidex list`.
    pub const LIST: &str = "\
Examples:
  incidex list                     every case, newest first
  incidex list | grep -i nccl      the cases that name NCCL in their title or id
  incidex list --json              for jq and scripts";
    /// `incidex show`.
    pub const SHOW: &str = "\
Examples:
  incidex show 2026-09-b300-xid-145-nvlink-error-kills-vllm-tp-nccl-hangs
  incidex show 2026-09-b300-xid-145-nvlink-error-kills-vllm-tp-nccl-hangs --markdown   for a ticket
  incidex show 2026-09-b300-xid-145-nvlink-error-kills-vllm-tp-nccl-hangs --json";
    /// `incidex facets`.
    pub const FACETS: &str = "\
Examples:
  incidex facets                   every kind, with the number of cases of each value
  incidex facets component         one kind
  incidex facets symptom --all     with the values no case has yet";
    /// `incidex graph`.
    pub const GRAPH: &str = "\
Examples:
  incidex graph component:nccl               the cases with NCCL and the values found with it
  incidex graph 2026-09-b300-xid-145-nvlink-error-kills-vllm-tp-nccl-hangs --depth 2
  incidex graph symptom:hang --format dot | dot -Tsvg > hang.svg";
    /// `incidex checklist`.
    pub const CHECKLIST: &str = "\
Examples:
  incidex checklist --component nccl                     to stdout
  incidex checklist --component nccl --symptom hang -o nccl.md
  incidex checklist --component checkpointing --format json";
    /// `incidex search`.
    pub const SEARCH: &str = "\
Examples:
  incidex search \"NCCL timeout after 30 minutes\"
  incidex search \"job hung at the end of the epoch\" --symptom hang
  incidex search component:nccl after:2024 --limit 5
  incidex search \"xid 79\" --json";
    /// `incidex triage`.
    pub const TRIAGE: &str = "\
Examples:
  incidex triage slurm-1234.out                 a job's whole log (plain or gzip)
  kubectl logs pod/trainer-0 | incidex triage -
  dmesg | incidex triage -
  incidex triage \"NCCL WARN Timeout: rank 17 waited 1800 s\"";
    /// `incidex doctor`.
    pub const DOCTOR: &str = "\
Examples:
  incidex doctor                              audit this node (sudo for the checks that need root)
  incidex doctor --only gpu.xid,shm.size      a few checks
  incidex doctor --json --fail-on warn        in a Slurm prolog or CI
  incidex doctor train.sbatch                 check a job before sbatch
  incidex doctor --format sarif deploy/       check manifests in CI (code scanning)";
    /// `incidex check`.
    pub const CHECK: &str = "\
Examples:
  incidex check                    the libraries in use (--data, $INCIDEX_DATA, the config)
  incidex check postmortems/       one directory
  incidex check postmortems/ --strict --json";
    /// `incidex completions`.
    pub const COMPLETIONS: &str = "\
Examples:
  incidex completions bash > ~/.local/share/bash-completion/completions/incidex
  incidex completions zsh > ~/.local/share/zsh/site-functions/_incidex
  incidex completions fish > ~/.config/fish/completions/incidex.fish";
    /// `incidex template`.
    pub const TEMPLATE: &str = "\
Examples:
  incidex template > postmortems/2025-01-15-what-broke.md
  incidex check postmortems/       then check what you wrote";
    /// `incidex themes`.
    pub const THEMES: &str = "\
Examples:
  incidex themes                   the themes, the one in use marked
  incidex themes --theme mono      which theme --theme mono would use
  incidex themes --json";
}

/// What shell completion offers for values that are typed free-form: the bundled library's facet
/// values and case ids, known when the binary was built. The parser takes any text (the resolver
/// reads names, aliases and near spellings later, and a `-` in front excludes); only the
/// completion scripts (`incidex completions`) list the values, which are read from the bundled
/// library only when a script is written, never on an ordinary run.
pub mod offer {
    use std::{ffi::OsStr, sync::OnceLock};

    use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};

    use crate::{corpus::Library, taxonomy::FacetKind};

    /// A free-form value whose completions come from the function it holds.
    #[derive(Clone)]
    pub struct Offered(pub fn() -> &'static [&'static str]);

    impl TypedValueParser for Offered {
        type Value = String;

        fn parse_ref(
            &self,
            cmd: &clap::Command,
            arg: Option<&clap::Arg>,
            value: &OsStr,
        ) -> Result<String, clap::Error> {
            StringValueParser::new().parse_ref(cmd, arg, value)
        }

        fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
            Some(Box::new((self.0)().iter().map(|v| PossibleValue::new(*v))))
        }
    }

    /// The bundled library, opened once, for completion only.
    fn bundled() -> Option<&'static Library> {
        static LIBRARY: OnceLock<Option<Library>> = OnceLock::new();
        LIBRARY.get_or_init(|| crate::store::embedded::open().ok().map(|(library, _)| library)).as_ref()
    }

    /// `strings`, leaked once for the life of the process (completion scripts are written once).
    fn leak(strings: Vec<String>) -> &'static [&'static str] {
        let leaked: Vec<&'static str> =
            strings.into_iter().map(|s| &*Box::leak(s.into_boxed_str())).collect();
        Box::leak(leaked.into_boxed_slice())
    }

    /// The values of `kind` as words a shell needs no quotes for: `Training-data-loader`,
    /// `Container-networking-CNI` (the resolver ignores `-` and spacing, and reads the rest).
    fn values(kind: FacetKind) -> Vec<String> {
        let word = |name: &str| -> String {
            name.split_whitespace()
                .map(|w| w.chars().filter(|c| c.is_alphanumeric() || "-_.".contains(*c)).collect::<String>())
                .filter(|w| !w.is_empty())
                .collect::<Vec<_>>()
                .join("-")
        };
        bundled().map_or_else(Vec::new, |l| l.taxonomy.values_of(kind).map(|v| word(&v.name)).collect())
    }

    /// The bundled case ids, newest first.
    pub fn case_ids() -> &'static [&'static str] {
        static IDS: OnceLock<&'static [&'static str]> = OnceLock::new();
        IDS.get_or_init(|| {
            leak(bundled().map_or_else(Vec::new, |l| l.cases.iter().map(|c| c.id.clone()).collect()))
        })
    }

    /// The case ids and every facet value as `kind:value`.
    pub fn graph_nodes() -> &'static [&'static str] {
        static NODES: OnceLock<&'static [&'static str]> = OnceLock::new();
        NODES.get_or_init(|| {
            let mut nodes: Vec<String> = case_ids().iter().map(|s| s.to_string()).collect();
            for kind in FacetKind::ALL {
                nodes.extend(values(kind).into_iter().map(|v| format!("{}:{v}", kind.key())));
            }
            leak(nodes)
        })
    }

    macro_rules! of_kind {
        ($name:ident, $kind:expr) => {
            #[doc = concat!("The bundled taxonomy's values of `", stringify!($kind), "`.")]
            pub fn $name() -> &'static [&'static str] {
                static VALUES: OnceLock<&'static [&'static str]> = OnceLock::new();
                VALUES.get_or_init(|| leak(values($kind)))
            }
        };
    }
    of_kind!(component_values, FacetKind::Component);
    of_kind!(symptom_values, FacetKind::Symptom);
    of_kind!(root_cause_values, FacetKind::RootCause);
    of_kind!(factor_values, FacetKind::ContributingFactor);
}
