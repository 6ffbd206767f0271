//! Taking the terminal and giving it back: raw mode, the alternate screen, bracketed paste,
//! mouse capture (only with `--mouse`) and the cursor.
//!
//! [`TerminalGuard`] gives the terminal back when dropped — on a normal return and on an error
//! — and [`install_panic_hook`] does the same before a panic message is printed, so the message
//! lands on a usable screen. Restoring is best effort: on a terminal that hung up every write
//! fails, and that must not stop the program from ending.

use std::io::{self, Write};

use crossterm::{
    cursor::{Hide, MoveTo, Show},
    event::{DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture},
    execute,
    terminal::{
        Clear, ClearType, EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    },
};

/// Holds the terminal in the UI's modes; restores it when dropped.
#[derive(Debug)]
pub struct TerminalGuard {
    mouse: bool,
}

impl TerminalGuard {
    /// Put the terminal into the UI's modes. If this fails half-way, what was changed is undone.
    pub fn enter(mouse: bool) -> io::Result<TerminalGuard> {
        save_line_discipline();
        install_abort_restore(mouse);
        let guard = TerminalGuard { mouse };
        guard.reenter()?;
        Ok(guard)
    }

    /// Apply the UI's modes again (after a suspend, or when the shell may have reset them).
    pub fn reenter(&self) -> io::Result<()> {
        enable_raw_mode()?;
        let mut out = io::stdout();
        // Cleared even when already on the alternate screen: a session dropped with the
        // terminal left there keeps its old content, which the first frame (drawn as a diff
        // against a blank screen) would not paint over.
        execute!(out, EnterAlternateScreen, Clear(ClearType::All), MoveTo(0, 0), EnableBracketedPaste, Hide)?;
        if self.mouse {
            execute!(out, EnableMouseCapture)?;
        }
        Ok(())
    }

    /// Give the terminal back, stop the process (as Ctrl-Z does in a shell), and take the
    /// terminal again once the shell's `fg` continues it. The caller redraws everything.
    pub fn suspend(&self) -> io::Result<()> {
        restore(self.mouse);
        signal_hook::low_level::raise(signal_hook::consts::SIGTSTP)?;
        self.reenter()
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore(self.mouse);
    }
}

/// Give the terminal back: every mode the UI may have turned on is turned off. Errors are
/// ignored (the terminal may be gone).
pub fn restore(mouse: bool) {
    let mut out = io::stdout();
    if mouse {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(out, DisableBracketedPaste, LeaveAlternateScreen, Show);
    let _ = out.flush();
    let _ = disable_raw_mode();
}

/// The terminal's line discipline as it was before the UI took it, for the abort handler (which
/// cannot ask crossterm: nothing that locks or allocates may run in a signal handler).
static COOKED: std::sync::OnceLock<libc::termios> = std::sync::OnceLock::new();

fn save_line_discipline() {
    // SAFETY: tcgetattr fills the termios we own; on failure (not a terminal) nothing is saved.
    let mut t: libc::termios = unsafe { std::mem::zeroed() };
    if unsafe { libc::tcgetattr(libc::STDOUT_FILENO, &mut t) } == 0 {
        let _ = COOKED.set(t);
    }
}

/// What gives the terminal back, as bytes written straight to it: mouse capture off (all the
/// modes crossterm turns on), bracketed paste off, the main screen, the cursor shown.
const RESTORE_MOUSE: &[u8] = b"\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l";
const RESTORE: &[u8] = b"\x1b[?2004l\x1b[?1049l\x1b[?25h";

/// On SIGABRT (`abort()`: a failed allocation, a double panic, a library's assertion) the
/// process ends before any thread can run, so the terminal is given back in the handler itself,
/// with nothing but `write(2)` and `tcsetattr(3)`, both async-signal-safe; the default action
/// then ends the process (exit status 134 in a shell).
fn install_abort_restore(mouse: bool) {
    static INSTALLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    if INSTALLED.swap(true, std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    let handler = move || {
        // SAFETY: write(2) and tcsetattr(3) are async-signal-safe; the buffers are statics and
        // COOKED is only read (an atomic check and a copy).
        unsafe {
            if mouse {
                libc::write(libc::STDOUT_FILENO, RESTORE_MOUSE.as_ptr().cast(), RESTORE_MOUSE.len());
            }
            libc::write(libc::STDOUT_FILENO, RESTORE.as_ptr().cast(), RESTORE.len());
            if let Some(t) = COOKED.get() {
                libc::tcsetattr(libc::STDOUT_FILENO, libc::TCSANOW, t);
            }
        }
        // Then end as SIGABRT does (signal-hook would otherwise return and let the process go on
        // when the signal came from outside): sigaction and raise, both async-signal-safe.
        let _ = signal_hook::low_level::emulate_default_handler(signal_hook::consts::SIGABRT);
    };
    // SAFETY: the handler above only calls async-signal-safe functions.
    let _ = unsafe { signal_hook::low_level::register(signal_hook::consts::SIGABRT, handler) };
}

/// Whether the terminal has hung up (its pty closed, the SSH session dropped): the UI's output
/// reports `POLLHUP` or `POLLERR`. Whatever failed after that failed because the terminal went
/// away, whichever of its errors, its SIGHUP and the input thread's hang-up came first.
pub fn hung_up() -> bool {
    is_hung_up(libc::STDOUT_FILENO)
}

fn is_hung_up(fd: i32) -> bool {
    let mut poll = libc::pollfd { fd, events: 0, revents: 0 };
    // SAFETY: one valid pollfd for the call's duration; a zero timeout never blocks.
    let n = unsafe { libc::poll(&mut poll, 1, 0) };
    n > 0 && poll.revents & (libc::POLLHUP | libc::POLLERR) != 0
}

/// Restore the terminal before the current panic hook runs. Call before taking the terminal.
pub fn install_panic_hook(mouse: bool) {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore(mouse);
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    use super::is_hung_up;

    #[test]
    fn an_output_whose_reader_is_gone_has_hung_up_and_one_being_read_has_not() {
        let mut fds = [0i32; 2];
        // SAFETY: a fresh pipe; both ends are closed below.
        assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
        assert!(!is_hung_up(fds[1]), "a pipe with a reader");
        // SAFETY: closing the read end, which nothing else uses.
        unsafe { libc::close(fds[0]) };
        assert!(is_hung_up(fds[1]), "a pipe whose reader closed");
        // SAFETY: the write end, opened above.
        unsafe { libc::close(fds[1]) };
    }
}
