//! Reading an `nvidia-bug-report.log(.gz)` as a snapshot, so that an on-call engineer can audit
//! the node a user attached one from.
//!
//! `nvidia-bug-report.sh` writes blocks separated by lines of underscores. A file's block
//! starts `*** /path` (then an `*** ls: ...` line with its metadata, then its text), or says
//! `*** /path does not exist` or `*** /path is not readable`; a command's block starts with its
//! command line (`/usr/bin/nvidia-smi --query`) and holds its output. Those map onto the
//! snapshot's files and commands; what the report does not hold stays "not captured", so the
//! checks that need it say `unknown`, never `pass`. The report has no `/sys` tree, so the
//! GPUs are taken from the driver's own list (`/proc/driver/nvidia/gpus/<bus id>`) and from
//! `nvidia-smi`'s report.

use std::io::Read;

use super::{
    checks::{JOURNAL, SMI_Q},
    context::PCI,
    snapshot::{Entry, Ran, Snapshot},
};

/// The most of a (decompressed) report that is read.
pub const MAX_REPORT: u64 = 256 * 1024 * 1024;

/// Whether `bytes` look like a bug report (plain or gzip).
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
        || String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).contains("nvidia-bug-report")
}

/// Decompress a gzip report (or take a plain one as it is), up to [`MAX_REPORT`]. A report cut
/// short still gives what was read before the damage, with a note.
pub fn text_of(bytes: &[u8]) -> (String, Option<String>) {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return (String::from_utf8_lossy(bytes).into_owned(), None);
    }
    let mut out = Vec::new();
    let result = flate2::read::MultiGzDecoder::new(bytes).take(MAX_REPORT).read_to_end(&mut out);
    let note =
        result.err().map(|e| format!("the report is damaged ({e}); what was read before it is audited"));
    (String::from_utf8_lossy(&out).into_owned(), note)
}

/// The snapshot a bug report holds.
pub fn parse(text: &str) -> Snapshot {
    let mut snap = Snapshot::default();
    snap.meta.insert("source".into(), "nvidia-bug-report".into());
    let mut gpus: Vec<String> = Vec::new();
    for block in split_blocks(text) {
        let mut lines = block.lines().skip_while(|l| l.trim().is_empty());
        let Some(first) = lines.next() else { continue };
        if let Some(rest) = first.strip_prefix("*** ") {
            let rest = rest.trim();
            if let Some(path) = rest.strip_suffix(" does not exist") {
                snap.files.insert(path.to_string(), Entry::Missing);
                continue;
            }
            if let Some(path) = rest.strip_suffix(" is not readable") {
                snap.files.insert(
                    path.to_string(),
                    Entry::Unreadable("not readable when the report was made".into()),
                );
                continue;
            }
            let path = rest.split_whitespace().next().unwrap_or(rest).to_string();
            let body: Vec<&str> = lines.filter(|l| !l.starts_with("*** ls:")).collect();
            if let Some(bus) =
                path.strip_prefix("/proc/driver/nvidia/gpus/").and_then(|p| p.split('/').next())
            {
                gpus.push(bus.to_ascii_lowercase());
            }
            let mut content = body.join("\n");
            content.push('\n');
            snap.files.insert(path, Entry::File(content));
            continue;
        }
        let command = first.trim();
        let body: String = lines.collect::<Vec<_>>().join("\n") + "\n";
        let key =
            if command.contains("nvidia-smi") && (command.contains("--query") || command.ends_with(" -q")) {
                Some(SMI_Q)
            } else if command.contains("journalctl") && command.contains("-b -0") {
                Some(JOURNAL)
            } else if command.contains("lspci") && command.contains("-vvv") {
                Some("lspci -vvv")
            } else {
                None
            };
        if let Some(key) = key {
            snap.commands.insert(
                key.to_string(),
                Ran::Exited { code: 0, stdout: body, stderr: String::new(), millis: 0 },
            );
        } else if command.ends_with("dmesg") || command.starts_with("dmesg") {
            snap.files.insert("dmesg".into(), Entry::File(body));
        }
    }
    if let Some(Ran::Exited { stdout, .. }) = snap.commands.get(SMI_Q) {
        for line in stdout.lines() {
            if let Some(bus) =
                line.strip_prefix("GPU ").map(str::trim).filter(|b| b.matches(':').count() == 2)
            {
                // 00000000:3B:00.0 → 0000:3b:00.0
                let bus = bus.to_ascii_lowercase();
                let bus = if bus.len() == 16 { bus[4..].to_string() } else { bus };
                if !gpus.contains(&bus) {
                    gpus.push(bus);
                }
            }
        }
    }
    if !gpus.is_empty() {
        gpus.sort();
        gpus.dedup();
        for g in &gpus {
            snap.files.insert(format!("{PCI}/{g}/vendor"), Entry::File("0x10de\n".into()));
            snap.files.insert(format!("{PCI}/{g}/class"), Entry::File("0x030200\n".into()));
        }
        snap.files.insert(PCI.into(), Entry::Dir(gpus));
    }
    snap
}

fn split_blocks(text: &str) -> Vec<String> {
    let mut blocks = vec![String::new()];
    for line in text.lines() {
        if line.len() >= 20 && line.bytes().all(|b| b == b'_') {
            blocks.push(String::new());
        } else if let Some(b) = blocks.last_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doctor::snapshot::Look;

    const REPORT: &str = "nvidia-bug-report.sh will now collect information\n\
____________________________________________\n\
\n\
*** /proc/driver/nvidia/version\n\
*** ls: -r--r--r-- 1 root root 0 2024-05-01 10:00:00 /proc/driver/nvidia/version\n\
NVRM version: NVIDIA UNIX x86_64 Kernel Module  525.85.12  Sat Jan 28 02:10:06 UTC 2023\n\
____________________________________________\n\
\n\
*** /proc/driver/nvidia/gpus/0000:3b:00.0/information\n\
Model: \t\t NVIDIA A100\n\
____________________________________________\n\
\n\
*** /var/log/kern.log does not exist\n\
____________________________________________\n\
\n\
/usr/bin/nvidia-smi --query\n\
\n\
==============NVSMI LOG==============\n\
Driver Version                            : 525.85.12\n\
GPU 00000000:3B:00.0\n\
    Product Name                          : NVIDIA A100\n\
____________________________________________\n";

    #[test]
    fn a_bug_report_gives_its_files_commands_and_gpus() {
        let snap = parse(REPORT);
        assert!(snap.file("/proc/driver/nvidia/version").found().is_some_and(|t| t.contains("525.85.12")));
        assert_eq!(snap.file("/var/log/kern.log"), Look::Missing);
        assert_eq!(snap.file("/proc/cmdline"), Look::NotCaptured);
        assert!(
            matches!(snap.command(SMI_Q), Some(Ran::Exited { stdout, .. }) if stdout.contains("GPU 00000000:3B:00.0"))
        );
        assert_eq!(snap.dir(PCI).found().map(<[String]>::to_vec), Some(vec!["0000:3b:00.0".to_string()]));
    }

    #[test]
    fn a_gzip_report_cut_short_keeps_what_was_read() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(REPORT.repeat(50).as_bytes()).unwrap();
        let bytes = gz.finish().unwrap();
        let (whole, note) = text_of(&bytes);
        assert!(note.is_none() && whole.contains("NVSMI LOG"));
        let (part, note) = text_of(&bytes[..bytes.len() / 2]);
        assert!(note.is_some_and(|n| n.contains("damaged")));
        assert!(part.contains("NVRM version"), "the first half was read");
    }
}
