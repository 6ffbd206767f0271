//! Themes: named styles for the roles the terminal UI draws with (text, selection, borders, one
//! colour per facet kind, ...), read from `themes/*.toml` (compiled in) and from the user's
//! `$XDG_CONFIG_HOME/incidex/themes/`.
//!
//! This module is plain data: it knows colours, modifiers and files, not terminals — turning a
//! [`Style`] into a ratatui style is `tui::style`'s job. It owns three rules:
//!
//! - a theme file that cannot be read is an error naming `path:line:column`, never a silent
//!   fallback to another theme;
//! - `NO_COLOR` or `TERM=dumb` selects `mono` unless a theme was asked for on the command line
//!   (the caller decides which request wins; see [`resolve`]);
//! - hex colours are kept only at [`ColorDepth::TrueColor`]; otherwise they become the nearest
//!   of the 256- or 16-colour palettes ([`Color::at_depth`]).

use std::{
    fmt,
    path::{Path, PathBuf},
};

use toml::de::{DeTable, DeValue};

use crate::{
    support::diag::Diagnostic,
    support::error::{Error, Result},
    support::toml_fields::Ctx,
};

/// A colour as a theme names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Color {
    /// The terminal's own foreground or background.
    Default,
    /// One of the 16 ANSI colours (0-7 normal, 8-15 bright).
    Ansi(u8),
    /// An entry of the 256-colour palette (16-255).
    Indexed(u8),
    /// A 24-bit colour.
    Rgb(u8, u8, u8),
}

/// How many colours the terminal can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ColorDepth {
    /// The 16 ANSI colours.
    Ansi16,
    /// The xterm 256-colour palette.
    Ansi256,
    /// 24-bit colour.
    TrueColor,
}

impl ColorDepth {
    /// What the environment says: `COLORTERM=truecolor|24bit` is true colour, a `TERM` naming
    /// `256color` is 256 colours, anything else 16.
    pub fn detect(colorterm: Option<&str>, term: Option<&str>) -> ColorDepth {
        let colorterm = colorterm.unwrap_or_default().to_ascii_lowercase();
        if colorterm == "truecolor" || colorterm == "24bit" {
            ColorDepth::TrueColor
        } else if term.unwrap_or_default().contains("256color") {
            ColorDepth::Ansi256
        } else {
            ColorDepth::Ansi16
        }
    }

    /// [`ColorDepth::detect`] on this process's environment.
    pub fn from_env() -> ColorDepth {
        ColorDepth::detect(std::env::var("COLORTERM").ok().as_deref(), std::env::var("TERM").ok().as_deref())
    }
}

/// The xterm defaults for the 16 ANSI colours, used to find the nearest one.
const ANSI_RGB: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (205, 0, 0),
    (0, 205, 0),
    (205, 205, 0),
    (0, 0, 238),
    (205, 0, 205),
    (0, 205, 205),
    (229, 229, 229),
    (127, 127, 127),
    (255, 0, 0),
    (0, 255, 0),
    (255, 255, 0),
    (92, 92, 255),
    (255, 0, 255),
    (0, 255, 255),
    (255, 255, 255),
];

/// The names of the 16 ANSI colours, as themes write them.
const ANSI_NAMES: [&str; 16] = [
    "black",
    "red",
    "green",
    "yellow",
    "blue",
    "magenta",
    "cyan",
    "white",
    "bright-black",
    "bright-red",
    "bright-green",
    "bright-yellow",
    "bright-blue",
    "bright-magenta",
    "bright-cyan",
    "bright-white",
];

/// The six levels of each channel in the 256-colour cube.
const CUBE: [u8; 6] = [0, 95, 135, 175, 215, 255];

fn distance((r1, g1, b1): (u8, u8, u8), (r2, g2, b2): (u8, u8, u8)) -> u32 {
    // Weighted Euclidean distance: a cheap approximation of how different colours look.
    let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2) as u32;
    2 * d(r1, r2) + 4 * d(g1, g2) + 3 * d(b1, b2)
}

