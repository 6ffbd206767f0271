//! What the terminal UI's tests without a terminal share: a fixture library with its own
//! taxonomy, the screen drawn into ratatui's `TestBackend`, and that screen as text.

use std::{path::Path, sync::Arc};

use incidex::{
    corpus::{Library, LoadOptions},
    taxonomy::Taxonomy,
    tui::{app::App, style::Styles, ui},
};
use ratatui::{Terminal, backend::TestBackend, buffer::Buffer, style::Modifier};

/// The fixture library in `tests/fixtures/<name>`, searched with its own `taxonomy.toml` only
/// (so the bundled taxonomy can grow without churning snapshots).
pub fn fixture_library(name: &str) -> Arc<Library> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    let mut library = Library::load(&LoadOptions { bundled: false, dirs: vec![dir.clone()] });
    let text = std::fs::read_to_string(dir.join("taxonomy.toml")).unwrap();
    library.taxonomy = Taxonomy::parse("taxonomy.toml", &text).0;
    Arc::new(library)
}

/// The whole screen `app` draws at its size.
pub fn render(app: &App, styles: &Styles) -> Buffer {
    let (w, h) = app.size;
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::render(f, app, styles)).unwrap();
    terminal.backend().buffer().clone()
}

/// `buf` as text, a line a row (wide characters once). With `attributes`, each row is followed
/// by a row marking reversed (`r`), bold (`b`) and underlined (`u`) cells, when it has any: what
/// the mono theme shows instead of colour.
pub fn screen_text(buf: &Buffer, attributes: bool) -> String {
    let mut out = String::new();
    for y in 0..buf.area.height {
        let mut row = String::new();
        let mut marks = String::new();
        let mut skip = 0;
        for x in 0..buf.area.width {
            let cell = &buf[(x, y)];
            let m = cell.modifier;
            let mark = if m.contains(Modifier::REVERSED) {
                'r'
            } else if m.contains(Modifier::BOLD) {
                'b'
            } else if m.contains(Modifier::UNDERLINED) {
                'u'
            } else {
                ' '
            };
            marks.push(mark);
            if skip > 0 {
                skip -= 1;
                continue;
            }
            row.push_str(cell.symbol());
            skip = unicode_width::UnicodeWidthStr::width(cell.symbol()).saturating_sub(1);
        }
        out.push_str(row.trim_end());
        out.push('\n');
        if attributes && !marks.trim().is_empty() {
            out.push_str(&format!("{}\n", marks.trim_end()));
        }
    }
    out
}
