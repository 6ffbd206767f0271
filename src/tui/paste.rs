//! A pasted log, read on a thread of its own.
//!
//! A paste of several lines is a log: it is read down to the lines that carry its failure by the
//! same [`LogReader`] as `incidex triage`. A paste can be megabytes (a whole `slurm-*.out`), and
//! the UI thread must keep drawing and answering keys and signals meanwhile, so the app asks for
//! the reading with an [`Effect::ReadLog`](super::app::Effect) holding a [`LogJob`], the main
//! loop runs [`LogJob::run`] on a thread, and the [`PastedLog`] comes back as a message. A job
//! the user has moved on from (typed, pasted again, pressed Esc) is cancelled: its reader stops
//! at the next block and nothing comes back.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use crate::{
    corpus::Library,
    logs::{Digest, LogReader},
};

/// A pasted log to read.
#[derive(Clone)]
pub struct LogJob {
    /// Which paste this is (the app takes only the answer to its latest).
    pub id: u64,
    text: Arc<str>,
    library: Arc<Library>,
    cancel: Arc<AtomicBool>,
}

impl LogJob {
    /// A job reading `text` with the taxonomy of `library`.
    pub fn new(id: u64, text: String, library: Arc<Library>) -> LogJob {
        LogJob { id, text: text.into(), library, cancel: Arc::new(AtomicBool::new(false)) }
    }

    /// The size of the paste in bytes.
    pub fn bytes(&self) -> usize {
        self.text.len()
    }

    /// Stop the reading (at its next block); [`run`](Self::run) then returns `None`.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Read the paste (on whatever thread calls this); `None` when the job was cancelled.
    pub fn run(&self) -> Option<PastedLog> {
        let mut reader = LogReader::new(self.library.taxonomy.signatures()).cancelled_by(self.cancel.clone());
        // Terminals send a paste's line breaks as CR; a lone CR inside a line (a progress bar)
        // cannot be told from them, so every CR ends a line.
        let text = self.text.replace("\r\n", "\n").replace('\r', "\n");
        reader.read_text("<paste>", &text).ok()?;
        (!self.cancel.load(Ordering::Relaxed)).then(|| PastedLog { id: self.id, digest: reader.finish() })
    }
}

impl PartialEq for LogJob {
    fn eq(&self, other: &LogJob) -> bool {
        self.id == other.id && Arc::ptr_eq(&self.text, &other.text)
    }
}

impl std::fmt::Debug for LogJob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogJob").field("id", &self.id).field("bytes", &self.text.len()).finish()
    }
}

/// What reading a pasted log found.
#[derive(Debug, Clone, PartialEq)]
pub struct PastedLog {
    /// The job's id.
    pub id: u64,
    /// The lines that stood out, and what was read.
    pub digest: Digest,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paste_is_read_with_cr_line_breaks_and_a_cancelled_one_answers_nothing() {
        let library =
            Arc::new(Library::load(&crate::corpus::LoadOptions { bundled: false, dirs: Vec::new() }));
        let job = LogJob::new(7, "step 1\rstep 2\rERROR: disk full\rstep 3\r".into(), library);
        let read = job.run().unwrap();
        assert_eq!((read.id, read.digest.lines), (7, 4));
        assert_eq!(read.digest.evidence[0].text, "ERROR: disk full");
        assert_eq!(read.digest.evidence[0].line, 3);
        job.cancel();
        assert_eq!(job.run(), None);
    }
}
