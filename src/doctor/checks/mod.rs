//! The checks: each a pure function of the snapshot and its context, by area. None touches the
//! OS. Each reads what it needs, and says `unknown` (with why and how to get the answer) when
//! that was not read, `n/a` when it does not apply here, never `pass` for what it could not see.
//!
//! The helpers here read what several checks share: the mount table, the kernel log, and
//! `nvidia-smi -q`'s report.

mod container;
mod driver;
mod env;
mod fabric;
mod gpu;
mod memory;
mod network;
mod packages;
mod pcie;
mod scheduler;

use super::{
    context::Context,
    finding::{Evidence, Outcome},
    rules::Rules,
    snapshot::{Entry, Look, Ran, Snapshot},
};

/// What a check reads.
pub struct Input<'a> {
    /// The snapshot.
    pub snap: &'a Snapshot,
    /// Its context.
    pub ctx: &'a Context,
    /// The rules data (version ranges).
    pub rules: &'a Rules,
}

/// The node's environment as a source for the checks both audits share
/// ([`crate::doctor::environment`]).
pub(super) struct NodeEnv<'a, 'b>(pub &'b Input<'a>);

impl crate::doctor::environment::EnvSource for NodeEnv<'_, '_> {
    fn get(&self, key: &str) -> Option<(&str, crate::doctor::finding::Evidence)> {
        let v = self.0.snap.env(key)?;
        Some((v, crate::doctor::finding::Evidence::new("environment", format!("{key}={v}"))))
    }

    fn unset(&self, key: &str) -> crate::doctor::finding::Evidence {
        crate::doctor::finding::Evidence::new("environment", format!("{key} unset"))
    }
}

/// One check.
pub struct Check {
    /// Its stable id (`shm.size`).
    pub id: &'static str,
    /// What it looks for, in one line.
    pub title: &'static str,
    /// Whether it needs root for a full answer.
    pub needs_root: bool,
    /// Whether it needs NVIDIA GPUs (else it is `n/a`).
    pub needs_gpu: bool,
    /// The check.
    pub run: fn(&Input<'_>) -> Outcome,
}

/// Every check, in the order they are reported within a severity.
pub fn all() -> Vec<&'static Check> {
    let mut v: Vec<&'static Check> = Vec::new();
    for group in [
        memory::CHECKS,
        driver::CHECKS,
        packages::CHECKS,
        gpu::CHECKS,
        pcie::CHECKS,
        fabric::CHECKS,
        network::CHECKS,
        env::CHECKS,
        container::CHECKS,
        scheduler::CHECKS,
    ] {
        v.extend(group.iter());
    }
    v
}

/// The conditions each check's version rules may name in `when`.
pub const CONDITIONS: &[(&str, &str)] = &[
    ("driver.known.bad", "gsp"),
    ("nccl.stack.version", "cumem-not-disabled"),
    ("ctr.runtime", "containerd-v3"),
];

/// How to ask again as root, for one check.
pub fn as_root(id: &str) -> String {
    format!("run `sudo incidex doctor --only {id}`")
}

/// `unknown` for a path that could not be read, with why.
pub fn unreadable<T>(path: &str, look: Look<'_, T>, id: &str) -> Outcome {
    match look {
        Look::Unreadable(why) if why.contains("ermission") => {
            Outcome::unknown(format!("{path}: {why} (needs root)"), as_root(id))
        }
        Look::Unreadable(why) => Outcome::unknown(format!("{path}: {why}"), "read it on the node itself"),
        Look::NotCaptured => Outcome::unknown(
            format!("{path} is not in the snapshot"),
            "run `incidex doctor` on the node, or save a snapshot there with --save-snapshot",
        ),
        Look::Missing => {
            Outcome::unknown(format!("{path} does not exist here"), "read it on the node itself")
        }
        Look::Found(_) => Outcome::unknown(format!("{path}: unexpected"), ""),
    }
}

/// One line of the mount table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Where it is mounted.
    pub point: String,
    /// The filesystem type (`tmpfs`, `nfs4`, `fuse.gcsfuse`).
    pub fstype: String,
    /// The mount source.
    pub source: String,
    /// The per-superblock options (`rw,size=65536k`).
    pub options: String,
    /// Its line in `/proc/self/mountinfo`, from 1.
    pub line: usize,
    /// The line.
    pub text: String,
}

/// The mount table's path.
pub const MOUNTINFO: &str = "/proc/self/mountinfo";

/// The mount table, as `/proc/self/mountinfo` gives it.
pub fn mounts(snap: &Snapshot) -> Result<Vec<Mount>, Look<'_, ()>> {
    let text = match snap.file(MOUNTINFO) {
        Look::Found(t) => t,
        Look::Missing => return Err(Look::Missing),
        Look::Unreadable(w) => return Err(Look::Unreadable(w)),
        Look::NotCaptured => return Err(Look::NotCaptured),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        // id parent major:minor root point options [optional...] - fstype source superoptions
        let Some((left, right)) = line.split_once(" - ") else { continue };
        let point = left.split(' ').nth(4).unwrap_or("").replace("\\040", " ");
        let mut r = right.split(' ');
        let fstype = r.next().unwrap_or("").to_string();
        let source = r.next().unwrap_or("").to_string();
        let options = r.next().unwrap_or("").to_string();
        out.push(Mount { point, fstype, source, options, line: i + 1, text: line.to_string() });
    }
    Ok(out)
}

