//! The messages the UI reacts to and the threads that produce them: the input thread (keys,
//! mouse, paste, resize from the terminal), the signal thread (SIGHUP, SIGTERM, SIGINT,
//! SIGCONT) and the loading thread (the library opened in the background, see `loader`). Search results come from `worker::spawn`, the library opened in the background
//! from [`spawn_loader`].
//!
//! The input thread sleeps in one `poll()` on two descriptors: the terminal and a pipe the
//! SIGWINCH handler writes to. It wakes when the terminal has bytes, when it hangs up, and when
//! the window changes size, and never otherwise: no key has to be pressed for a resize to be
//! drawn, and an idle UI uses no CPU. Once awake it takes every event crossterm can give (a
//! short, bounded poll each) before it sleeps again. crossterm is built with `use-dev-tty`, its
//! level-triggered `poll()` reader: the default mio reader is edge-triggered and, when a resize
//! and a key come in the same wake-up, returns the resize and forgets the key's readiness, so
//! the key is dropped and a level-triggered wait on the tty spins until the next key.
//!
//! A dead terminal must end the program, not spin it: crossterm's reader retries on EOF, so the
//! input thread stops at a hang-up, or at a terminal that says it is readable with nothing to
//! read (end of file), before asking crossterm to read; any crossterm read error also ends the
//! input. SIGHUP, SIGTERM and SIGINT end the program from the signal thread, and if the main
//! thread is stuck, the signal thread gives the terminal back itself and falls back to the
//! signal's default action after [`SIGNAL_GRACE`].

use std::{
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
        mpsc::Sender,
    },
    time::Duration,
};

use crossterm::event::{Event, KeyEvent, KeyEventKind, MouseEvent};

use super::{
    loader::{self, Loaded, Opened, Throttle},
    worker,
};
use crate::{
    corpus::Library,
    graph::Graph,
    support::progress::{Progress, ProgressFn},
};

/// How long the main thread has to wind down after SIGHUP or SIGTERM before the signal thread
/// ends the process the hard way.
pub const SIGNAL_GRACE: Duration = Duration::from_millis(700);

/// Everything that can change the UI's state. (Neither `Clone` nor `PartialEq`: a message may
/// carry a whole library and its search engine.)
#[derive(Debug)]
pub enum Msg {
    /// A key was pressed.
    Key(KeyEvent),
    /// The mouse did something (only with `--mouse`).
    Mouse(MouseEvent),
    /// Text was pasted (bracketed paste).
    Paste(String),
    /// The terminal has a new size.
    Resize(u16, u16),
    /// The search worker answered.
    Searched(Box<worker::Response>),
    /// The terminal went away or must be given back.
    Signal(Signal),
    /// The input thread stopped: the terminal cannot be read any more.
    InputClosed(String),
    /// The library being opened in the background got this far.
    Progress(Progress),
    /// The library opened in the background is ready.
    Loaded(Box<loader::Loaded>),
    /// The library could not be opened in the background (a bug: the loader panicked).
    LoadFailed(String),
    /// The graph of a large library, built on a thread of its own (see `app::GRAPH_APART_FROM`).
    GraphBuilt(Arc<Library>, Box<Graph>),
    /// A pasted log was read on a thread of its own (see `paste`).
    LogRead(Box<super::paste::PastedLog>),
    /// The node audit (`incidex doctor`) of this machine, run once on a thread of its own.
    Audited(Arc<crate::doctor::Report>),
}

/// The signals the UI handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGHUP: the terminal (the SSH connection) is gone.
    Hangup,
    /// SIGTERM: asked to stop.
    Terminate,
    /// SIGINT sent from outside (Ctrl-C typed in the UI is a key, not a signal).
    Interrupt,
    /// SIGQUIT sent from outside (Ctrl-Backslash typed in the UI is a key): its default action dumps
    /// core and leaves the terminal raw on the alternate screen, so it ends the UI like SIGTERM.
    Quit,
    /// SIGCONT: resumed after being stopped from outside; redraw everything.
    Continue,
}

impl Signal {
    /// The signal's number, for the conventional exit status `128 + number` of a process that
    /// ended because of it.
    pub fn number(self) -> i32 {
        match self {
            Signal::Hangup => libc::SIGHUP,
            Signal::Terminate => libc::SIGTERM,
            Signal::Interrupt => libc::SIGINT,
            Signal::Quit => libc::SIGQUIT,
            Signal::Continue => libc::SIGCONT,
        }
    }
}