/// The RGB value of a 256-colour palette entry.
fn indexed_rgb(i: u8) -> (u8, u8, u8) {
    match i {
        0..=15 => ANSI_RGB[usize::from(i)],
        16..=231 => {
            let i = i - 16;
            (CUBE[usize::from(i / 36)], CUBE[usize::from(i / 6 % 6)], CUBE[usize::from(i % 6)])
        }
        _ => {
            let level = 8 + 10 * (i - 232);
            (level, level, level)
        }
    }
}

fn nearest_256(rgb: (u8, u8, u8)) -> u8 {
    // Only 16-255: the first 16 entries are whatever the user's palette makes them.
    (16..=255u8).min_by_key(|&i| distance(rgb, indexed_rgb(i))).unwrap_or(16)
}

fn nearest_16(rgb: (u8, u8, u8)) -> u8 {
    (0..16u8).min_by_key(|&i| distance(rgb, ANSI_RGB[usize::from(i)])).unwrap_or(7)
}

impl Color {
    /// The colour as a terminal of `depth` can show it.
    pub fn at_depth(self, depth: ColorDepth) -> Color {
        match (self, depth) {
            (Color::Rgb(..), ColorDepth::TrueColor) => self,
            (Color::Rgb(r, g, b), ColorDepth::Ansi256) => Color::Indexed(nearest_256((r, g, b))),
            (Color::Rgb(r, g, b), ColorDepth::Ansi16) => Color::Ansi(nearest_16((r, g, b))),
            (Color::Indexed(i), ColorDepth::Ansi16) => Color::Ansi(nearest_16(indexed_rgb(i))),
            _ => self,
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Color::Default => f.write_str("default"),
            Color::Ansi(i) => f.write_str(ANSI_NAMES[usize::from(*i % 16)]),
            Color::Indexed(i) => write!(f, "{i}"),
            Color::Rgb(r, g, b) => write!(f, "#{r:02x}{g:02x}{b:02x}"),
        }
    }
}

/// Parse a colour written without a palette: `#rrggbb`, `#rgb`, an ANSI name (`red`,
/// `bright-blue`, `gray`), or `default`.
pub fn parse_color(s: &str) -> Option<Color> {
    let s = s.trim();
    if let Some(hex) = s.strip_prefix('#') {
        let digits: Vec<u8> =
            hex.chars().map(|c| c.to_digit(16).and_then(|d| u8::try_from(d).ok())).collect::<Option<_>>()?;
        return match digits.as_slice() {
            [r, g, b] => Some(Color::Rgb(r * 17, g * 17, b * 17)),
            [r1, r2, g1, g2, b1, b2] => Some(Color::Rgb(r1 * 16 + r2, g1 * 16 + g2, b1 * 16 + b2)),
            _ => None,
        };
    }
    let name: String =
        s.to_ascii_lowercase().chars().map(|c| if c == '_' || c == ' ' { '-' } else { c }).collect();
    let name = match name.as_str() {
        "default" | "reset" | "none" => return Some(Color::Default),
        "gray" | "grey" | "light-black" => "bright-black",
        "silver" => "white",
        other => other.strip_prefix("light-").map_or(other, |rest| match rest {
            "red" => "bright-red",
            "green" => "bright-green",
            "yellow" => "bright-yellow",
            "blue" => "bright-blue",
            "magenta" => "bright-magenta",
            "cyan" => "bright-cyan",
            "white" => "bright-white",
            _ => other,
        }),
    };
    ANSI_NAMES.iter().position(|n| *n == name).and_then(|i| u8::try_from(i).ok()).map(Color::Ansi)
}

/// Colours and modifiers for one role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Style {
    /// Foreground colour; `None` keeps what is underneath.
    pub fg: Option<Color>,
    /// Background colour; `None` keeps what is underneath.
    pub bg: Option<Color>,
    /// Bold.
    pub bold: bool,
    /// Italic.
    pub italic: bool,
    /// Underlined.
    pub underline: bool,
    /// Foreground and background swapped.
    pub reverse: bool,
}

impl Style {
    /// Whether the style names any colour other than the terminal's own.
    pub fn has_color(&self) -> bool {
        [self.fg, self.bg].iter().flatten().any(|c| *c != Color::Default)
    }

