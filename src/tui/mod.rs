//! The terminal UI (DESIGN.md §4), as The Elm Architecture on plain threads.
//!
//! One message type ([`event::Msg`]) is fed by the input thread, the signal thread and the
//! search worker into one channel. The main loop hands each message to [`app::App::update`],
//! which changes the state and returns effects; the loop runs them (send a search, save the
//! session, suspend, quit) and draws — only when something changed, so an idle UI uses no CPU.
//! After a keystroke that starts a search the loop waits up to [`FRAME_WAIT`] for its answer
//! before drawing, so the next frame shows the new results, while further keys keep being
//! handled in the meantime: input never waits for search.
//!
//! The library is opened on a thread ([`loader`]). When it is in within [`LOAD_WAIT`] the UI
//! starts on it as if it had been there all along; otherwise the UI starts at once on an interim
//! library (the bundled one, or none) with a gauge, stays usable, and switches when it is in.
//!
//! Only this module (and its children) talks to a terminal.

pub mod app;
pub mod clipboard;
pub mod doc;
pub mod event;
pub mod export;
pub mod graph_view;
pub mod help;
pub mod hyperlink;
pub mod input;
pub mod keymap;
pub mod layout;
pub mod loader;
pub mod osc52;
pub mod paste;
pub mod session;
pub mod style;
pub mod terminal;
pub mod ui;
pub mod worker;

use std::{
    io::{BufWriter, IsTerminal},
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use ratatui::{Terminal, backend::CrosstermBackend, layout::Rect};

use self::{
    app::{App, Effect, Interim, Options},
    event::Msg,
    export::{Job, Outcome},
    hyperlink::Hyperlinks,
    loader::{Loaded, Problems},
    style::Styles,
    terminal::TerminalGuard,
    worker::{Request, Search},
};
use crate::{
    corpus::{Library, LoadOptions},
    settings::config::Settings,
    settings::theme::{self, ColorDepth},
    support::error::{Error, Result},
    support::progress::ProgressFn,
};

/// How long a frame waits for the answer to the search a keystroke started.
pub const FRAME_WAIT: Duration = Duration::from_millis(12);

/// How long start-up waits for the library before showing the UI on the interim library with
/// a gauge: long enough that a warm cache never shows a gauge (100,000 cases open in about
/// 210 ms on two cores), short enough to stay within the 300 ms budget for a first frame.
pub const LOAD_WAIT: Duration = Duration::from_millis(250);

/// How long after the last key typed into the search box the case pane catches up with the
/// best match (`App::case_held`): while someone types fast, the list follows every key and the
/// case pane, redrawn whole whenever the best match changes, is drawn once at the pause.
pub const TYPING_PAUSE: Duration = Duration::from_millis(60);

/// The session (for `--resume`) is written at most once in this long: a flood of keys queues a
/// change per key, and writing each one made quitting after 100,000 keys take 16-28 s. What is
/// not written yet is written once the keys pause, and always on the way out.
pub const SAVE_EVERY: Duration = Duration::from_secs(1);

/// Bytes buffered per frame before a write: one write per frame, even over SSH.
const OUTPUT_BUFFER: usize = 1 << 16;

fn terminal_error(e: std::io::Error) -> Error {
    Error::io("<terminal>", e)
}

/// Whether a write to the terminal failed because the terminal is gone (the pty closed: EIO,
/// ENXIO, a broken pipe), not because of anything to report.
fn terminal_gone(e: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(e.kind(), ErrorKind::BrokenPipe | ErrorKind::NotConnected | ErrorKind::UnexpectedEof)
        || matches!(e.raw_os_error(), Some(libc::EIO | libc::ENXIO))
}

/// How the terminal UI ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit, or the terminal went away.
    Quit,
    /// A signal ended it (SIGHUP, SIGTERM, SIGINT sent from outside), after the terminal was
    /// given back.
    Signal(event::Signal),
}