/// How long one look for events waits at most once the input thread is awake. Not zero:
/// crossterm's `use-dev-tty` reader returns nothing at all for a zero timeout.
const DRAIN_POLL: Duration = Duration::from_millis(1);

/// The message for a terminal event, if the UI cares about it (only key *presses*).
pub fn from_event(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) if key.kind == KeyEventKind::Press => Some(Msg::Key(key)),
        Event::Mouse(mouse) => Some(Msg::Mouse(mouse)),
        Event::Paste(text) => Some(Msg::Paste(text)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}

/// The file descriptor crossterm reads from: stdin when it is a terminal, else `/dev/tty`.
/// The returned file (if any) keeps `/dev/tty` open.
fn tty_fd() -> std::io::Result<(i32, Option<std::fs::File>)> {
    use std::{io::IsTerminal, os::fd::AsRawFd};
    if std::io::stdin().is_terminal() {
        Ok((libc::STDIN_FILENO, None))
    } else {
        let file = std::fs::File::open("/dev/tty")?;
        Ok((file.as_raw_fd(), Some(file)))
    }
}

/// What woke the input thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Woken {
    /// The terminal has bytes to read.
    tty: bool,
    /// The window changed size.
    resized: bool,
}

/// Bytes waiting to be read on `fd` (a terminal); `None` when the system cannot say.
fn bytes_waiting(fd: i32) -> Option<usize> {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int through a valid pointer.
    let rc = unsafe { libc::ioctl(fd, libc::FIONREAD, &mut n) };
    (rc == 0).then(|| usize::try_from(n).unwrap_or(0))
}

/// Wait until the terminal `tty` can be read or the pipe `resized` has a byte (the SIGWINCH
/// handler's), up to `timeout_ms` (-1: for ever). `Err` when the terminal hung up, reached end
/// of file, or cannot be polled.
fn wait(tty: i32, resized: Option<i32>, timeout_ms: i32) -> Result<Woken, String> {
    loop {
        let mut fds = [
            libc::pollfd { fd: tty, events: libc::POLLIN, revents: 0 },
            libc::pollfd { fd: resized.unwrap_or(-1), events: libc::POLLIN, revents: 0 },
        ];
        // SAFETY: two valid pollfds (a negative fd is ignored by poll), for the call's duration.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), 2, timeout_ms) };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!("cannot poll the terminal: {err}"));
        }
        if fds[0].revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err("the terminal hung up".into());
        }
        let tty_readable = fds[0].revents & libc::POLLIN != 0;
        // Readable with nothing to read is end of file: crossterm would read nothing for ever.
        if tty_readable && bytes_waiting(tty) == Some(0) {
            return Err("the terminal reached end of file".into());
        }
        return Ok(Woken { tty: tty_readable, resized: fds[1].revents & libc::POLLIN != 0 });
    }
}

/// The read end of a pipe the SIGWINCH handler writes a byte to.
struct ResizePipe {
    read: std::os::unix::net::UnixStream,
}

impl ResizePipe {
    /// Register a pipe for SIGWINCH (after crossterm's own, so that by the time this one has a
    /// byte, crossterm's has one too and reports the new size).
    fn register() -> std::io::Result<ResizePipe> {
        let (read, write) = std::os::unix::net::UnixStream::pair()?;
        read.set_nonblocking(true)?;
        write.set_nonblocking(true)?;
        signal_hook::low_level::pipe::register(libc::SIGWINCH, write)?;
        Ok(ResizePipe { read })
    }

    fn fd(&self) -> i32 {
        use std::os::fd::AsRawFd;
        self.read.as_raw_fd()
    }

    /// Empty the pipe: one wake-up however many signals came.
    fn drain(&self) {
        use std::io::Read;
        let mut buf = [0u8; 64];
        while matches!((&self.read).read(&mut buf), Ok(n) if n > 0) {}
    }
}

/// Send every event crossterm has or can read now. `Ok(false)` when the receiver is gone.
fn send_ready_events(tx: &Sender<Msg>) -> Result<bool, String> {
    loop {
        match crossterm::event::poll(DRAIN_POLL) {
            Ok(true) => {}
            Ok(false) => return Ok(true),
            Err(e) => return Err(format!("cannot read the terminal: {e}")),
        }
        match crossterm::event::read() {
            Ok(event) => {
                if let Some(msg) = from_event(event)
                    && tx.send(msg).is_err()
                {
                    return Ok(false);
                }
            }
            Err(e) => return Err(format!("cannot read the terminal: {e}")),
        }
    }
}