    /// The style with its colours as a terminal of `depth` can show them.
    pub fn at_depth(self, depth: ColorDepth) -> Style {
        Style { fg: self.fg.map(|c| c.at_depth(depth)), bg: self.bg.map(|c| c.at_depth(depth)), ..self }
    }
}

macro_rules! roles {
    ($($(#[$doc:meta])* $variant:ident => $key:literal,)*) => {
        /// What a piece of the screen is, for choosing its style.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Role {
            $($(#[$doc])* $variant,)*
        }

        impl Role {
            /// Every role, in theme-file order.
            pub const ALL: &[Role] = &[$(Role::$variant,)*];

            /// The key a theme file uses for this role.
            pub fn key(self) -> &'static str {
                match self {
                    $(Role::$variant => $key,)*
                }
            }
        }
    };
}

roles! {
    /// Body text.
    Text => "text",
    /// Secondary text: dates, organizations, hints, counts.
    Muted => "muted",
    /// Section headings.
    Accent => "accent",
    /// Pane titles.
    Title => "title",
    /// Borders of panes without the focus.
    Border => "border",
    /// The border of the pane with the focus.
    BorderFocused => "border_focused",
    /// The text typed into the search box.
    Input => "input",
    /// The highlighted item in the pane with the focus.
    Selection => "selection",
    /// The highlighted item in a pane without the focus.
    SelectionInactive => "selection_inactive",
    /// An applied filter.
    Chip => "chip",
    /// An applied "must not have" filter.
    ChipNegated => "chip_negated",
    /// A suggested filter.
    Suggestion => "suggestion",
    /// Characters that matched what was typed.
    Match => "match",
    /// Errors (an unknown filter value, a file that could not be written).
    Error => "error",
    /// Warnings.
    Warning => "warning",
    /// Key names in the status line and the help.
    Key => "key",
    /// The status line.
    Status => "status",
    /// Bars of the breakdown charts.
    Bar => "bar",
    /// Root cause values.
    RootCause => "root_cause",
    /// Component values.
    Component => "component",
    /// Symptom values.
    Symptom => "symptom",
    /// Contributing factor values.
    ContributingFactor => "contributing_factor",
    /// Cases (in the graph's legend).
    Case => "case",
}

impl Role {
    /// The role that colours values of a facet kind.
    pub fn of_kind(kind: crate::taxonomy::FacetKind) -> Role {
        use crate::taxonomy::FacetKind;
        match kind {
            FacetKind::RootCause => Role::RootCause,
            FacetKind::Component => Role::Component,
            FacetKind::Symptom => Role::Symptom,
            FacetKind::ContributingFactor => Role::ContributingFactor,
        }
    }

    fn index(self) -> usize {
        Role::ALL.iter().position(|r| *r == self).unwrap_or(0)
    }

    fn from_key(key: &str) -> Option<Role> {
        Role::ALL.iter().copied().find(|r| r.key() == key)
    }
}

/// Where a theme came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Compiled into the binary (`themes/<name>.toml`).
    Bundled,
    /// A file of the user's.
    File(PathBuf),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Bundled => f.write_str("bundled"),
            Origin::File(path) => f.write_str(&crate::text::one_line(&path.display().to_string())),
        }
    }
}

/// A complete theme: a style for every role.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    /// Its name (the file name without `.toml`).
    pub name: String,
    /// One line saying what it is for.
    pub description: String,
    /// Where it came from.
    pub origin: Origin,
    styles: Vec<Style>,
}

/// The theme used when none is asked for and colour is allowed.
pub const DEFAULT_THEME: &str = "default";
/// The theme used under `NO_COLOR` or `TERM=dumb`.
pub const MONO_THEME: &str = "mono";

impl Theme {
    /// The style of `role`.
    pub fn style(&self, role: Role) -> Style {
        self.styles.get(role.index()).copied().unwrap_or_default()
    }

    /// Whether any role uses a colour (false for `mono`).
    pub fn has_color(&self) -> bool {
        self.styles.iter().any(Style::has_color)
    }

    /// The theme with every colour as a terminal of `depth` can show it.
    pub fn at_depth(mut self, depth: ColorDepth) -> Theme {
        for s in &mut self.styles {
            *s = s.at_depth(depth);
        }
        self
    }