/// The mount that holds `path` (the longest mount point that is a prefix of it; the last such
/// line wins, as a later mount hides an earlier one).
pub fn mount_of<'a>(mounts: &'a [Mount], path: &str) -> Option<&'a Mount> {
    mounts
        .iter()
        .filter(|m| {
            path == m.point
                || m.point == "/"
                || path.strip_prefix(m.point.as_str()).is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|m| (m.point.len(), m.line))
}

/// The mount line as evidence.
pub fn mount_evidence(m: &Mount) -> Evidence {
    Evidence::at(MOUNTINFO, m.line, m.text.clone())
}

/// Whether a filesystem type is a network or FUSE filesystem.
pub fn is_network_fs(fstype: &str) -> bool {
    ["nfs", "nfs4", "lustre", "gpfs", "wekafs", "beegfs", "cifs", "smb3", "9p", "ceph", "glusterfs"]
        .contains(&fstype)
        || fstype.starts_with("fuse.")
}

/// A size in `options` (`size=65536k`) in bytes.
pub fn size_option(options: &str) -> Option<u64> {
    let v = options.split(',').find_map(|o| o.strip_prefix("size="))?;
    let (num, unit) = v.split_at(v.find(|c: char| !c.is_ascii_digit()).unwrap_or(v.len()));
    let n: u64 = num.parse().ok()?;
    Some(match unit {
        "k" | "K" => n * 1024,
        "m" | "M" => n * 1024 * 1024,
        "g" | "G" => n * 1024 * 1024 * 1024,
        "" => n,
        _ => return None,
    })
}

/// A byte count as people read it (`64 MiB`, `1.5 GiB`).
pub fn human(bytes: u64) -> String {
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    let b = bytes as f64;
    if b >= GIB {
        let g = b / GIB;
        if g.fract() < 0.05 { format!("{} GiB", g.round()) } else { format!("{g:.1} GiB") }
    } else {
        format!("{} MiB", (b / (1024.0 * 1024.0)).round())
    }
}

/// `statvfs:PATH`: (total, free) bytes.
pub fn statvfs(snap: &Snapshot, path: &str) -> Option<(u64, u64)> {
    let line = snap.value(&format!("statvfs:{path}")).found()?;
    let get = |k: &str| line.split(' ').find_map(|p| p.strip_prefix(k)).and_then(|v| v.parse().ok());
    Some((get("total=")?, get("free=")?))
}

/// The kernel log journalctl gives.
pub const JOURNAL: &str = "journalctl -k -b --no-pager -o short-iso";

/// The kernel log since boot: where it came from and its text; or why it could not be read.
pub fn kernel_log<'a>(snap: &'a Snapshot, ctx: &Context, id: &str) -> Result<(&'a str, &'a str), Outcome> {
    let mut why = Vec::new();
    match snap.command(JOURNAL) {
        Some(Ran::Exited { code: 0, stdout, .. }) if stdout.lines().any(|l| !l.starts_with("-- ")) => {
            return Ok((JOURNAL, stdout));
        }
        Some(Ran::Exited { stderr, code, .. }) => why.push(format!(
            "journalctl exited {code}: {}",
            crate::text::one_line(stderr.lines().next().unwrap_or(""))
        )),
        Some(Ran::TimedOut { secs }) => why.push(format!("journalctl did not answer in {secs} s")),
        Some(Ran::NotFound) => why.push("no journalctl".into()),
        Some(Ran::NotRun(w)) | Some(Ran::Failed(w)) => why.push(format!("journalctl: {w}")),
        None => why.push("journalctl was not run".into()),
    }
    for path in ["/var/log/kern.log", "dmesg"] {
        match snap.file(path) {
            Look::Found(t) if !t.trim().is_empty() => return Ok((path, t)),
            Look::Found(_) => why.push(format!("{path} is empty")),
            Look::Unreadable(w) => why.push(format!("{path}: {w}")),
            Look::Missing => why.push(format!("no {path}")),
            Look::NotCaptured => {}
        }
    }
    let restricted = snap.value("/proc/sys/kernel/dmesg_restrict").found() == Some("1");
    let mut reason = why.join("; ");
    if ctx.container {
        reason.push_str("; the host's kernel log is not visible from a container");
    } else if restricted && !ctx.root {
        reason.push_str("; dmesg_restrict=1 (needs root)");
    }
    let how = if ctx.container {
        "run `incidex doctor` on the host, or give it the host's /var/log with --root".to_string()
    } else {
        as_root(id)
    };
    Err(Outcome::unknown(reason, how))
}

/// Fields of `nvidia-smi -q`: (`Section / Field`, value, line from 1).
pub type Fields = Vec<(String, String, usize)>;