/// Start the input thread. It sends terminal events until the terminal goes away (then one
/// [`Msg::InputClosed`]) or the receiver is gone.
pub fn spawn_input(tx: Sender<Msg>) -> std::io::Result<()> {
    let (fd, keep_open) = tty_fd()?;
    // crossterm registers its SIGWINCH pipe when its reader is first used; ours comes after.
    crossterm::event::poll(Duration::ZERO)?;
    let resize = ResizePipe::register()?;
    std::thread::Builder::new().name("incidex-input".into()).spawn(move || {
        let _keep_open = keep_open;
        let reason = loop {
            // Before crossterm reads: a signal that comes after this wakes the next wait.
            resize.drain();
            match send_ready_events(&tx) {
                Ok(true) => {}
                Ok(false) => return,
                Err(reason) => break reason,
            }
            // Sleep until the terminal has bytes, hangs up, or the window changes size.
            if let Err(reason) = wait(fd, Some(resize.fd()), -1) {
                break reason;
            }
        };
        let _ = tx.send(Msg::InputClosed(reason));
    })?;
    Ok(())
}

/// How long the signal thread waits for the terminal to be given back when the main thread is
/// stuck: a terminal that stopped reading must not keep the process alive.
const RESTORE_GRACE: Duration = Duration::from_millis(300);

/// Start the signal thread: SIGHUP, SIGTERM, SIGINT and SIGQUIT (sent from outside) end the UI, SIGCONT
/// redraws it. If the main thread has not ended within [`SIGNAL_GRACE`] (a long computation, a
/// terminal that stopped reading), the terminal is given back from here — on a thread of its
/// own, for at most `RESTORE_GRACE`, since the main thread may hold the output — and the
/// signal's default action ends the process.
pub fn spawn_signals(tx: Sender<Msg>, mouse: bool) -> std::io::Result<()> {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGHUP, SIGTERM, SIGINT, SIGQUIT, SIGCONT])?;
    std::thread::Builder::new().name("incidex-signals".into()).spawn(move || {
        for signal in signals.forever() {
            let msg = match signal {
                SIGCONT => Signal::Continue,
                SIGHUP => Signal::Hangup,
                SIGINT => Signal::Interrupt,
                SIGQUIT => Signal::Quit,
                _ => Signal::Terminate,
            };
            let _ = tx.send(Msg::Signal(msg));
            if msg != Signal::Continue {
                // The main thread normally restores the terminal and returns at once.
                std::thread::sleep(SIGNAL_GRACE);
                restore_within(mouse, RESTORE_GRACE);
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            }
        }
    })?;
    Ok(())
}

/// Give the terminal back on a thread of its own, waiting for it at most `limit`.
fn restore_within(mouse: bool, limit: Duration) {
    let (done_tx, done_rx) = std::sync::mpsc::channel();
    let started = std::thread::Builder::new().name("incidex-restore".into()).spawn(move || {
        super::terminal::restore(mouse);
        let _ = done_tx.send(());
    });
    if started.is_ok() {
        let _ = done_rx.recv_timeout(limit);
    }
}

/// Start the `incidex-load` thread: it calls `open` with a progress callback, builds the search
/// engine if `ui_started` is set by then, and sends [`Msg::Progress`] and then one
/// [`Msg::Loaded`] (or, if it panicked, one [`Msg::LoadFailed`]) to `tx`.
pub fn spawn_loader(
    open: impl FnOnce(ProgressFn<'_>) -> Opened + Send + 'static,
    ui_started: Arc<AtomicBool>,
    tx: Sender<Msg>,
) -> std::io::Result<()> {
    std::thread::Builder::new().name("incidex-load".into()).spawn(move || {
        let progress_tx = tx.clone();
        let throttle = Throttle::new(move |p| {
            let _ = progress_tx.send(Msg::Progress(p));
        });
        // A panic here is a bug, reported by the panic hook; the UI must still end rather than
        // wait for a library that will never come.
        let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let opened = open(&|p| throttle.report(p));
            Loaded::new(opened, ui_started.load(Ordering::SeqCst))
        }));
        let _ = tx.send(match built {
            Ok(loaded) => Msg::Loaded(Box::new(loaded)),
            Err(_) => Msg::LoadFailed("the library could not be loaded (an internal error)".into()),
        });
    })?;
    Ok(())
}