    /// A bundled theme by name.
    pub fn bundled(name: &str) -> Option<Theme> {
        let (_, text) = crate::corpus::bundled::THEMES.iter().find(|(n, _)| *n == name)?;
        // Bundled themes are complete and checked by the tests; a base is never needed.
        parse(name, &format!("themes/{name}.toml"), text, Origin::Bundled, None).ok()
    }

    /// Read a theme file. Roles it leaves out come from the bundled theme it `extends`
    /// (`default` when it names none).
    pub fn from_file(path: &Path) -> Result<Theme> {
        let text = crate::support::small_file::read(path, crate::support::small_file::MAX_SETTINGS_BYTES)
            .map_err(|e| Error::io(path, e))?;
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("theme").to_string();
        let shown = path.display().to_string();
        parse(&name, &shown, &text, Origin::File(path.to_path_buf()), Some(DEFAULT_THEME))
    }
}

/// Read a theme from `text`. `base` names the bundled theme that fills roles the file leaves out
/// (overridden by the file's `extends`); with no base every role is required.
fn parse(name: &str, shown: &str, text: &str, origin: Origin, base: Option<&str>) -> Result<Theme> {
    let mut ctx = Ctx::new(shown, text);
    let Some(doc) = ctx.parse_document(text) else {
        return Err(first_error(ctx.diagnostics));
    };
    let mut description = String::new();
    let mut base = base.map(str::to_string);
    let mut palette: Vec<(String, Color)> = Vec::new();
    let mut styles: Vec<Option<Style>> = vec![None; Role::ALL.len()];
    // The palette is read first so roles may use its names wherever they appear in the file.
    if let Some(value) = doc.get_ref().get("palette") {
        match value.get_ref() {
            DeValue::Table(table) => {
                for (key, value) in table.iter() {
                    let color = match value.get_ref() {
                        DeValue::String(s) => parse_color(s),
                        _ => None,
                    };
                    match color {
                        Some(c) => palette.push((key.get_ref().to_string(), c)),
                        None => ctx.error(
                            value.span().start,
                            format!(
                                "palette colour `{}` must be \"#rrggbb\" or an ANSI colour name",
                                crate::text::one_line(key.get_ref())
                            ),
                        ),
                    }
                }
            }
            _ => ctx.error(value.span().start, "`palette` must be a table of colours"),
        }
    }
    for (key, value) in doc.get_ref().iter() {
        let offset = value.span().start;
        match (key.get_ref().as_ref(), value.get_ref()) {
            ("palette", _) => {}
            ("description", DeValue::String(s)) => description = crate::text::one_line(s),
            ("extends", DeValue::String(s)) => {
                if crate::corpus::bundled::THEMES.iter().all(|(n, _)| n != s) {
                    ctx.error(
                        offset,
                        format!("`extends` names no bundled theme: '{}'", crate::text::one_line(s)),
                    );
                }
                base = Some(s.to_string());
            }
            ("description" | "extends", _) => {
                ctx.error(offset, format!("`{}` must be a string", key.get_ref()))
            }
            ("roles", DeValue::Table(table)) => read_roles(&mut ctx, table, &palette, &mut styles),
            ("roles", _) => ctx.error(offset, "`roles` must be a table"),
            (other, _) => ctx.error(
                key.span().start,
                format!(
                    "unknown key `{}` in theme (a theme has: description, extends, palette, roles)",
                    crate::text::one_line(other)
                ),
            ),
        }
    }
    let base = match base {
        Some(b) if b != name || origin != Origin::Bundled => Theme::bundled(&b),
        _ => None,
    };
    let missing: Vec<&str> =
        Role::ALL.iter().filter(|r| styles[r.index()].is_none()).map(|r| r.key()).collect();
    if base.is_none() && !missing.is_empty() {
        ctx.error(0, format!("theme leaves out roles: {}", missing.join(", ")));
    }
    if !ctx.diagnostics.is_empty() {
        return Err(first_error(ctx.diagnostics));
    }
    let styles = Role::ALL
        .iter()
        .map(|r| styles[r.index()].or_else(|| base.as_ref().map(|b| b.style(*r))).unwrap_or_default())
        .collect();
    Ok(Theme { name: name.to_string(), description, origin, styles })
}

