//! Keys to actions, per context, and the help text that lists them — kept side by side so the
//! help overlay (`?`) shows exactly what the keys do.
//!
//! Pure: a key press and where the focus is in, an [`Action`] out. Text fields (the search box,
//! the picker's filter) take printable characters as text, so single-letter commands (`q`,
//! `j`, `v`, ...) work everywhere else; Ctrl-C quits from anywhere.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::export::Choice;
use crate::taxonomy::FacetKind;

/// Where a key press goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Typing in the search box.
    Search,
    /// The applied and suggested filters.
    Filters,
    /// The case list.
    Results,
    /// The right pane (case, breakdown).
    Detail,
    /// The right pane showing the graph.
    Graph,
    /// The export dialog's menu.
    ExportMenu,
    /// The export dialog's path field.
    ExportPath,
    /// The export dialog asking before overwriting a file.
    ExportConfirm,
    /// The facet picker.
    Picker,
    /// The help overlay.
    Help,
    /// The findings of the job specs the UI was opened on.
    Preflight,
}

/// What a key asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Leave incidex.
    Quit,
    /// Suspend to the shell (Ctrl-Z); `fg` comes back.
    Suspend,
    /// Show or hide the help.
    Help,
    /// Focus the next pane.
    FocusNext,
    /// Focus the previous pane.
    FocusPrev,
    /// Focus the search box.
    FocusSearch,
    /// Go back, or clear (Esc).
    Back,
    /// Move up one.
    Up,
    /// Move down one.
    Down,
    /// Move up a page.
    PageUp,
    /// Move down a page.
    PageDown,
    /// Go to the first.
    Top,
    /// Go to the last.
    Bottom,
    /// Move left (previous chip, facet value, breakdown).
    Left,
    /// Move right.
    Right,
    /// Open or apply what is highlighted (Enter).
    Open,
    /// Apply the highlighted suggestion (`+`, Ctrl-T, Alt-Enter).
    ApplySuggestion,
    /// Apply the highlighted value as "must not have", or flip a chip (`-`).
    Negate,
    /// Remove the highlighted chip.
    Remove,
    /// Show the next right pane (case, breakdown, ...).
    CyclePane,
    /// Show what the node audit found for the listed cases (`D`).
    Checks,
    /// Show the findings of the job specs the UI was opened on (`P`).
    Preflight,
    /// List the weaker matches of the sentence too, or stop listing them (`w`).
    ToggleWeaker,
    /// Open the facet picker, on one kind or the last used.
    Picker(Option<FacetKind>),
    /// Next facet kind in the picker.
    NextKind,
    /// Previous facet kind in the picker.
    PrevKind,
    /// Type a character.
    Insert(char),
    /// Delete the character before the cursor.
    Backspace,
    /// Delete the character under the cursor.
    Delete,
    /// Delete the word before the cursor.
    DeleteWord,
    /// Delete to the start of the field.
    DeleteToStart,
    /// Delete to the end of the field.
    DeleteToEnd,
    /// Cursor left.
    CursorLeft,
    /// Cursor right.
    CursorRight,
    /// Cursor to the start.
    CursorHome,
    /// Cursor to the end.
    CursorEnd,
    /// Export the checklist of the component under the cursor (`x`, Ctrl-X).
    Export,
    /// Copy the highlighted source's address, else the case's id, with OSC 52 (`y`).
    Copy,
    /// Highlight the next node of the graph (Tab).
    NextNode,
    /// Highlight the previous node of the graph (Shift-Tab).
    PrevNode,
    /// Go back along the walk through the graph (Backspace).
    WalkBack,
    /// Apply the highlighted graph node as a filter (`a`).
    ApplyNode,
    /// Open the highlighted case of the graph in the case pane (`o`).
    OpenCase,
    /// Pick an export choice by its key.
    Choose(Choice),
    /// Answer the overwrite question: yes or no.
    Confirm(bool),
}