/// Audit this node once, on a thread of its own (the node audit reads files and runs its
/// read-only commands, each with a timeout); the report comes back as [`Msg::Audited`]. The
/// first frame never waits for it. `INCIDEX_DOCTOR=0` turns it off.
pub fn spawn_audit(tx: Sender<Msg>) {
    if std::env::var_os("INCIDEX_DOCTOR").is_some_and(|v| v == "0") {
        return;
    }
    let _ = std::thread::Builder::new().name("incidex-doctor".into()).spawn(move || {
        let options = crate::doctor::probe::Options::default();
        if let Ok(snap) = crate::doctor::probe::capture(&options, std::env::vars()) {
            let report = crate::doctor::audit(&snap, &crate::doctor::Rules::bundled(), &Default::default());
            let _ = tx.send(Msg::Audited(Arc::new(report)));
        }
    });
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyEventState, KeyModifiers};

    use super::*;
    use crate::{
        search::Prebuilt,
        support::progress::Stage,
        tui::{loader::Problems, worker::Search},
    };

    #[test]
    fn the_loader_sends_the_library_or_says_it_failed() {
        let (tx, rx) = std::sync::mpsc::channel();
        let open = |progress: ProgressFn<'_>| {
            progress(Progress { stage: Stage::Reading, done: 1, total: 1 });
            let options = crate::corpus::LoadOptions { bundled: false, dirs: vec![] };
            Opened {
                library: Library::load(&options),
                prebuilt: Prebuilt::default(),
                problems: Problems::default(),
            }
        };
        spawn_loader(open, Arc::new(AtomicBool::new(false)), tx.clone()).unwrap();
        assert!(matches!(rx.recv(), Ok(Msg::Progress(p)) if p.done == 1));
        let unbuilt = |l: &Loaded| matches!(&l.search, Some(Search::Unbuilt(p)) if p.index.is_none());
        assert!(matches!(rx.recv(), Ok(Msg::Loaded(l)) if unbuilt(&l) && l.problems.is_empty()));
        spawn_loader(open, Arc::new(AtomicBool::new(true)), tx.clone()).unwrap();
        let _progress = rx.recv();
        let built = |l: &Loaded| matches!(l.search, Some(Search::Built(_)));
        assert!(matches!(rx.recv(), Ok(Msg::Loaded(l)) if built(&l)), "the UI runs: built here");
        spawn_loader(|_: ProgressFn<'_>| -> Opened { panic!("a bug") }, Arc::new(AtomicBool::new(true)), tx)
            .unwrap();
        assert!(matches!(rx.recv(), Ok(Msg::LoadFailed(_))), "a panic ends the wait");
    }

    #[test]
    fn only_key_presses_become_messages() {
        let press = KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE);
        let release = KeyEvent { kind: KeyEventKind::Release, state: KeyEventState::NONE, ..press };
        assert!(matches!(from_event(Event::Key(press)), Some(Msg::Key(k)) if k == press));
        assert!(from_event(Event::Key(release)).is_none());
        assert!(from_event(Event::FocusGained).is_none());
        assert!(matches!(from_event(Event::Resize(3, 4)), Some(Msg::Resize(3, 4))));
    }

    #[test]
    fn a_closed_pipe_reads_as_a_hang_up() {
        let mut fds = [0i32; 2];
        // SAFETY: a fresh pipe; both ends are closed below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        assert_eq!(wait(fds[0], None, 0), Ok(Woken::default()));
        unsafe { libc::close(fds[1]) };
        assert!(wait(fds[0], None, 1000).is_err(), "EOF on the read end is a hang-up");
        unsafe { libc::close(fds[0]) };
    }

    #[test]
    fn a_resize_wakes_the_wait_with_no_byte_on_the_terminal() {
        // The input thread used to sleep on the terminal alone, so a resize was not seen until
        // a key came.
        let mut fds = [0i32; 2];
        // SAFETY: a fresh pipe standing in for a silent terminal; both ends are closed below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        let resize = ResizePipe::register().unwrap();
        assert_eq!(wait(fds[0], Some(resize.fd()), 0), Ok(Woken::default()));
        signal_hook::low_level::raise(libc::SIGWINCH).unwrap();
        let woken = wait(fds[0], Some(resize.fd()), 5000).unwrap();
        assert_eq!(woken, Woken { tty: false, resized: true });
        resize.drain();
        assert_eq!(wait(fds[0], Some(resize.fd()), 0), Ok(Woken::default()), "drained: sleeps again");
        unsafe {
            libc::close(fds[0]);
            libc::close(fds[1]);
        }
    }
}