fn first_error(mut diagnostics: Vec<Diagnostic>) -> Error {
    if diagnostics.is_empty() {
        return Error::Failed("theme could not be read".into());
    }
    Error::Data(diagnostics.swap_remove(0))
}

fn read_roles(ctx: &mut Ctx, table: &DeTable, palette: &[(String, Color)], styles: &mut [Option<Style>]) {
    let color = |ctx: &mut Ctx, value: &toml::Spanned<DeValue>, what: &str| -> Option<Color> {
        let found = match value.get_ref() {
            DeValue::String(s) => {
                palette.iter().find(|(n, _)| n == s.as_ref()).map(|(_, c)| *c).or_else(|| parse_color(s))
            }
            DeValue::Integer(i) => {
                i.as_str().parse::<u8>().ok().map(|i| if i < 16 { Color::Ansi(i) } else { Color::Indexed(i) })
            }
            _ => None,
        };
        if found.is_none() {
            ctx.error(
                value.span().start,
                format!(
                    "{what}: not a colour (expected \"#rrggbb\", a palette or ANSI colour name, or 0-255)"
                ),
            );
        }
        found
    };
    for (key, value) in table.iter() {
        let Some(role) = Role::from_key(key.get_ref()) else {
            let known: Vec<&str> = Role::ALL.iter().map(|r| r.key()).collect();
            ctx.error(
                key.span().start,
                format!(
                    "unknown role `{}` (roles: {})",
                    crate::text::one_line(key.get_ref()),
                    known.join(", ")
                ),
            );
            continue;
        };
        let what = format!("role `{}`", role.key());
        let style = match value.get_ref() {
            DeValue::String(_) | DeValue::Integer(_) => {
                color(ctx, value, &what).map(|fg| Style { fg: Some(fg), ..Style::default() })
            }
            DeValue::Table(fields) => {
                let mut style = Style::default();
                let mut ok = true;
                for (field, v) in fields.iter() {
                    let flag = |ctx: &mut Ctx| match v.get_ref() {
                        DeValue::Boolean(b) => Some(*b),
                        _ => {
                            ctx.error(
                                v.span().start,
                                format!("{what}: `{}` must be true or false", field.get_ref()),
                            );
                            None
                        }
                    };
                    match field.get_ref().as_ref() {
                        "fg" => style.fg = color(ctx, v, &what),
                        "bg" => style.bg = color(ctx, v, &what),
                        "bold" => style.bold = flag(ctx).unwrap_or_default(),
                        "italic" => style.italic = flag(ctx).unwrap_or_default(),
                        "underline" => style.underline = flag(ctx).unwrap_or_default(),
                        "reverse" => style.reverse = flag(ctx).unwrap_or_default(),
                        other => {
                            ok = false;
                            ctx.error(
                                field.span().start,
                                format!(
                                    "{what}: unknown key `{}` (a style has: fg, bg, bold, italic, underline, reverse)",
                                    crate::text::one_line(other)
                                ),
                            );
                        }
                    }
                }
                ok.then_some(style)
            }
            _ => {
                ctx.error(
                    value.span().start,
                    format!("{what} must be a colour or a table such as {{ fg = \"red\", bold = true }}"),
                );
                None
            }
        };
        if let Some(style) = style {
            styles[role.index()] = Some(style);
        }
    }
}

/// One theme that can be chosen, and whether it reads.
#[derive(Debug)]
pub struct Available {
    /// The name to pass to `--theme`.
    pub name: String,
    /// Where it is.
    pub origin: Origin,
    /// The theme, or why its file cannot be used.
    pub theme: Result<Theme>,
}

