//! The messages the UI reacts to and the threads that produce them: the input thread (keys,
//! mouse, paste, resize from the terminal) and the signal thread (SIGHUP, SIGTERM, SIGCONT).
//! Search results come from `worker::spawn`, the library opened in the background from
//! `loader::spawn`.
//!
//! A dead terminal must end the program, not spin it: crossterm 0.29's reader loops forever on
//! EOF and EIO from the tty (its `try_read` retries every read error but `WouldBlock`), so the
//! input thread polls the tty itself and stops at a hang-up before asking crossterm to read;
//! any crossterm read error also ends the input. SIGHUP and SIGTERM end the program from the
//! signal thread, and if the main thread is stuck (a terminal that stopped reading), the signal
//! thread falls back to the signal's default action after [`SIGNAL_GRACE`].

use std::{
    sync::{Arc, mpsc::Sender},
    time::Duration,
};

use crossterm::event::{Event, KeyEvent, KeyEventKind, MouseEvent};

use super::{loader, worker};
use crate::{corpus::Library, graph::Graph, progress::Progress};

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
}

/// The signals the UI handles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Signal {
    /// SIGHUP: the terminal (the SSH connection) is gone.
    Hangup,
    /// SIGTERM (or SIGINT from outside): asked to stop.
    Terminate,
    /// SIGCONT: resumed after being stopped from outside; redraw everything.
    Continue,
}

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

/// Wait until `fd` can be read. `Err` when the terminal hung up or cannot be polled.
fn wait_readable(fd: i32, timeout_ms: i32) -> Result<bool, String> {
    loop {
        let mut pfd = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
        // SAFETY: one valid pollfd, for the duration of the call.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout_ms) };
        if n < 0 {
            let err = std::io::Error::last_os_error();
            if err.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(format!("cannot poll the terminal: {err}"));
        }
        if pfd.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            return Err("the terminal hung up".into());
        }
        return Ok(n > 0);
    }
}

/// Start the input thread. It sends terminal events until the terminal goes away (then one
/// [`Msg::InputClosed`]) or the receiver is gone.
pub fn spawn_input(tx: Sender<Msg>) -> std::io::Result<()> {
    let (fd, keep_open) = tty_fd()?;
    std::thread::Builder::new().name("incidex-input".into()).spawn(move || {
        let _keep_open = keep_open;
        let reason = loop {
            // crossterm may hold events it has parsed but not handed out; poll(0) returns them
            // without touching the tty. Only when it has none do we block on the tty ourselves.
            match wait_readable(fd, 0) {
                Ok(_) => {}
                Err(reason) => break reason,
            }
            match crossterm::event::poll(Duration::ZERO) {
                Ok(true) => {}
                Ok(false) => match wait_readable(fd, -1) {
                    Ok(_) => continue,
                    Err(reason) => break reason,
                },
                Err(e) => break format!("cannot read the terminal: {e}"),
            }
            match crossterm::event::read() {
                Ok(event) => {
                    if let Some(msg) = from_event(event)
                        && tx.send(msg).is_err()
                    {
                        return;
                    }
                }
                Err(e) => break format!("cannot read the terminal: {e}"),
            }
        };
        let _ = tx.send(Msg::InputClosed(reason));
    })?;
    Ok(())
}

/// Start the signal thread: SIGHUP and SIGTERM (and SIGINT sent from outside) end the UI,
/// SIGCONT redraws it.
pub fn spawn_signals(tx: Sender<Msg>) -> std::io::Result<()> {
    use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGHUP, SIGTERM, SIGINT, SIGCONT])?;
    std::thread::Builder::new().name("incidex-signals".into()).spawn(move || {
        for signal in signals.forever() {
            let msg = match signal {
                SIGCONT => Signal::Continue,
                SIGHUP => Signal::Hangup,
                _ => Signal::Terminate,
            };
            let _ = tx.send(Msg::Signal(msg));
            if msg != Signal::Continue {
                // The main thread normally restores the terminal and returns at once; if it is
                // stuck writing to a terminal that no longer reads, end the way the signal would.
                std::thread::sleep(SIGNAL_GRACE);
                let _ = signal_hook::low_level::emulate_default_handler(signal);
            }
        }
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crossterm::event::{KeyCode, KeyEventState, KeyModifiers};

    use super::*;

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
        assert_eq!(wait_readable(fds[0], 0), Ok(false));
        unsafe { libc::close(fds[1]) };
        assert!(wait_readable(fds[0], 1000).is_err(), "EOF on the read end is a hang-up");
        unsafe { libc::close(fds[0]) };
    }
}
