//! Settings: built-in defaults, then `$XDG_CONFIG_HOME/incidex/config.toml`, then the
//! environment (`INCIDEX_DATA`, `NO_COLOR`, `TERM`), then flags — each overriding the last,
//! except library directories, which add up (config, then environment, then flags) so a team
//! directory in the config and a scratch directory on the command line are both loaded.
//!
//! This module reads the config file and the environment; it writes nothing.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Deserialize;

use crate::{
    support::diag::{Diagnostic, LineIndex, Severity},
    support::error::{Error, Result},
};

/// The config file's keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    theme: Option<String>,
    mouse: Option<bool>,
    hyperlinks: Option<Hyperlinks>,
    #[serde(default)]
    data: Vec<PathBuf>,
    #[serde(default)]
    ignore: Vec<Ignore>,
}

/// When the terminal UI makes the case pane's source addresses OSC 8 hyperlinks (`--hyperlinks`,
/// `hyperlinks = "auto"` in the config file).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Hyperlinks {
    /// In terminals known to support them (`tui::hyperlink` says which).
    #[default]
    Auto,
    /// In any terminal.
    Always,
    /// Never.
    Never,
}

/// A preflight rule silenced in the config file (`[[ignore]]`): the rule, the paths (a glob),
/// and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ignore {
    /// The rule's id (`shm.size`).
    pub rule: String,
    /// A glob of the paths it covers (`deploy/**/*.yaml`); every file when absent.
    #[serde(default)]
    pub paths: Option<String>,
    /// Why it is silenced, shown with the count of what it silenced.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Everything a command or the TUI needs to know about how it was asked to run.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Load the bundled library.
    pub bundled: bool,
    /// User library directories, in load order.
    pub data: Vec<PathBuf>,
    /// Theme name or path, if one was asked for.
    pub theme: Option<String>,
    /// Mouse support in the TUI.
    pub mouse: bool,
    /// When the TUI writes source addresses as OSC 8 hyperlinks.
    pub hyperlinks: Hyperlinks,
    /// Restore the last TUI session.
    pub resume: bool,
    /// `NO_COLOR` is set or `TERM=dumb`: use the `mono` theme.
    pub no_color: bool,
    /// Preflight rules silenced in the config file.
    pub ignore: Vec<Ignore>,
}

/// Where incidex keeps its files, per the XDG base directories.
pub fn config_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy().ok().map(|s| s.config_dir().join("incidex"))
}

/// `$XDG_STATE_HOME/incidex` (for `--resume`).
pub fn state_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy().ok().and_then(|s| s.state_dir()).map(|d| d.join("incidex"))
}

/// `$XDG_CACHE_HOME/incidex` (for the index cache).
pub fn cache_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy;
    etcetera::choose_base_strategy().ok().map(|s| s.cache_dir().join("incidex"))
}

/// Options every command takes: the flags that settings are resolved from. They are defined
/// here, below the fronts, so that settings need not know the command line; `cli` flattens them
/// into every command.
#[derive(Debug, Args, Clone, Default)]
pub struct GlobalArgs {
    /// Add a library directory of your own cases (repeatable; also $INCIDEX_DATA, colon-separated,
    /// and `data = [...]` in the config file).
    #[arg(long = "data", value_name = "DIR", global = true)]
    pub data: Vec<PathBuf>,

    /// Leave the bundled library out.
    #[arg(long, global = true)]
    pub no_bundled: bool,

    /// Colour theme: a bundled or user theme name, or a path to a theme file (`incidex themes`
    /// lists them). Without it, NO_COLOR or TERM=dumb select `mono`.
    /// Only where it applies (the TUI, before any command; `themes` has its own), so that
    /// every command's `--help` does not list it.
    #[arg(long, value_name = "NAME|PATH")]
    pub theme: Option<String>,

    /// Turn on mouse support in the terminal UI (click to select, wheel to scroll).
    #[arg(long)]
    pub mouse: bool,

    /// Make the case pane's source addresses clickable links (OSC 8) in the terminal UI:
    /// `auto` in terminals known to support them, `always`, or `never` (also `hyperlinks = "..."`
    /// in the config file).
    #[arg(long, value_name = "WHEN")]
    pub hyperlinks: Option<Hyperlinks>,

    /// Bring back the last query, filters, selection and pane in the terminal UI.
    #[arg(long)]
    pub resume: bool,
}

impl Settings {
    /// Resolve settings from the config file, the process environment and `args`.
    pub fn resolve(args: &GlobalArgs) -> Result<Settings> {
        let env = |key: &str| std::env::var_os(key).filter(|v| !v.is_empty());
        let config = match config_dir() {
            Some(dir) => read_config(&dir.join("config.toml"))?,
            None => ConfigFile::default(),
        };
        Ok(Settings::merge(
            config,
            env("INCIDEX_DATA").map(|v| v.to_string_lossy().into_owned()),
            env("NO_COLOR").is_some() || std::env::var("TERM").is_ok_and(|t| t == "dumb"),
            args,
        ))
    }