/// The action for `key` in `context`, if any.
pub fn action(context: Context, key: KeyEvent) -> Option<Action> {
    use Action as A;
    use KeyCode as K;
    let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
    let alt = key.modifiers.contains(KeyModifiers::ALT);
    // Keys that mean the same everywhere.
    match key.code {
        K::Char('c') if ctrl => return Some(A::Quit),
        K::Char('z') if ctrl => return Some(A::Suspend),
        K::Char('x') if ctrl => return Some(A::Export),
        K::F(1) => return Some(A::Help),
        // Alt-Enter is full-screen in Windows Terminal and no Meta key with macOS Option by
        // default; Ctrl-T reaches the program on every terminal and through tmux, as one byte.
        // Everywhere Alt-Enter works, the same: in the picker it applies the value.
        K::Char('t') if ctrl => match context {
            Context::Picker => return Some(A::Open),
            Context::Search | Context::Filters | Context::Results | Context::Detail | Context::Graph => {
                return Some(A::ApplySuggestion);
            }
            _ => {}
        },
        _ => {}
    }
    match context {
        Context::Help => match key.code {
            K::Esc | K::Char('q' | '?') | K::Enter => Some(A::Help),
            K::Up | K::Char('k') => Some(A::Up),
            K::Down | K::Char('j') => Some(A::Down),
            K::PageUp => Some(A::PageUp),
            K::PageDown | K::Char(' ') => Some(A::PageDown),
            K::Home | K::Char('g') => Some(A::Top),
            K::End | K::Char('G') => Some(A::Bottom),
            _ => None,
        },
        Context::Preflight => match key.code {
            K::Up | K::Char('k') => Some(A::Up),
            K::Down | K::Char('j') => Some(A::Down),
            K::PageUp => Some(A::PageUp),
            K::PageDown | K::Char(' ') => Some(A::PageDown),
            K::Home | K::Char('g') => Some(A::Top),
            K::End | K::Char('G') => Some(A::Bottom),
            K::Enter => Some(A::Open),
            K::Esc | K::Char('q' | 'P') => Some(A::Back),
            K::Char('?') => Some(A::Help),
            _ => None,
        },
        Context::Search | Context::Picker | Context::ExportPath => text_action(context, key, ctrl, alt),
        Context::ExportMenu => match key.code {
            K::Char('s') => Some(A::Choose(Choice::Save)),
            K::Char('c' | 'y') => Some(A::Choose(Choice::Copy)),
            K::Char('p') => Some(A::Choose(Choice::Print)),
            K::Up | K::Char('k') => Some(A::Up),
            K::Down | K::Char('j') => Some(A::Down),
            K::Enter => Some(A::Open),
            K::Esc | K::Char('q') => Some(A::Back),
            _ => None,
        },
        Context::ExportConfirm => match key.code {
            K::Char('y') => Some(A::Confirm(true)),
            K::Char('n') | K::Esc => Some(A::Confirm(false)),
            _ => None,
        },
        Context::Graph => match key.code {
            K::Tab => Some(A::NextNode),
            K::BackTab => Some(A::PrevNode),
            K::Backspace => Some(A::WalkBack),
            K::Char('a' | '+') => Some(A::ApplyNode),
            K::Char('o') => Some(A::OpenCase),
            _ => action(Context::Detail, key),
        },
        Context::Filters | Context::Results | Context::Detail => match key.code {
            K::Enter if alt => Some(A::ApplySuggestion),
            K::Char('q') => Some(A::Quit),
            K::Char('?') => Some(A::Help),
            K::Char('/') => Some(A::FocusSearch),
            K::Esc => Some(A::Back),
            K::Tab => Some(A::FocusNext),
            K::BackTab => Some(A::FocusPrev),
            K::Up | K::Char('k') => Some(A::Up),
            K::Down | K::Char('j') => Some(A::Down),
            K::Char('u') if ctrl => Some(A::PageUp),
            K::Char('d') if ctrl => Some(A::PageDown),
            K::PageUp => Some(A::PageUp),
            K::PageDown | K::Char(' ') => Some(A::PageDown),
            K::Home | K::Char('g') => Some(A::Top),
            K::End | K::Char('G') => Some(A::Bottom),
            K::Left | K::Char('h') => Some(A::Left),
            K::Right | K::Char('l') => Some(A::Right),
            K::Enter => Some(A::Open),
            K::Char('+' | 'a') => Some(A::ApplySuggestion),
            K::Char('-') => Some(A::Negate),
            K::Char('D') => Some(A::Checks),
            K::Char('P') => Some(A::Preflight),
            K::Delete | K::Backspace | K::Char('d') => Some(A::Remove),
            K::Char('v') => Some(A::CyclePane),
            K::Char('w') => Some(A::ToggleWeaker),
            K::Char('x') => Some(A::Export),
            K::Char('y') => Some(A::Copy),
            K::Char('f') => Some(A::Picker(None)),
            K::Char(c @ '1'..='4') => {
                Some(A::Picker(FacetKind::ALL.get(usize::from(c as u8 - b'1')).copied()))
            }
            _ => None,
        },
    }
}

