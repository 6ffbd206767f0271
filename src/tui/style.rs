//! The theme as ratatui styles: [`Styles`] maps every [`Role`] to a ratatui `Style`, with
//! colours already brought down to what the terminal can show.

use ratatui::style::{Color as RColor, Modifier, Style as RStyle};

use crate::settings::theme::{Color, ColorDepth, Role, Style, Theme};

/// Ready-to-draw styles, one per role.
#[derive(Debug, Clone)]
pub struct Styles {
    styles: Vec<(Role, RStyle)>,
    /// Whether the theme uses colour at all (false for `mono`).
    pub has_color: bool,
}

fn color(c: Color) -> RColor {
    match c {
        Color::Default => RColor::Reset,
        // The 16 ANSI colours as their own SGR codes (30-37, 90-97), which every colour
        // terminal has; `38;5;N` needs a 256-colour one.
        Color::Ansi(i) => [
            RColor::Black,
            RColor::Red,
            RColor::Green,
            RColor::Yellow,
            RColor::Blue,
            RColor::Magenta,
            RColor::Cyan,
            RColor::Gray,
            RColor::DarkGray,
            RColor::LightRed,
            RColor::LightGreen,
            RColor::LightYellow,
            RColor::LightBlue,
            RColor::LightMagenta,
            RColor::LightCyan,
            RColor::White,
        ][usize::from(i % 16)],
        Color::Indexed(i) => RColor::Indexed(i),
        Color::Rgb(r, g, b) => RColor::Rgb(r, g, b),
    }
}

fn style(s: Style) -> RStyle {
    let mut out = RStyle::default();
    if let Some(fg) = s.fg {
        out = out.fg(color(fg));
    }
    if let Some(bg) = s.bg {
        out = out.bg(color(bg));
    }
    for (on, m) in [
        (s.bold, Modifier::BOLD),
        (s.italic, Modifier::ITALIC),
        (s.underline, Modifier::UNDERLINED),
        (s.reverse, Modifier::REVERSED),
    ] {
        if on {
            out = out.add_modifier(m);
        }
    }
    out
}

impl Styles {
    /// The styles of `theme` on a terminal of `depth`.
    pub fn new(theme: &Theme, depth: ColorDepth) -> Styles {
        let theme = theme.clone().at_depth(depth);
        Styles {
            styles: Role::ALL.iter().map(|r| (*r, style(theme.style(*r)))).collect(),
            has_color: theme.has_color(),
        }
    }

    /// The style of `role`.
    pub fn get(&self, role: Role) -> RStyle {
        self.styles.iter().find(|(r, _)| *r == role).map(|(_, s)| *s).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ansi_colours_stay_ansi_and_hex_follows_the_depth() {
        let default = Theme::bundled("default").unwrap();
        let truecolor = Styles::new(&default, ColorDepth::TrueColor);
        assert!(matches!(truecolor.get(Role::Text).fg, Some(RColor::Rgb(..))));
        let ansi16 = Styles::new(&default, ColorDepth::Ansi16);
        assert!(!matches!(ansi16.get(Role::Text).fg, Some(RColor::Indexed(_) | RColor::Rgb(..)) | None));
        let ansi256 = Styles::new(&default, ColorDepth::Ansi256);
        assert!(matches!(ansi256.get(Role::Text).fg, Some(RColor::Indexed(i)) if i >= 16));
        let contrast = Styles::new(&Theme::bundled("high-contrast").unwrap(), ColorDepth::Ansi16);
        assert_eq!(contrast.get(Role::Error).fg, Some(RColor::LightRed));
        let mono = Styles::new(&Theme::bundled("mono").unwrap(), ColorDepth::TrueColor);
        assert!(!mono.has_color);
        assert_eq!(mono.get(Role::Selection), RStyle::default().add_modifier(Modifier::REVERSED));
    }
}
