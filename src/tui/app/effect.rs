//! What [`App::update`] asks the main loop to do: search, save the session, suspend, redraw,
//! quit, export, copy, read a pasted log. `update` does no I/O; the loop runs these.

use super::Clip;
use crate::tui::{export::Job, paste::LogJob, session::Session, worker::Request};

/// What the main loop must do after an update.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send this request to the search worker.
    Search(Request),
    /// Save the session for `--resume`.
    Save(Session),
    /// Give the terminal back and stop until `fg`.
    Suspend,
    /// Clear the screen and draw everything again.
    Redraw,
    /// Restore the terminal and end.
    Quit,
    /// Export a checklist (write a file, copy, or print after quitting); the loop reports
    /// back with `App::export_finished`.
    Export(Job),
    /// Put a case id or a source's address on the clipboard (OSC 52); the loop reports back
    /// with `App::copy_finished`.
    Copy(Clip),
    /// Read a pasted log on a thread of its own; the loop sends back `Msg::LogRead`.
    ReadLog(LogJob),
}
