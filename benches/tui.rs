//! The terminal UI's budgets (DESIGN.md §8) on the bundled library at 120×40: the time from a
//! keystroke to the drawn frame (update, search, render, diff and write) and the bytes written
//! to the terminal per keystroke while someone types a sentence.
//!
//! Run with `cargo bench --bench tui`. The bytes are printed before divan's table.

use std::{
    io::Write,
    sync::{Arc, Mutex},
};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use incidex::{
    corpus::Library,
    settings::theme::{ColorDepth, Theme},
    tui::{
        app::{App, Effect, Options},
        event::Msg,
        style::Styles,
        ui,
        worker::Searcher,
    },
};
use ratatui::{Terminal, TerminalOptions, Viewport, backend::CrosstermBackend, layout::Rect};

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;
const SENTENCE: &str = "training job hung at the end of the epoch checkpoint with gpus at 100% nccl timeout";

/// A terminal output that counts what is written to it.
#[derive(Clone, Default)]
struct Counter(Arc<Mutex<usize>>);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        *self.0.lock().unwrap() += buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Someone typing the sentence over and over into the search box.
struct Typing {
    app: App,
    searcher: Searcher,
    styles: Styles,
    terminal: Terminal<CrosstermBackend<Counter>>,
    written: Counter,
    next: usize,
}

impl Typing {
    fn new() -> Typing {
        let library = Arc::new(Library::bundled());
        let searcher = Searcher::new(library.clone());
        let (app, effects) = App::new(library, (WIDTH, HEIGHT), Options::default());
        let written = Counter::default();
        let terminal = Terminal::with_options(
            CrosstermBackend::new(written.clone()),
            TerminalOptions { viewport: Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT)) },
        )
        .unwrap();
        let styles = Styles::new(&Theme::bundled("default").unwrap(), ColorDepth::Ansi256);
        let mut typing = Typing { app, searcher, styles, terminal, written, next: 0 };
        typing.run(effects);
        typing.draw();
        typing
    }

    fn run(&mut self, mut effects: Vec<Effect>) {
        while let Some(effect) = effects.pop() {
            if let Effect::Search(request) = effect {
                let response = self.searcher.run(&request);
                effects.extend(self.app.update(Msg::Searched(Box::new(response))));
            }
        }
    }

    fn draw(&mut self) -> usize {
        let before = *self.written.0.lock().unwrap();
        if self.app.take_dirty() {
            let (app, styles) = (&self.app, &self.styles);
            self.terminal.draw(|f| ui::render(f, app, styles)).unwrap();
        }
        *self.written.0.lock().unwrap() - before
    }

    /// One keystroke, its search and its frame; the bytes the frame wrote.
    fn keystroke(&mut self) -> usize {
        let key = match SENTENCE.chars().nth(self.next) {
            Some(c) => KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE),
            // At the end, clear the box (Ctrl-U) and start again.
            None => KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL),
        };
        self.next = (self.next + 1) % (SENTENCE.chars().count() + 1);
        let effects = self.app.update(Msg::Key(key));
        self.run(effects);
        self.draw()
    }
}

fn main() {
    let mut typing = Typing::new();
    let mut bytes: Vec<usize> = (0..SENTENCE.len() * 3).map(|_| typing.keystroke()).collect();
    bytes.sort_unstable();
    let mean = bytes.iter().sum::<usize>() / bytes.len();
    let over = bytes.iter().filter(|&&b| b > 4096).count();
    println!(
        "bytes written per keystroke at {WIDTH}x{HEIGHT} over {} keystrokes: median {} B, mean {mean} B, p95 {} B, max {} B; {over} over 4 KiB",
        bytes.len(),
        bytes[bytes.len() / 2],
        bytes[bytes.len() * 95 / 100],
        bytes[bytes.len() - 1],
    );
    divan::main();
}

/// A keystroke in the search box to its drawn frame: update, search, render, diff, write.
#[divan::bench]
fn keystroke_to_frame(bencher: divan::Bencher) {
    let mut typing = Typing::new();
    bencher.bench_local(move || typing.keystroke());
}

/// Moving the selection in the case list (no search): update, render, diff, write.
#[divan::bench]
fn list_move_to_frame(bencher: divan::Bencher) {
    let mut typing = Typing::new();
    typing.app.update(Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)));
    let mut down = true;
    let mut steps = 0;
    bencher.bench_local(move || {
        steps += 1;
        if steps % 30 == 0 {
            down = !down;
        }
        let key = if down { KeyCode::Char('j') } else { KeyCode::Char('k') };
        let effects = typing.app.update(Msg::Key(KeyEvent::new(key, KeyModifiers::NONE)));
        typing.run(effects);
        typing.draw()
    });
}