fn text_action(context: Context, key: KeyEvent, ctrl: bool, alt: bool) -> Option<Action> {
    use Action as A;
    use KeyCode as K;
    let picker = context == Context::Picker;
    match key.code {
        K::Enter if alt => Some(if picker { A::Open } else { A::ApplySuggestion }),
        K::Enter => Some(A::Open),
        K::Esc => Some(A::Back),
        K::Tab => Some(if picker { A::NextKind } else { A::FocusNext }),
        K::BackTab => Some(if picker { A::PrevKind } else { A::FocusPrev }),
        K::Up => Some(A::Up),
        K::Down => Some(A::Down),
        K::Char('p') if ctrl => Some(A::Up),
        K::Char('n') if ctrl => Some(A::Down),
        K::PageUp => Some(A::PageUp),
        K::PageDown => Some(A::PageDown),
        K::Backspace if ctrl || alt => Some(A::DeleteWord),
        K::Char('w' | 'h') if ctrl => {
            Some(if key.code == K::Char('w') { A::DeleteWord } else { A::Backspace })
        }
        K::Backspace => Some(A::Backspace),
        K::Delete => Some(A::Delete),
        K::Char('u') if ctrl => Some(A::DeleteToStart),
        K::Char('k') if ctrl => Some(A::DeleteToEnd),
        K::Char('a') if ctrl => Some(A::CursorHome),
        K::Char('e') if ctrl => Some(A::CursorEnd),
        K::Char('b') if ctrl => Some(A::CursorLeft),
        K::Char('f') if ctrl => Some(A::CursorRight),
        K::Left => Some(A::CursorLeft),
        K::Right => Some(A::CursorRight),
        K::Home => Some(A::CursorHome),
        K::End => Some(A::CursorEnd),
        K::Char(c) if !ctrl && !alt => Some(A::Insert(c)),
        _ => None,
    }
}

