//! Where a copy goes, and what the status line may honestly say about it.
//!
//! Outside a multiplexer the text goes to the terminal's clipboard as OSC 52
//! ([`super::osc52`]). Inside tmux, a sequence wrapped for passthrough reaches nothing unless
//! `allow-passthrough` is on, and `set-clipboard on` (the usual advice) does not help it; so the
//! text goes where tmux itself takes it: `tmux load-buffer -w -`, which puts it in tmux's own
//! buffer (`prefix ]` pastes it even when no clipboard reaches the laptop) and has tmux send it
//! on to the terminal's clipboard. When that cannot run (no `tmux` on `PATH`, a tmux older than
//! 3.2 without `-w`), a plain OSC 52 goes to tmux, which takes it with `set-clipboard on`.
//!
//! Nothing here decides what to copy; the main loop calls [`copy`] for a `Copy` effect.

use std::{
    io::Write,
    process::{Command, Stdio},
};

use super::osc52::{self, Passthrough};

/// Where a copy went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copied {
    /// To the terminal's clipboard as OSC 52 (through GNU screen if it is in the way).
    Terminal,
    /// Into tmux's buffer, which tmux sends on to the terminal's clipboard.
    TmuxBuffer,
    /// To tmux as a plain OSC 52, which tmux takes only with `set-clipboard on`.
    TmuxOsc52,
}

impl Copied {
    /// The words after what was copied: `copied the id x` + this.
    pub fn said(self) -> &'static str {
        match self {
            Copied::Terminal => " (OSC 52)",
            Copied::TmuxBuffer => " to tmux's buffer (prefix ] pastes it) and clipboard (OSC 52)",
            Copied::TmuxOsc52 => {
                " to the terminal's clipboard (OSC 52); if nothing arrives, tmux needs `set -g set-clipboard on`"
            }
        }
    }
}

/// Copy `text`: through tmux's buffer inside tmux, else as OSC 52 written with `write` (the
/// terminal). `Err` says why nothing could be copied.
pub fn copy(text: &str, write: impl FnOnce(&[u8]) -> std::io::Result<()>) -> Result<Copied, String> {
    let passthrough = Passthrough::from_env();
    if passthrough == Passthrough::Tmux && load_tmux_buffer(text) {
        return Ok(Copied::TmuxBuffer);
    }
    // tmux takes a plain OSC 52 (with set-clipboard on); screen needs its DCS wrapping.
    let through = if passthrough == Passthrough::Tmux { Passthrough::None } else { passthrough };
    let bytes = osc52::encode(text.as_bytes(), through).map_err(|e| e.to_string())?;
    write(&bytes).map_err(|e| format!("cannot write to the terminal: {e}"))?;
    Ok(if passthrough == Passthrough::Tmux { Copied::TmuxOsc52 } else { Copied::Terminal })
}

/// `tmux load-buffer -w -` with `text` on its stdin; whether tmux took it.
fn load_tmux_buffer(text: &str) -> bool {
    let child = Command::new("tmux")
        .args(["load-buffer", "-w", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return false };
    let fed = child.stdin.take().is_some_and(|mut stdin| stdin.write_all(text.as_bytes()).is_ok());
    child.wait().is_ok_and(|status| status.success()) && fed
}

#[cfg(test)]
mod tests {
    use super::Copied;

    #[test]
    fn each_route_says_where_the_text_went() {
        assert_eq!(Copied::Terminal.said(), " (OSC 52)");
        assert!(Copied::TmuxBuffer.said().contains("tmux's buffer (prefix ] pastes it)"));
        // With an id, it fits a 100-column status line.
        assert!(format!(" copied the id epoch-end-hang{}", Copied::TmuxBuffer.said()).len() < 100);
        assert!(Copied::TmuxOsc52.said().contains("set -g set-clipboard on"));
    }
}