impl Ended {
    /// The exit status to end with: 0, or `128 + signal` as a shell reports a process the
    /// signal ended (129 for SIGHUP, 130 for SIGINT, 143 for SIGTERM).
    pub fn exit_status(self) -> u8 {
        match self {
            Ended::Quit => 0,
            Ended::Signal(signal) => u8::try_from(128 + signal.number()).unwrap_or(u8::MAX),
        }
    }
}

/// Run the terminal UI over the library `open` returns (called on a thread, see the module
/// docs) until the user quits or the terminal goes away. `report` hears what went wrong while
/// the library was opened, once the terminal has been given back (never, when the user quit
/// before it was in).
pub fn run(
    settings: &Settings,
    preflight: Vec<crate::doctor::spec::FileReport>,
    open: impl FnOnce(ProgressFn<'_>) -> loader::Opened + Send + 'static,
    report: impl FnOnce(&Problems),
) -> Result<Ended> {
    let mut problems = None;
    let mut ended_by = None;
    let result = run_ui(settings, preflight, open, &mut problems, &mut ended_by);
    if let Some(problems) = problems.filter(|p| !p.is_empty()) {
        report(&problems);
    }
    // A signal asked the UI to end: that is how it ended, even if giving back a terminal that
    // went away failed on the way.
    match ended_by {
        Some(signal) => Ok(Ended::Signal(signal)),
        // The terminal went away (a closed pty, a dropped SSH session) before its SIGHUP reached
        // the loop: what failed on the way (a redraw, a size query, a mode switch) failed
        // because of that, and there is no one left to tell. A CI run once ended here with 1.
        None if result.is_err() && terminal::hung_up() => Ok(Ended::Quit),
        None => result.map(|()| Ended::Quit),
    }
}

/// The search worker of the moment, and how to start the next one when the library switches.
struct Searches {
    tx: mpsc::Sender<Request>,
    /// The UI's channel, for a new worker's answers; `None` once the library is in.
    msgs: Option<mpsc::Sender<Msg>>,
}

impl Searches {
    fn start(search: Search, library: Arc<Library>, msgs: mpsc::Sender<Msg>) -> Result<Searches> {
        let reply = {
            let msgs = msgs.clone();
            move |response| msgs.send(Msg::Searched(Box::new(response))).is_ok()
        };
        let tx = worker::spawn_search(library, search, reply)
            .map_err(|e| Error::Failed(format!("cannot start the search: {e}")))?;
        Ok(Searches { tx, msgs: Some(msgs) })
    }

    fn send(&self, request: Request) -> Result<()> {
        self.tx.send(request).map_err(|_| Error::Failed("the search stopped".into()))
    }
}

/// Hand `msg` to the app. The library opened in the background is taken apart first: its
/// engine goes to a new search worker (the old one ends when its sender is dropped; answers it
/// still sends belong to an older generation and are dropped), its problems are kept for
/// `report`, the rest goes to the app. The first signal that ends the UI is kept in `ended_by`:
/// it decides the exit status.
fn deliver(
    msg: Msg,
    app: &mut App,
    searches: &mut Searches,
    problems: &mut Option<Problems>,
    ended_by: &mut Option<event::Signal>,
) -> Result<Vec<Effect>> {
    if let Msg::Signal(signal) = msg
        && signal != event::Signal::Continue
    {
        ended_by.get_or_insert(signal);
    }
    let mut loaded = match msg {
        Msg::Loaded(loaded) => loaded,
        Msg::LoadFailed(why) => return Err(Error::Failed(why)),
        msg => return Ok(app.update(msg)),
    };
    if let (Some(search), Some(msgs)) = (loaded.search.take(), searches.msgs.take()) {
        build_graph_apart(&loaded.library, &msgs);
        *searches = Searches::start(search, loaded.library.clone(), msgs)?;
        searches.msgs = None;
    }
    *problems = Some(loaded.problems.clone());
    Ok(app.update(Msg::Loaded(loaded)))
}

/// For a large library, build its graph on a thread of its own (a few hundred milliseconds at
/// 100,000 cases, which the first frame must not wait for); the app takes it when it comes.
fn build_graph_apart(library: &Arc<Library>, msgs: &mpsc::Sender<Msg>) {
    if !app::graph_built_apart(library) {
        return;
    }
    let (library, msgs) = (library.clone(), msgs.clone());
    let built = std::thread::Builder::new().name("incidex-graph".into()).spawn(move || {
        let graph = crate::graph::Graph::build(&library.cases);
        let _ = msgs.send(Msg::GraphBuilt(library, Box::new(graph)));
    });
    // Without the thread the app builds the graph itself when it is first needed.
    drop(built);
}

/// Read a pasted log on a thread of its own; its answer comes back as a message (none when the
/// app cancels the job first). Without a thread, the paste is read here: slower to answer, but
/// read.
fn read_log_apart(job: paste::LogJob, msgs: &mpsc::Sender<Msg>) {
    let send = {
        let msgs = msgs.clone();
        move |job: &paste::LogJob| {
            if let Some(read) = job.run() {
                let _ = msgs.send(Msg::LogRead(Box::new(read)));
            }
        }
    };
    let apart = job.clone();
    let spawned = std::thread::Builder::new().name("incidex-paste".into()).spawn({
        let send = send.clone();
        move || send(&apart)
    });
    if spawned.is_err() {
        send(&job);
    }
}

/// Wait up to `wait` for the loader: the library when it is in by then, else the last progress
/// heard; an error when the loader failed.
fn wait_for_load(
    rx: &mpsc::Receiver<Msg>,
    wait: Duration,
) -> Result<std::result::Result<Box<Loaded>, Option<crate::support::progress::Progress>>> {
    let deadline = Instant::now().checked_add(wait);
    let mut progress = None;
    loop {
        let msg = match deadline {
            Some(deadline) => rx.recv_timeout(deadline.saturating_duration_since(Instant::now())),
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
        };
        match msg {
            Ok(Msg::Loaded(loaded)) => return Ok(Ok(loaded)),
            Ok(Msg::Progress(p)) => progress = Some(p),
            Ok(Msg::LoadFailed(why)) => return Err(Error::Failed(why)),
            // Nothing else sends before the UI starts.
            Ok(_) => {}
            Err(_) => return Ok(Err(progress)),
        }
    }
}

fn run_ui(
    settings: &Settings,
    preflight: Vec<crate::doctor::spec::FileReport>,
    open: impl FnOnce(ProgressFn<'_>) -> loader::Opened + Send + 'static,
    problems: &mut Option<Problems>,
    ended_by: &mut Option<event::Signal>,
) -> Result<()> {
    // The theme first: a broken theme file is reported the same with or without a terminal.
    let theme = theme::resolve(settings.theme.as_deref(), settings.no_color, theme::user_dir().as_deref())?;
    if !std::io::stdout().is_terminal() {
        return Err(Error::Usage(
            "the terminal UI needs a terminal; to print to a pipe or a file use a command such as `incidex list`"
                .into(),
        ));
    }
    if theme.has_color() {
        // Only when a colour theme was asked for by name under NO_COLOR: crossterm would turn
        // its colours into attribute resets (see STYLE.md), so the request is honoured in full.
        crossterm::style::force_color_output(true);
    }
    let styles = Styles::new(&theme, ColorDepth::from_env());
    let session_path = session::default_path();
    let (resume, note) = if settings.resume {
        match session_path.as_deref().map(session::load) {
            Some(Ok(Some(session))) => (Some(session), None),
            Some(Ok(None)) => (None, Some("no saved session to resume yet".to_string())),
            Some(Err(e)) => (None, Some(format!("cannot resume: {e}"))),
            None => (None, Some("cannot resume: no state directory ($XDG_STATE_HOME, $HOME)".to_string())),
        }
    } else {
        (None, None)
    };
    let (tx, rx) = mpsc::channel::<Msg>();
    let ui_started = Arc::new(AtomicBool::new(false));
    event::spawn_loader(open, ui_started.clone(), tx.clone())
        .map_err(|e| Error::Failed(format!("cannot start loading: {e}")))?;
    // Without a directory of the user's the library is the bundled one: quick, and nothing to
    // stand in for it. Otherwise the interim library is read only once the wait is over, so it
    // does not take a core from a warm start that would have made it in time.
    let waited = wait_for_load(&rx, if settings.data.is_empty() { Duration::MAX } else { LOAD_WAIT })?;
    let interim = (!settings.data.is_empty()).then_some(settings.bundled);
    // From here on a library that comes in is switched to with the UI running: the loader
    // builds its engine.
    ui_started.store(true, Ordering::SeqCst);
    event::spawn_audit(tx.clone());
    let (library, search, loading, progress) = match (waited, interim) {
        (Ok(mut loaded), _) => {
            *problems = Some(loaded.problems.clone());
            let search = loaded.search.take().unwrap_or(Search::Unbuilt(Box::default()));
            (loaded.library.clone(), search, None, None)
        }
        (Err(progress), Some(bundled)) => {
            // The bundled library as baked at build time: nothing to parse or index.
            let baked = if bundled { crate::store::embedded::open().ok() } else { None };
            let (interim, prebuilt) = baked.unwrap_or_else(|| {
                (Library::load(&LoadOptions { bundled, dirs: Vec::new() }), Default::default())
            });
            let kind = if settings.bundled { Interim::Bundled } else { Interim::Empty };
            (Arc::new(interim), Search::Unbuilt(Box::new(prebuilt)), Some(kind), progress)
        }
        // An unbounded wait ends with the library or an error.
        (Err(_), None) => return Err(Error::Failed("the library could not be loaded".into())),
    };
    let note = note.or_else(|| problems.as_ref().and_then(Problems::summary));

    terminal::install_panic_hook(settings.mouse);
    let guard = TerminalGuard::enter(settings.mouse).map_err(terminal_error)?;
    let backend = CrosstermBackend::new(BufWriter::with_capacity(OUTPUT_BUFFER, std::io::stdout()));
    let mut terminal = Terminal::new(backend).map_err(terminal_error)?;
    let size = terminal.size().map_err(terminal_error)?;

    event::spawn_signals(tx.clone(), settings.mouse).map_err(terminal_error)?;
    event::spawn_input(tx.clone()).map_err(terminal_error)?;
    let mut searches = Searches::start(search, library.clone(), tx.clone())?;
    build_graph_apart(&library, &tx);
    if loading.is_none() {
        // Nothing will switch.
        searches.msgs = None;
    }
    // For the threads that read pasted logs.
    let log_msgs = tx;

    let options = Options {
        mouse: settings.mouse,
        resume,
        note,
        date: crate::text::clock::today(),
        loading,
        preflight,
    };
    let (mut app, mut effects) = App::new(library, (size.width, size.height), options);
    if let Some(progress) = progress {
        effects.extend(app.update(Msg::Progress(progress)));
    }
    let mut links = Hyperlinks::new(hyperlink::enabled(settings.hyperlinks));
    let mut searched_at = Instant::now();
    let mut typed_at = Instant::now();
    let mut force_draw = false;
    // The newest session not written yet, and when one was last written.
    let mut unsaved: Option<session::Session> = None;
    let mut written_at: Option<Instant> = None;
    if session_path.is_none() {
        app.save_failed("no state directory ($XDG_STATE_HOME, $HOME)");
    }
    loop {
        let mut saves = Vec::new();
        for effect in effects.drain(..) {
            match effect {
                Effect::Search(request) => {
                    if app.awaiting_answer() {
                        searched_at = Instant::now();
                    }
                    searches.send(request)?;
                }
                Effect::Save(session) => saves.push(session),
                Effect::Suspend => {
                    use ratatui::backend::Backend;
                    terminal.backend_mut().flush().map_err(terminal_error)?;
                    guard.suspend().map_err(terminal_error)?;
                    clear(&mut terminal)?;
                    links.forget();
                    force_draw = true;
                }
                Effect::Redraw => {
                    guard.reenter().map_err(terminal_error)?;
                    clear(&mut terminal)?;
                    links.forget();
                    force_draw = true;
                }
                Effect::Quit => {
                    // What changed in the same burst as the quit is still kept for --resume.
                    if let (Some(path), Some(session)) = (&session_path, saves.pop().or(unsaved.take())) {
                        let _ = session::save(path, &session);
                    }
                    return Ok(());
                }
                Effect::Export(Job::Print { text }) => {
                    if let (Some(path), Some(session)) = (&session_path, saves.pop().or(unsaved.take())) {
                        let _ = session::save(path, &session);
                    }
                    // Give the terminal back first, so the text lands in the shell's scrollback.
                    drop(terminal);
                    drop(guard);
                    return print_checklist(&text);
                }
                Effect::Export(Job::Save { path, text, overwrite }) => {
                    let outcome = match crate::support::export::write_file(&path, text.as_bytes(), overwrite)
                    {
                        Ok(()) => Outcome::Saved(path),
                        Err(crate::support::export::ExportError::Exists(path)) => Outcome::Exists(path),
                        Err(e) => Outcome::Failed(e.to_string()),
                    };
                    app.export_finished(outcome);
                }
                Effect::Export(Job::Copy { text }) => {
                    let outcome = match copy_to_clipboard(&mut terminal, &text) {
                        Ok(copied) => Outcome::Copied(copied),
                        Err(why) => Outcome::Failed(why),
                    };
                    app.export_finished(outcome);
                }
                Effect::Copy(clip) => {
                    let written = copy_to_clipboard(&mut terminal, &clip.text);
                    app.copy_finished(&clip, written);
                }
                Effect::ReadLog(job) => read_log_apart(job, &log_msgs),
            }
        }
        // Give the search a moment to answer so this frame shows its results; keep handling
        // whatever arrives meanwhile.
        if app.awaiting_answer() {
            let left = FRAME_WAIT.saturating_sub(searched_at.elapsed());
            if !left.is_zero() {
                match rx.recv_timeout(left) {
                    Ok(msg) => {
                        if is_typing(&msg) {
                            typed_at = Instant::now();
                        }
                        effects = deliver(msg, &mut app, &mut searches, problems, ended_by)?;
                        drain(&rx, &mut app, &mut effects, &mut searches, problems, ended_by, &mut typed_at)?;
                        effects.extend(saves.into_iter().map(Effect::Save));
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
                }
            }
        }
        if app.take_dirty() | std::mem::take(&mut force_draw) {
            match draw(&mut terminal, &app, &styles, &mut links) {
                Ok(_) => {}
                // The terminal went away under the frame (a closed pty, a dropped SSH session):
                // that is a hang-up, not an error, whichever of the write and SIGHUP came first.
                Err(e) if terminal_gone(&e) => return Ok(()),
                Err(e) => return Err(terminal_error(e)),
            }
        }
        if let Some(session) = saves.pop().filter(|_| session_path.is_some()) {
            unsaved = Some(session);
        }
        if written_at.is_none_or(|t| t.elapsed() >= SAVE_EVERY)
            && let Some(session) = unsaved.take()
            && let Some(path) = &session_path
        {
            if let Err(e) = session::save(path, &session) {
                app.save_failed(&e.to_string());
            }
            written_at = Some(Instant::now());
        }
        if app.take_dirty() {
            match draw(&mut terminal, &app, &styles, &mut links) {
                Ok(_) => {}
                Err(e) if terminal_gone(&e) => return Ok(()),
                Err(e) => return Err(terminal_error(e)),
            }
        }
        // Wait for the next message; only until typing has paused for TYPING_PAUSE while the
        // case pane is held, and only until a session not written yet may be written.
        let typing = app.case_held().then(|| TYPING_PAUSE.saturating_sub(typed_at.elapsed()));
        let saving = unsaved
            .as_ref()
            .map(|_| written_at.map_or(Duration::ZERO, |t| SAVE_EVERY.saturating_sub(t.elapsed())));
        let msg = match typing.into_iter().chain(saving).min() {
            Some(wait) => match rx.recv_timeout(wait) {
                Ok(msg) => msg,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if app.case_held() && typed_at.elapsed() >= TYPING_PAUSE {
                        app.typing_paused();
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
            },
            None => {
                let Ok(msg) = rx.recv() else { return Ok(()) };
                msg
            }
        };
        if is_typing(&msg) {
            typed_at = Instant::now();
        }
        effects = deliver(msg, &mut app, &mut searches, problems, ended_by)?;
        drain(&rx, &mut app, &mut effects, &mut searches, problems, ended_by, &mut typed_at)?;
    }
}

/// Draw a frame for `app`, then make the source addresses on it hyperlinks where `links` is on
/// (written over the cells just drawn: see [`hyperlink`]).
fn draw<W: std::io::Write>(
    terminal: &mut Terminal<CrosstermBackend<W>>,
    app: &App,
    styles: &Styles,
    links: &mut Hyperlinks,
) -> std::io::Result<()> {
    let frame = terminal.draw(|frame| ui::render(frame, app, styles))?;
    let bytes = if links.on() { links.bytes(frame.buffer, &ui::links(app, frame.area)) } else { Vec::new() };
    if !bytes.is_empty() {
        let backend = terminal.backend_mut();
        std::io::Write::write_all(backend, &bytes)?;
        std::io::Write::flush(backend)?;
    }
    Ok(())
}

/// Print an exported checklist to stdout after the UI has closed; a closed pipe is not an error.
fn print_checklist(text: &str) -> Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Error::io("<stdout>", e)),
        _ => Ok(()),
    }
}

/// Hand every message already waiting to the app: a burst (a resize storm, a fast typist, a
/// paste without bracketed paste) becomes one frame.
fn drain(
    rx: &mpsc::Receiver<Msg>,
    app: &mut App,
    effects: &mut Vec<Effect>,
    searches: &mut Searches,
    problems: &mut Option<Problems>,
    ended_by: &mut Option<event::Signal>,
    typed_at: &mut Instant,
) -> Result<()> {
    while let Ok(msg) = rx.try_recv() {
        if is_typing(&msg) {
            *typed_at = Instant::now();
        }
        absorb(effects, deliver(msg, app, searches, problems, ended_by)?);
    }
    Ok(())
}

/// Add `more` to `effects`, dropping what it supersedes: a session to save is the whole state
/// and a search the whole query, so of a burst only the last of each is kept. Without this a
/// flood of keys queued one whole session and one search per key (50,000 typed characters
/// held 1.5 GB), and the cost of a key grew with the keys before it.
fn absorb(effects: &mut Vec<Effect>, more: Vec<Effect>) {
    let saves = more.iter().any(|e| matches!(e, Effect::Save(_)));
    let searches = more.iter().any(|e| matches!(e, Effect::Search(_)));
    if saves || searches {
        effects.retain(|e| {
            !(saves && matches!(e, Effect::Save(_)) || searches && matches!(e, Effect::Search(_)))
        });
    }
    effects.extend(more);
}

/// Whether `msg` is a key (the pause after typing is timed from the last one).
fn is_typing(msg: &Msg) -> bool {
    matches!(msg, Msg::Key(_))
}

/// Clear the screen and make the next draw paint every cell. (Not `Terminal::clear`: it asks
/// the terminal for the cursor position, which waits on the input thread's lock in crossterm.)
/// Copy `text` (see [`clipboard`]: tmux's buffer inside tmux, else OSC 52 written to the
/// terminal); `Err` says why it could not be.
fn copy_to_clipboard<W: std::io::Write>(
    terminal: &mut Terminal<CrosstermBackend<W>>,
    text: &str,
) -> std::result::Result<clipboard::Copied, String> {
    clipboard::copy(text, |bytes| {
        let backend = terminal.backend_mut();
        std::io::Write::write_all(backend, bytes).and_then(|()| std::io::Write::flush(backend))
    })
}

fn clear<W: std::io::Write>(terminal: &mut Terminal<CrosstermBackend<W>>) -> Result<()> {
    let size = terminal.size().map_err(terminal_error)?;
    terminal.resize(Rect::new(0, 0, size.width, size.height)).map_err(terminal_error)
}
