//! Driving the real binary in a pseudo-terminal, for the tests that need a terminal: a session
//! whose output is fed to a terminal emulator (vt100), so a test reads the screen as a person
//! would, asks whether the terminal was given back, times the process and reads its CPU use.
//! Each test crate uses part of it.
#![allow(dead_code)]

use std::{
    io::{Read, Write},
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

pub const TIMEOUT: Duration = Duration::from_secs(10);

/// One terminal session at a time: the tests measure timing (exit within a second, idle CPU),
/// which a dozen sessions starting at once on a two-core CI machine would distort.
pub fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tui")
}

pub struct Session {
    pub child: Box<dyn Child + Send + Sync>,
    pub master: Option<Box<dyn MasterPty + Send>>,
    pub writer: Option<Box<dyn Write + Send>>,
    pub screen: Arc<Mutex<vt100::Parser>>,
    pub raw: Arc<Mutex<Vec<u8>>>,
    pub _home: Option<tempfile::TempDir>,
}

pub struct Launch<'a> {
    pub size: (u16, u16),
    pub args: &'a [&'a str],
    pub env: &'a [(&'a str, &'a str)],
    /// The directory for $XDG_STATE_HOME and $XDG_CONFIG_HOME; a fresh one when `None`.
    pub home: Option<&'a Path>,
    /// Stop reading (and let go of the pty) once the screen shows this.
    pub read_until: Option<&'a str>,
    /// What the terminal showed before the program started (fed to the emulator first).
    pub prefill: &'a [u8],
    /// The library to open (`--data`); the terminal fixtures when `None`.
    pub data: Option<&'a Path>,
    /// Behave like tmux: a switch to the alternate screen while already on it is ignored, so
    /// the screen is not cleared by it (vt100 clears it, as xterm does).
    pub like_tmux: bool,
}

impl Default for Launch<'_> {
    fn default() -> Self {
        Launch {
            size: (100, 30),
            args: &[],
            env: &[],
            home: None,
            read_until: None,
            prefill: &[],
            data: None,
            like_tmux: false,
        }
    }
}

pub fn launch(l: Launch) -> Session {
    let pty = native_pty_system()
        .openpty(PtySize { rows: l.size.1, cols: l.size.0, pixel_width: 0, pixel_height: 0 })
        .expect("a pty");
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_incidex"));
    cmd.args(["--no-bundled", "--data"]);
    cmd.arg(l.data.map_or_else(fixtures, Path::to_path_buf));
    cmd.args(l.args);
    let own_home = l.home.is_none().then(|| tempfile::tempdir().unwrap());
    let home = l.home.or(own_home.as_ref().map(|d| d.path())).unwrap().to_path_buf();
    cmd.env("XDG_STATE_HOME", home.join("state"));
    cmd.env("XDG_CONFIG_HOME", home.join("config"));
    cmd.env("TERM", "xterm-256color");
    cmd.env_remove("NO_COLOR");
    cmd.env_remove("COLORTERM");
    // The terminal the tests run in must not decide what the program writes: OSC 8 links and the
    // clipboard's route follow these (`tui::hyperlink`, `tui::clipboard`). A test sets them.
    for var in ["VTE_VERSION", "TERM_PROGRAM", "KITTY_WINDOW_ID", "WT_SESSION", "TMUX", "STY"] {
        cmd.env_remove(var);
    }
    for (k, v) in l.env {
        cmd.env(k, v);
    }
    let child = pty.slave.spawn_command(cmd).expect("incidex starts");
    drop(pty.slave);
    let nonzero = |n: u16| std::num::NonZeroU16::new(n).expect("a size above zero");
    let screen = Arc::new(Mutex::new(vt100::Parser::new(nonzero(l.size.1), nonzero(l.size.0), 0)));
    screen.lock().unwrap().process(l.prefill);
    let raw = Arc::new(Mutex::new(Vec::new()));
    let mut reader = pty.master.try_clone_reader().unwrap();
    let writer = pty.master.take_writer().unwrap();
    {
        let (screen, raw) = (screen.clone(), raw.clone());
        let until = l.read_until.map(str::to_string);
        let like_tmux = l.like_tmux;
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                raw.lock().unwrap().extend_from_slice(&buf[..n]);
                let mut parser = screen.lock().unwrap();
                const ENTER_ALTERNATE: &[u8] = b"\x1b[?1049h";
                if like_tmux && parser.screen().alternate_screen() {
                    let mut rest = &buf[..n];
                    while let Some(at) =
                        rest.windows(ENTER_ALTERNATE.len()).position(|w| w == ENTER_ALTERNATE)
                    {
                        parser.process(&rest[..at]);
                        rest = &rest[at + ENTER_ALTERNATE.len()..];
                    }
                    parser.process(rest);
                } else {
                    parser.process(&buf[..n]);
                }
                if until.as_deref().is_some_and(|u| parser.screen().contents().contains(u)) {
                    break;
                }
            }
        });
    }
    Session { child, master: Some(pty.master), writer: Some(writer), screen, raw, _home: own_home }
}