/// Every theme: the bundled ones, then the user's (`<dir>/*.toml`, sorted by name). A user
/// theme with a bundled theme's name replaces it.
pub fn available(user_dir: Option<&Path>) -> Vec<Available> {
    let mut all: Vec<Available> = crate::corpus::bundled::THEMES
        .iter()
        .map(|(name, text)| Available {
            name: (*name).to_string(),
            origin: Origin::Bundled,
            theme: parse(name, &format!("themes/{name}.toml"), text, Origin::Bundled, None),
        })
        .collect();
    for path in user_theme_files(user_dir) {
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        all.retain(|a| a.name != name);
        all.push(Available { name, origin: Origin::File(path.clone()), theme: Theme::from_file(&path) });
    }
    all
}

fn user_theme_files(user_dir: Option<&Path>) -> Vec<PathBuf> {
    let Some(dir) = user_dir else { return Vec::new() };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "toml") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// The user's theme directory: `$XDG_CONFIG_HOME/incidex/themes`.
pub fn user_dir() -> Option<PathBuf> {
    crate::settings::config::config_dir().map(|d| d.join("themes"))
}

/// Whether `request` names a file rather than a theme.
fn is_path(request: &str) -> bool {
    request.contains('/') || request.ends_with(".toml")
}

/// The theme to use. `request` is a name or a path (from `--theme` or the config file); with no
/// request, `no_color` picks `mono` and otherwise `default`. A user theme shadows a bundled
/// theme of the same name. An unknown name is a usage error listing the names there are.
pub fn resolve(request: Option<&str>, no_color: bool, user_dir: Option<&Path>) -> Result<Theme> {
    let name = match request {
        Some(r) if is_path(r) => return Theme::from_file(Path::new(r)),
        Some(r) => r,
        None if no_color => MONO_THEME,
        None => DEFAULT_THEME,
    };
    if let Some(path) =
        user_theme_files(user_dir).into_iter().find(|p| p.file_stem().is_some_and(|s| s == name))
    {
        return Theme::from_file(&path);
    }
    if let Some(theme) = Theme::bundled(name) {
        return Ok(theme);
    }
    let names: Vec<String> = available(user_dir).into_iter().map(|a| a.name).collect();
    Err(Error::Usage(format!(
        "no theme named '{}' (themes: {}; or give a path to a .toml file)",
        crate::text::one_line(name),
        names.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_themes_are_complete_and_mono_has_no_colour() {
        let names: Vec<&str> = crate::corpus::bundled::THEMES.iter().map(|(n, _)| *n).collect();
        for want in ["default", "light", "high-contrast", "mono"] {
            assert!(names.contains(&want), "{names:?}");
        }
        for (name, text) in crate::corpus::bundled::THEMES {
            let theme = parse(name, name, text, Origin::Bundled, None);
            assert!(theme.is_ok(), "{name}: {:?}", theme.err().map(|e| e.to_string()));
        }
        let mono = Theme::bundled("mono").unwrap();
        assert!(!mono.has_color());
        assert!(mono.style(Role::Selection).reverse, "the selection must stay visible without colour");
        for role in Role::ALL {
            let s = mono.style(*role);
            assert!(!s.italic, "mono uses only reverse, bold and underline ({})", role.key());
        }
        assert!(Theme::bundled("default").unwrap().has_color());
    }

    #[test]
    fn colours_parse_in_every_spelling() {
        for (input, want) in [
            ("#ff8000", Some(Color::Rgb(255, 128, 0))),
            ("#F80", Some(Color::Rgb(255, 136, 0))),
            ("red", Some(Color::Ansi(1))),
            ("bright-blue", Some(Color::Ansi(12))),
            ("light_blue", Some(Color::Ansi(12))),
            ("Gray", Some(Color::Ansi(8))),
            ("default", Some(Color::Default)),
            ("#12345", None),
            ("#gg0000", None),
            ("mauve", None),
        ] {
            assert_eq!(parse_color(input), want, "{input}");
        }
    }

    #[test]
    fn hex_colours_fall_back_to_the_nearest_palette_entry() {
        let orange = Color::Rgb(255, 135, 0);
        assert_eq!(orange.at_depth(ColorDepth::TrueColor), orange);
        assert_eq!(orange.at_depth(ColorDepth::Ansi256), Color::Indexed(208));
        assert_eq!(Color::Rgb(250, 10, 10).at_depth(ColorDepth::Ansi16), Color::Ansi(9));
        assert_eq!(Color::Rgb(18, 18, 18).at_depth(ColorDepth::Ansi256), Color::Indexed(233));
        assert_eq!(Color::Indexed(196).at_depth(ColorDepth::Ansi16), Color::Ansi(9));
        assert_eq!(Color::Ansi(3).at_depth(ColorDepth::Ansi16), Color::Ansi(3));
    }

    #[test]
    fn colour_depth_comes_from_colorterm_then_term() {
        for (colorterm, term, want) in [
            (Some("truecolor"), Some("xterm"), ColorDepth::TrueColor),
            (Some("24bit"), None, ColorDepth::TrueColor),
            (None, Some("xterm-256color"), ColorDepth::Ansi256),
            (None, Some("tmux-256color"), ColorDepth::Ansi256),
            (None, Some("screen"), ColorDepth::Ansi16),
            (Some("yes"), Some("xterm"), ColorDepth::Ansi16),
            (None, None, ColorDepth::Ansi16),
        ] {
            assert_eq!(ColorDepth::detect(colorterm, term), want, "{colorterm:?} {term:?}");
        }
    }

    fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn broken_theme_files_name_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        for (text, want) in [
            ("[roles]\ntext = \"#12\"\n", "bad.toml:2:8: error: role `text`: not a colour"),
            (
                "[roles]\ntext = { fg = \"red\", blink = true }\n",
                "bad.toml:2:22: error: role `text`: unknown key `blink`",
            ),
            ("[roles]\ntexte = \"red\"\n", "bad.toml:2:1: error: unknown role `texte`"),
            (
                "[roles]\ntext = { bold = 1 }\n",
                "bad.toml:2:17: error: role `text`: `bold` must be true or false",
            ),
            ("colours = 1\n", "bad.toml:1:1: error: unknown key `colours` in theme"),
            ("[roles\n", "bad.toml:1:7: error: TOML syntax"),
            ("extends = \"nope\"\n", "bad.toml:1:11: error: `extends` names no bundled theme"),
        ] {
            let path = write(dir.path(), "bad.toml", text);
            let err = Theme::from_file(&path).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn user_themes_extend_a_bundled_theme_and_shadow_by_name() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "ocean.toml",
            "description = \"Blue\"\nextends = \"light\"\n[palette]\nsea = \"#0000aa\"\n[roles]\ntext = \"sea\"\nselection = { fg = 15, bg = 21, bold = true }\n",
        );
        write(dir.path(), "mono.toml", "[roles]\ntext = { underline = true }\n");
        let ocean = resolve(Some("ocean"), false, Some(dir.path())).unwrap();
        assert_eq!(ocean.style(Role::Text).fg, Some(Color::Rgb(0, 0, 0xaa)));
        assert_eq!(ocean.style(Role::Selection).bg, Some(Color::Indexed(21)));
        assert_eq!(ocean.style(Role::Error), Theme::bundled("light").unwrap().style(Role::Error));
        assert_eq!(ocean.description, "Blue");
        let shadow = resolve(None, true, Some(dir.path())).unwrap();
        assert!(shadow.style(Role::Text).underline, "a user theme named mono replaces the bundled one");
        let names: Vec<String> = available(Some(dir.path())).into_iter().map(|a| a.name).collect();
        assert_eq!(names.iter().filter(|n| *n == "mono").count(), 1);
        assert!(names.contains(&"ocean".to_string()));
    }

    #[test]
    fn no_color_picks_mono_unless_a_theme_is_asked_for() {
        assert_eq!(resolve(None, true, None).unwrap().name, "mono");
        assert_eq!(resolve(None, false, None).unwrap().name, "default");
        assert_eq!(resolve(Some("light"), true, None).unwrap().name, "light");
        let err = resolve(Some("solarised"), false, None).unwrap_err();
        assert!(matches!(err, Error::Usage(_)));
        assert!(err.to_string().contains("no theme named 'solarised' (themes: default"), "{err}");
        let err = resolve(Some("/no/such/theme.toml"), false, None).unwrap_err().to_string();
        assert!(err.starts_with("/no/such/theme.toml: "), "{err}");
    }
}
