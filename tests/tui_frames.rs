//! Every message that changes what is drawn produces a frame: the main loop draws only when
//! `App::take_dirty` says so, so a state change that forgets to mark the frame dirty shows only
//! at some later, unrelated redraw (the graph pane's `o` did, with its note never shown). The
//! test plays the main loop over the graph fixture: after each key it either draws (dirty) or
//! checks that the frame it would draw is the one on the screen. No key is pressed to force a
//! frame.

#[path = "tui_support/mod.rs"]
mod tui_support;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use incidex::{
    settings::theme::{ColorDepth, Theme},
    tui::{
        app::{App, Effect, Options},
        event::Msg,
        style::Styles,
        worker::Searcher,
    },
};
use ratatui::buffer::Buffer;
use tui_support::{fixture_library, render, screen_text};

struct Loop {
    app: App,
    searcher: Searcher,
    styles: Styles,
    /// What the terminal shows: the last frame drawn.
    shown: Buffer,
    /// The keys so far, for the failure message.
    pressed: Vec<String>,
}

impl Loop {
    fn new(width: u16, height: u16) -> Loop {
        let library = fixture_library("graph");
        let searcher = Searcher::new(library.clone());
        let options = Options { date: "2025-01-01".into(), ..Options::default() };
        let (app, effects) = App::new(library, (width, height), options);
        let styles = Styles::new(&Theme::bundled("default").unwrap(), ColorDepth::TrueColor);
        let shown = render(&app, &styles);
        let mut l = Loop { app, searcher, styles, shown, pressed: Vec::new() };
        l.run(effects);
        l.frame("start");
        l
    }

    /// Run effects as the main loop does (searches answered at once; copies and exports are
    /// only the terminal's business and change nothing drawn until their outcome comes back).
    fn run(&mut self, mut effects: Vec<Effect>) {
        while let Some(effect) = effects.pop() {
            if let Effect::Search(request) = effect {
                let response = self.searcher.run(&request);
                effects.extend(self.app.update(Msg::Searched(Box::new(response))));
            }
        }
    }

    /// The main loop's draw: a frame when dirty, else the screen must already be right.
    fn frame(&mut self, what: &str) {
        let now = render(&self.app, &self.styles);
        if self.app.take_dirty() {
            self.shown = now;
        } else if now != self.shown {
            panic!(
                "{what} changed what is drawn but produced no frame (after {:?})\nshown:\n{}\nshould be:\n{}",
                self.pressed,
                screen_text(&self.shown, false),
                screen_text(&now, false)
            );
        }
    }

    fn key(&mut self, code: KeyCode) -> &mut Self {
        self.with(code, KeyModifiers::NONE)
    }

    fn with(&mut self, code: KeyCode, modifiers: KeyModifiers) -> &mut Self {
        let name = format!("{modifiers:?}+{code:?}");
        self.pressed.push(name.clone());
        let effects = self.app.update(Msg::Key(KeyEvent::new(code, modifiers)));
        self.run(effects);
        self.frame(&name);
        self
    }

    fn typed(&mut self, text: &str) -> &mut Self {
        for c in text.chars() {
            self.key(KeyCode::Char(c));
        }
        // The pause in typing comes from the main loop's timer; it draws when it changes.
        self.app.typing_paused();
        self.frame("the pause in typing");
        self
    }
}

#[test]
fn the_graph_panes_o_opens_the_case_in_the_same_frame() {
    let mut l = Loop::new(120, 40);
    l.typed("zeta fine-tune").key(KeyCode::Enter).key(KeyCode::Char('v'));
    if l.app.focus != incidex::tui::app::Focus::Detail {
        l.key(KeyCode::Tab);
    }
    // Walk the highlight over the case nodes; `o` on each (a value only gets a note).
    for _ in 0..12 {
        l.key(KeyCode::Tab).key(KeyCode::Char('o'));
        if l.app.right != incidex::tui::app::RightPane::Graph {
            l.key(KeyCode::Char('v')).key(KeyCode::Char('v'));
        }
    }
}

/// Many keys in every pane and overlay: each key that changes the screen draws it.
#[test]
fn every_key_that_changes_the_screen_draws_a_frame() {
    use KeyCode::*;
    for (w, h) in [(80, 24), (160, 48), (60, 20)] {
        let mut l = Loop::new(w, h);
        l.typed("hang checkpoint");
        let keys: Vec<KeyCode> = vec![
            Down,
            Up,
            Tab,
            Down,
            Down,
            Enter,
            Char('j'),
            Char('k'),
            PageDown,
            PageUp,
            End,
            Home,
            Char('v'),
            Tab,
            Right,
            Left,
            Tab,
            Tab,
            Char('a'),
            Char('o'),
            Backspace,
            Char('v'),
            Char('v'),
            Esc,
            Esc,
            Char('f'),
            Down,
            Down,
            Up,
            Tab,
            Esc,
            Char('3'),
            Char('h'),
            Enter,
            Tab,
            Tab,
            Char('-'),
            Backspace,
            Char('?'),
            Down,
            PageDown,
            Esc,
            Char('x'),
            Esc,
            Char('w'),
            Char('+'),
            Tab,
            Enter,
            Char('v'),
            Tab,
            Char('-'),
            Char('a'),
            Char('o'),
            Esc,
            Char('/'),
            Backspace,
            Backspace,
            Char('q'),
            Esc,
            Esc,
        ];
        for code in keys {
            l.key(code);
        }
    }
}