impl Session {
    pub fn send(&mut self, bytes: &[u8]) {
        let w = self.writer.as_mut().unwrap();
        w.write_all(bytes).unwrap();
        w.flush().unwrap();
    }

    pub fn typed(&mut self, text: &str) {
        for c in text.chars() {
            self.send(c.to_string().as_bytes());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Wait until the screen satisfies `pred`; panic with the screen when it does not in time.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&vt100::Screen) -> bool) {
        let start = Instant::now();
        while start.elapsed() < TIMEOUT {
            if pred(self.screen.lock().unwrap().screen()) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        panic!("timed out waiting for {what}; the screen:\n{}", self.contents());
    }

    /// How long until the screen satisfies `pred`, or `None` when it does not within `limit`.
    pub fn time_until(&self, limit: Duration, pred: impl Fn(&vt100::Screen) -> bool) -> Option<Duration> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if pred(self.screen.lock().unwrap().screen()) {
                return Some(start.elapsed());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        None
    }

    /// Write `bytes` from a thread of its own (a large write blocks until the program reads it);
    /// the writer comes back when the thread is joined.
    pub fn send_in_background(&mut self, bytes: Vec<u8>) -> std::thread::JoinHandle<Box<dyn Write + Send>> {
        let mut writer = self.writer.take().expect("the writer");
        std::thread::spawn(move || {
            writer.write_all(&bytes).unwrap();
            writer.flush().unwrap();
            writer
        })
    }

    /// Resize the terminal and the emulator together.
    pub fn resize(&self, cols: u16, rows: u16) {
        let master = self.master.as_ref().unwrap();
        master.resize(PtySize { rows, cols, pixel_width: 0, pixel_height: 0 }).unwrap();
        let nonzero = |n: u16| std::num::NonZeroU16::new(n).expect("a size above zero");
        self.screen.lock().unwrap().screen_mut().set_size(nonzero(rows), nonzero(cols));
    }

    pub fn wait_text(&self, text: &str) {
        self.wait_for(text, |s| s.contents().contains(text));
    }

    /// Wait for the process to end; its exit status and how long it took.
    pub fn wait_exit(&mut self, limit: Duration) -> Option<(portable_pty::ExitStatus, Duration)> {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some((status, start.elapsed()));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    pub fn pid(&self) -> i32 {
        self.child.process_id().expect("a pid") as i32
    }

    /// The terminal as the program left it: normal screen, cursor shown, no bracketed paste,
    /// no mouse reporting, and the line discipline back in cooked mode with echo.
    pub fn assert_restored(&self) {
        // Let the reader thread take in the last bytes.
        std::thread::sleep(Duration::from_millis(100));
        let parser = self.screen.lock().unwrap();
        let s = parser.screen();
        assert!(!s.alternate_screen(), "still on the alternate screen");
        assert!(!s.hide_cursor(), "cursor still hidden");
        assert!(!s.bracketed_paste(), "bracketed paste still on");
        assert_eq!(s.mouse_protocol_mode(), vt100::MouseProtocolMode::None, "mouse still captured");
        // On Linux the master reports the line discipline the program set on its side.
        let fd = self.master.as_ref().unwrap().as_raw_fd().expect("a master fd");
        let mut termios: libc::termios = unsafe { std::mem::zeroed() };
        assert_eq!(unsafe { libc::tcgetattr(fd, &mut termios) }, 0);
        assert!(
            termios.c_lflag & libc::ICANON != 0 && termios.c_lflag & libc::ECHO != 0,
            "raw mode left on: lflag {:#o}",
            termios.c_lflag
        );
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// User and system CPU time of a process so far, in clock ticks.
pub fn cpu_ticks(pid: i32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command name (which may hold spaces) start after the last ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}