/// The help overlay: groups of (keys, what they do).
pub const HELP: &[(&str, &[(&str, &str)])] = &[
    (
        "Anywhere",
        &[
            ("Ctrl-C", "quit"),
            ("F1", "this help"),
            ("Ctrl-Z", "suspend to the shell (fg comes back)"),
            ("Tab  Shift-Tab", "next / previous pane"),
            ("Ctrl-T  Alt-Enter", "apply the highlighted suggested filter"),
            ("Ctrl-X", "export a checklist (as x, also while typing)"),
        ],
    ),
    (
        "Search box",
        &[
            ("type", "search as you type; inline filters: component:nccl -root:overheating year:2024"),
            ("Enter  ↓", "go to the case list"),
            ("Esc", "clear the search (again: go to the case list)"),
            ("Ctrl-W  Ctrl-U  Ctrl-K", "delete a word / to the start / to the end"),
            ("← → Home End", "move the cursor (also Ctrl-A, Ctrl-E)"),
        ],
    ),
    (
        "Everywhere else",
        &[
            ("/", "search"),
            ("j k ↑ ↓", "move"),
            ("PgUp PgDn Space", "move a page (also Ctrl-U, Ctrl-D)"),
            ("g G Home End", "first / last"),
            ("+  a", "apply the highlighted suggested filter"),
            ("-", "exclude the highlighted value (on a chip: flip include/exclude)"),
            ("f  1 2 3 4", "pick filter values: any kind / root cause, component, symptom, factor"),
            ("v", "right pane: case, graph, breakdown"),
            ("D", "what the node audit found here for the listed cases (incidex doctor)"),
            ("w", "list the weaker matches of the sentence too (again: hide them)"),
            ("x", "export the checklist of the component under the cursor, or of the filters"),
            ("y", "copy the highlighted source's address, else the case's id (OSC 52)"),
            ("Esc", "back"),
            ("?", "this help"),
            ("q", "quit"),
        ],
    ),
    (
        "Filters row",
        &[
            ("← → h l", "move between chips and suggestions"),
            ("Enter", "apply a suggestion; remove a chip; Clear all"),
            ("d  Del  Backspace", "remove the chip"),
        ],
    ),
    ("Case list", &[("Enter", "open the case")]),
    (
        "Case pane",
        &[
            ("j k PgUp PgDn", "scroll"),
            ("← → h l", "highlight a facet value, then a source's address"),
            ("Enter", "apply the highlighted value as a filter"),
            ("y", "copy the highlighted address (shown whole below), else the case's id"),
        ],
    ),
    (
        "Graph pane",
        &[
            ("← → ↑ ↓ h j k l", "highlight the nearest node that way"),
            ("Tab  Shift-Tab", "highlight the next / previous node"),
            ("Enter", "put the highlighted node in the middle"),
            ("Backspace", "go back along the walk"),
            ("a  -", "apply the highlighted value as a filter / exclude it"),
            ("o", "open the highlighted case"),
        ],
    ),
    (
        "Breakdown pane",
        &[
            ("← → h l", "by root cause, component, symptom, factor, year"),
            ("j k", "highlight a bar"),
            ("Enter", "apply the highlighted bar as a filter"),
        ],
    ),
    (
        "Filter picker",
        &[
            ("type", "narrow the list (fuzzy); start with - to exclude"),
            ("↑ ↓", "move"),
            ("Tab  Shift-Tab", "next / previous kind"),
            ("Enter", "apply"),
            ("Esc", "close"),
        ],
    ),
    (
        "Export dialog",
        &[
            ("s", "save to a file (asks before overwriting)"),
            ("c  y", "copy to the clipboard with OSC 52 (works over SSH, tmux, screen)"),
            ("p", "close incidex now and print it to stdout"),
            ("Esc", "close"),
        ],
    ),
    ("Mouse (with --mouse)", &[("click", "focus and select"), ("wheel", "scroll")]),
];

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn with(code: KeyCode, m: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, m)
    }

    #[test]
    fn letters_are_text_in_fields_and_commands_elsewhere() {
        for (context, code, want) in [
            (Context::Search, KeyCode::Char('q'), Some(Action::Insert('q'))),
            (Context::Search, KeyCode::Char('-'), Some(Action::Insert('-'))),
            (Context::Picker, KeyCode::Char('j'), Some(Action::Insert('j'))),
            (Context::Results, KeyCode::Char('q'), Some(Action::Quit)),
            (Context::Results, KeyCode::Char('j'), Some(Action::Down)),
            (Context::Detail, KeyCode::Char('v'), Some(Action::CyclePane)),
            (Context::Filters, KeyCode::Char('-'), Some(Action::Negate)),
            (Context::Results, KeyCode::Char('+'), Some(Action::ApplySuggestion)),
            (Context::Results, KeyCode::Char('3'), Some(Action::Picker(Some(FacetKind::Symptom)))),
            (Context::Results, KeyCode::Char('f'), Some(Action::Picker(None))),
            (Context::Help, KeyCode::Char('q'), Some(Action::Help)),
            (Context::Picker, KeyCode::Tab, Some(Action::NextKind)),
            (Context::Search, KeyCode::Tab, Some(Action::FocusNext)),
            (Context::Results, KeyCode::Char('x'), Some(Action::Export)),
            (Context::Search, KeyCode::Char('x'), Some(Action::Insert('x'))),
            (Context::Graph, KeyCode::Char('a'), Some(Action::ApplyNode)),
            (Context::Graph, KeyCode::Char('j'), Some(Action::Down)),
            (Context::Graph, KeyCode::Tab, Some(Action::NextNode)),
            (Context::Graph, KeyCode::Backspace, Some(Action::WalkBack)),
            (Context::Detail, KeyCode::Backspace, Some(Action::Remove)),
            (Context::ExportMenu, KeyCode::Char('c'), Some(Action::Choose(Choice::Copy))),
            (Context::ExportPath, KeyCode::Char('c'), Some(Action::Insert('c'))),
            (Context::ExportConfirm, KeyCode::Char('y'), Some(Action::Confirm(true))),
            (Context::Results, KeyCode::Char('y'), Some(Action::Copy)),
            (Context::Graph, KeyCode::Char('y'), Some(Action::Copy)),
            (Context::Search, KeyCode::Char('y'), Some(Action::Insert('y'))),
        ] {
            assert_eq!(action(context, key(code)), want, "{context:?} {code:?}");
        }
    }

    #[test]
    fn ctrl_c_quits_and_f1_helps_everywhere() {
        for context in [
            Context::Search,
            Context::Filters,
            Context::Results,
            Context::Detail,
            Context::Picker,
            Context::Help,
            Context::Graph,
            Context::ExportMenu,
            Context::ExportPath,
            Context::ExportConfirm,
        ] {
            assert_eq!(action(context, with(KeyCode::Char('c'), KeyModifiers::CONTROL)), Some(Action::Quit));
            assert_eq!(
                action(context, with(KeyCode::Char('x'), KeyModifiers::CONTROL)),
                Some(Action::Export)
            );
            assert_eq!(action(context, key(KeyCode::F(1))), Some(Action::Help));
            assert_eq!(
                action(context, with(KeyCode::Char('z'), KeyModifiers::CONTROL)),
                Some(Action::Suspend)
            );
        }
    }

    #[test]
    fn ctrl_t_applies_the_suggestion_wherever_alt_enter_does() {
        let ctrl_t = with(KeyCode::Char('t'), KeyModifiers::CONTROL);
        for context in [Context::Search, Context::Filters, Context::Results, Context::Detail] {
            assert_eq!(action(context, ctrl_t), Some(Action::ApplySuggestion), "{context:?}");
            assert_eq!(
                action(context, with(KeyCode::Enter, KeyModifiers::ALT)),
                Some(Action::ApplySuggestion),
                "{context:?}"
            );
        }
        assert_eq!(action(Context::Picker, ctrl_t), Some(Action::Open));
        assert_eq!(action(Context::Graph, ctrl_t), Some(Action::ApplySuggestion));
        assert_eq!(action(Context::ExportPath, ctrl_t), None);
        assert_eq!(action(Context::Search, key(KeyCode::Char('t'))), Some(Action::Insert('t')));
    }

    #[test]
    fn alt_enter_applies_the_suggestion_from_the_search_box() {
        assert_eq!(
            action(Context::Search, with(KeyCode::Enter, KeyModifiers::ALT)),
            Some(Action::ApplySuggestion)
        );
        assert_eq!(action(Context::Search, key(KeyCode::Enter)), Some(Action::Open));
        assert_eq!(
            action(Context::Search, with(KeyCode::Char('w'), KeyModifiers::CONTROL)),
            Some(Action::DeleteWord)
        );
        assert_eq!(
            action(Context::Search, with(KeyCode::Char('h'), KeyModifiers::CONTROL)),
            Some(Action::Backspace)
        );
    }

    #[test]
    fn help_covers_every_key_group() {
        let groups: Vec<&str> = HELP.iter().map(|(g, _)| *g).collect();
        for want in ["Anywhere", "Search box", "Case pane", "Breakdown pane", "Filter picker"] {
            assert!(groups.contains(&want), "{groups:?}");
        }
        let keys: String =
            HELP.iter().flat_map(|(_, rows)| rows.iter().map(|(k, _)| *k)).collect::<Vec<_>>().join(" ");
        for k in [
            "Ctrl-C",
            "Alt-Enter",
            "/",
            "Esc",
            "Tab",
            "j k",
            "PgUp",
            "g G",
            "Enter",
            "+",
            "-",
            "f  1 2 3 4",
            "v",
            "?",
            "q",
        ] {
            assert!(keys.contains(k), "help does not list {k}");
        }
    }
}
