//! The loading gauge, drawn at the start of the status line while the library is opened in the
//! background: what the loader is doing, a bar, the percentage, and what the results are
//! meanwhile. It shrinks to fit: the hint goes first, then the bar; the label is cut last.
//! Before the first progress report there is only the label: nothing to measure yet.
//!
//! The bar is `█` on `░`, so it reads the same in the mono theme, where there is no colour.

use unicode_width::UnicodeWidthStr;

use crate::{
    settings::theme::Role,
    tui::{app::Loading, style::Styles},
};

/// The widest the bar grows.
pub const MAX_BAR: usize = 30;
/// Narrower than this, the bar is left out.
pub const MIN_BAR: usize = 6;

/// The gauge as styled spans at most `width` columns wide (ending with a two-column gap);
/// without the hint when `hint` is false.
pub fn spans(
    loading: &Loading,
    styles: &Styles,
    width: usize,
    hint: bool,
) -> Vec<(String, ratatui::style::Style)> {
    let label = loading.label();
    if loading.progress.is_none() {
        // Nothing to measure yet (a cache being read reports nothing): no bar stuck at 0%.
        let mut out = vec![(format!("{label}…"), styles.get(Role::Status))];
        if hint {
            out.push((format!("  {}", loading.hint()), styles.get(Role::Muted)));
        }
        out.push(("  ".to_string(), styles.get(Role::Status)));
        return out;
    }
    let percent = format!("{:>3}%", (loading.ratio() * 100.0).floor() as usize);
    let hint_text = if hint { format!("  {}", loading.hint()) } else { String::new() };
    // label, space, bar, space, percent, hint, gap
    let fixed = |with_hint: bool| {
        label.width() + 1 + 1 + percent.width() + if with_hint { hint_text.width() } else { 0 } + 2
    };
    let with_hint = hint && width.saturating_sub(fixed(true)) >= MIN_BAR;
    let room = width.saturating_sub(fixed(with_hint));
    let bar = room.min(MAX_BAR);
    let mut out = vec![(label, styles.get(Role::Status)), (" ".to_string(), styles.get(Role::Status))];
    if bar >= MIN_BAR {
        let filled = ((loading.ratio() * bar as f64).round() as usize).min(bar);
        out.push(("█".repeat(filled), styles.get(Role::Bar)));
        out.push(("░".repeat(bar - filled), styles.get(Role::Muted)));
        out.push((" ".to_string(), styles.get(Role::Status)));
    }
    out.push((percent, styles.get(Role::Key)));
    if with_hint {
        out.push((hint_text, styles.get(Role::Muted)));
    }
    out.push(("  ".to_string(), styles.get(Role::Status)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        settings::theme::{ColorDepth, Theme},
        support::progress::{Progress, Stage},
        tui::app::Interim,
    };

    fn text(width: usize, hint: bool) -> String {
        let styles = Styles::new(&Theme::bundled("mono").unwrap(), ColorDepth::TrueColor);
        let loading = Loading {
            interim: Interim::Bundled,
            progress: Some(Progress { stage: Stage::Reading, done: 41203, total: 100000 }),
        };
        spans(&loading, &styles, width, hint).into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn the_gauge_shrinks_to_fit_the_hint_first_then_the_bar() {
        let wide = text(200, true);
        assert_eq!(
            wide,
            format!(
                "reading 41,203 of 100,000 files {}{}  41%  bundled cases only for now  ",
                "█".repeat(12),
                "░".repeat(18)
            )
        );
        let at_80 = text(79, true);
        assert!(at_80.width() <= 79 && at_80.contains("bundled") && at_80.contains('█'), "{at_80}");
        let no_hint = text(50, true);
        assert!(!no_hint.contains("bundled") && no_hint.contains('░'), "{no_hint}");
        assert!(no_hint.width() <= 50, "{no_hint}");
        let tiny = text(30, true);
        assert!(!tiny.contains('░') && tiny.contains("41%"), "{tiny}");
        assert!(!text(200, false).contains("bundled"));
        let styles = Styles::new(&Theme::bundled("mono").unwrap(), ColorDepth::TrueColor);
        let waiting = Loading { interim: Interim::Empty, progress: None };
        let shown: String = spans(&waiting, &styles, 80, true).into_iter().map(|(t, _)| t).collect();
        assert_eq!(shown, "opening your library…  your cases show when loaded  ");
    }
}