    fn merge(config: ConfigFile, env_data: Option<String>, no_color: bool, args: &GlobalArgs) -> Settings {
        let mut data = config.data;
        if let Some(list) = env_data {
            data.extend(list.split(':').filter(|p| !p.is_empty()).map(PathBuf::from));
        }
        data.extend(args.data.iter().cloned());
        let mut seen = Vec::new();
        data.retain(|d| {
            let fresh = !seen.contains(d);
            seen.push(d.clone());
            fresh
        });
        Settings {
            bundled: !args.no_bundled,
            data,
            // NO_COLOR and TERM=dumb (the environment) outrank the config file's theme, but not
            // --theme: someone who names a theme on the command line gets it.
            theme: args.theme.clone().or(if no_color { None } else { config.theme }),
            mouse: args.mouse || config.mouse.unwrap_or(false),
            hyperlinks: args.hyperlinks.or(config.hyperlinks).unwrap_or_default(),
            resume: args.resume,
            no_color,
            ignore: config.ignore,
        }
    }
}

fn read_config(path: &Path) -> Result<ConfigFile> {
    let text = match crate::support::small_file::read(path, crate::support::small_file::MAX_SETTINGS_BYTES) {
        Ok(text) => text,
        // No such file, or no such directory: HOME or XDG_CONFIG_HOME naming a file (or a
        // path through one) means there is no config file, not that every command must fail.
        Err(e) if matches!(e.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
            return Ok(ConfigFile::default());
        }
        Err(e) => return Err(Error::io(path, e)),
    };
    let error = |at: usize, message: String| {
        let position = LineIndex::new(&text).position(at);
        Error::Data(Diagnostic::new(
            path.display().to_string(),
            position,
            Severity::Error,
            format!("config: {message}"),
        ))
    };
    let config = toml::from_str::<ConfigFile>(&text)
        .map_err(|e| error(e.span().map_or(0, |s| s.start), e.message().trim().replace('\n', " ")))?;
    // A blank value is a mistake, not a default: say where it is rather than guess.
    if let Ok(spans) = toml::from_str::<ConfigSpans>(&text) {
        if let Some(theme) = spans.theme.filter(|t| t.get_ref().trim().is_empty()) {
            return Err(error(
                theme.span().start,
                "`theme` is empty: name a theme (`incidex themes` lists them) or remove the line".into(),
            ));
        }
        if let Some(dir) = spans.data.iter().find(|d| d.get_ref().trim().is_empty()) {
            return Err(error(
                dir.span().start,
                "`data` lists an empty path: name a directory or remove the entry".into(),
            ));
        }
    }
    Ok(config)
}

/// Where the config's values are, to point at a blank one.
#[derive(Deserialize)]
struct ConfigSpans {
    theme: Option<toml::Spanned<String>>,
    #[serde(default)]
    data: Vec<toml::Spanned<String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_directory_that_is_a_file_means_no_config_file() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("not-a-dir");
        std::fs::write(&file, "x").unwrap();
        let config = read_config(&file.join("incidex").join("config.toml")).unwrap();
        assert!(config.data.is_empty() && config.theme.is_none());
    }

    #[test]
    fn data_directories_add_up_in_order_without_repeats() {
        let config = ConfigFile { data: vec!["/team".into()], ..Default::default() };
        let args = GlobalArgs { data: vec!["./mine".into(), "/team".into()], ..Default::default() };
        let s = Settings::merge(config, Some("/env/a::/env/b".into()), false, &args);
        assert_eq!(s.data, [PathBuf::from("/team"), "/env/a".into(), "/env/b".into(), "./mine".into()]);
        assert!(s.bundled);
    }

    #[test]
    fn flags_override_the_config_file() {
        let config = ConfigFile {
            theme: Some("light".into()),
            mouse: Some(true),
            hyperlinks: Some(Hyperlinks::Never),
            data: vec![],
            ignore: vec![],
        };
        let args = GlobalArgs {
            theme: Some("mono".into()),
            no_bundled: true,
            hyperlinks: Some(Hyperlinks::Always),
            ..Default::default()
        };
        let s = Settings::merge(config, None, true, &args);
        assert_eq!(s.theme.as_deref(), Some("mono"));
        assert!(s.mouse && s.no_color && !s.bundled);
        assert_eq!(s.hyperlinks, Hyperlinks::Always);
        let from_file = |text: &str| toml::from_str::<ConfigFile>(text).map(|c| c.hyperlinks);
        assert_eq!(from_file("hyperlinks = \"never\"").unwrap(), Some(Hyperlinks::Never));
        assert!(from_file("hyperlinks = \"sometimes\"").is_err());
        let none = Settings::merge(ConfigFile::default(), None, false, &GlobalArgs::default());
        assert_eq!(none.hyperlinks, Hyperlinks::Auto);
    }

    #[test]
    fn no_color_outranks_the_config_theme_but_not_the_flag() {
        let config = || ConfigFile { theme: Some("light".into()), ..Default::default() };
        assert_eq!(Settings::merge(config(), None, true, &GlobalArgs::default()).theme, None);
        assert_eq!(
            Settings::merge(config(), None, false, &GlobalArgs::default()).theme.as_deref(),
            Some("light")
        );
    }

    #[test]
    fn a_broken_config_names_its_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, "theme = \"mono\"\nmouse = maybe\n").unwrap();
        let err = read_config(&path).unwrap_err().to_string();
        assert!(err.contains("config.toml:2:9: error: config:"), "{err}");
        std::fs::write(&path, "colour = 1\n").unwrap();
        let err = read_config(&path).unwrap_err().to_string();
        assert!(err.contains("config.toml:1:1") && err.contains("unknown field `colour`"), "{err}");
    }
}
