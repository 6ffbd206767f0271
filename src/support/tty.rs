//! What the terminal on stdout says about itself: its width in columns, asked of the kernel
//! (`TIOCGWINSZ`), because shells do not export `$COLUMNS` to the programs they run.
//!
//! Only a question, never a write: nothing here changes the terminal's state.

use std::io::IsTerminal;

/// The width of the terminal that stdout is, or `None` when stdout is not a terminal (a pipe, a
/// file) or the terminal does not say (a width of 0).
pub fn stdout_columns() -> Option<usize> {
    let stdout = std::io::stdout();
    if !stdout.is_terminal() {
        return None;
    }
    // SAFETY: TIOCGWINSZ writes one `winsize` into the struct we own; a failure leaves it zeroed.
    let mut size: libc::winsize = unsafe { std::mem::zeroed() };
    let asked = unsafe { libc::ioctl(libc::STDOUT_FILENO, libc::TIOCGWINSZ, &mut size) };
    (asked == 0 && size.ws_col > 0).then_some(usize::from(size.ws_col))
}