/// `nvidia-smi -q`'s report: the fields before the first GPU, and each GPU's, as
/// (`Section / Field`, value, line from 1).
#[derive(Debug, Default)]
pub struct SmiReport {
    /// The fields before the first GPU (driver and CUDA versions).
    pub global: Fields,
    /// Each GPU: its bus id and fields.
    pub gpus: Vec<(String, Fields)>,
}

impl SmiReport {
    /// Parse the text report.
    pub fn parse(text: &str) -> SmiReport {
        let mut report = SmiReport::default();
        let mut stack: Vec<(usize, String)> = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() || raw.starts_with("==") {
                continue;
            }
            let indent = raw.len() - raw.trim_start().len();
            let line = raw.trim();
            if let Some(bus) = line.strip_prefix("GPU ").filter(|b| b.contains(':') && !b.contains(" : ")) {
                report.gpus.push((bus.trim().to_string(), Vec::new()));
                stack.clear();
                continue;
            }
            while stack.last().is_some_and(|(d, _)| *d >= indent) {
                stack.pop();
            }
            let (key, value) =
                match line.split_once(" : ").or_else(|| line.strip_suffix(" :").map(|k| (k, ""))) {
                    Some((k, v)) => (k.trim().to_string(), v.trim().to_string()),
                    None => {
                        stack.push((indent, line.to_string()));
                        continue;
                    }
                };
            let path: Vec<&str> = stack.iter().map(|(_, s)| s.as_str()).chain([key.as_str()]).collect();
            let entry = (path.join(" / "), value, i + 1);
            match report.gpus.last_mut() {
                Some((_, fields)) => fields.push(entry),
                None => report.global.push(entry),
            }
        }
        report
    }

    /// A global field.
    pub fn global(&self, key: &str) -> Option<(&str, usize)> {
        self.global.iter().find(|(k, _, _)| k == key).map(|(_, v, l)| (v.as_str(), *l))
    }
}

/// A GPU's field whose path ends with `suffix`.
pub fn field<'a>(fields: &'a [(String, String, usize)], suffix: &str) -> Option<(&'a str, usize)> {
    fields.iter().find(|(k, _, _)| k.ends_with(suffix)).map(|(_, v, l)| (v.as_str(), *l))
}

/// The `nvidia-smi -q` command.
pub const SMI_Q: &str = "nvidia-smi -q";

/// `nvidia-smi -q`'s report, or the outcome when it could not be had.
pub fn smi_report(snap: &Snapshot, id: &str) -> Result<SmiReport, Outcome> {
    match output(snap, SMI_Q, id)? {
        (stdout, _, 0) => Ok(SmiReport::parse(stdout)),
        (stdout, stderr, code) => Err(Outcome::unknown(
            format!(
                "nvidia-smi -q exited {code}: {}",
                crate::text::one_line(stdout.lines().chain(stderr.lines()).next().unwrap_or(""))
            ),
            "see smi.unresponsive and driver.mismatch",
        )),
    }
}

/// What the command `key` of the probe's table printed — (standard output, standard error,
/// exit status) — or the `unknown` that says why there is nothing to read (it timed out, it is
/// not installed, it was not run, it is not in the snapshot).
pub fn output<'a>(snap: &'a Snapshot, key: &str, id: &str) -> Result<(&'a str, &'a str, i32), Outcome> {
    let program = key.split(' ').next().unwrap_or(key);
    match snap.command(key) {
        Some(Ran::Exited { code, stdout, stderr, .. }) => Ok((stdout, stderr, *code)),
        Some(Ran::TimedOut { secs }) => {
            Err(Outcome::unknown(format!("{key} did not answer in {secs} s"), "see smi.unresponsive"))
        }
        Some(Ran::NotFound) => Err(Outcome::unknown(
            format!("{program} is not installed here"),
            format!("install {program}, or audit the host"),
        )),
        Some(Ran::NotRun(w)) | Some(Ran::Failed(w)) => Err(Outcome::unknown(
            format!("{key}: {w}"),
            format!("run `incidex doctor --only {id}` on the node"),
        )),
        None => Err(Outcome::unknown(format!("{key} is not in the snapshot"), "capture one on the node")),
    }
}

/// The directories on `LD_LIBRARY_PATH`, in order.
pub fn ld_dirs(snap: &Snapshot) -> Vec<&str> {
    snap.env("LD_LIBRARY_PATH").map(|p| p.split(':').filter(|d| !d.is_empty()).collect()).unwrap_or_default()
}

/// The distributions installed in the Python environments of the snapshot: (name as
/// normalised — lowercase, `-` as `_` —, version, the site-packages directory).
pub fn dist_infos(snap: &Snapshot) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for (path, entry) in &snap.files {
        let (Entry::Dir(names), true) =
            (entry, path.ends_with("/site-packages") || path.ends_with("/dist-packages"))
        else {
            continue;
        };
        for n in names {
            let Some(stem) = n.strip_suffix(".dist-info") else { continue };
            let Some((name, version)) = stem.rsplit_once('-') else { continue };
            out.push((name.to_ascii_lowercase().replace('-', "_"), version.to_string(), path.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests;
