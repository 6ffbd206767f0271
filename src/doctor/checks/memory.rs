//! Host memory and filesystems: `/dev/shm`, what is left in it, tmpfs staging directories, and
//! caches on network filesystems.

use super::{
    Check, Input, MOUNTINFO, human, is_network_fs, mount_evidence, mount_of, mounts, size_option, statvfs,
    unreadable,
};
use crate::doctor::finding::{Evidence, Finding, Outcome, State};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "shm.size",
        title: "/dev/shm is large enough for data-loader workers and NCCL",
        needs_root: false,
        needs_gpu: false,
        run: shm_size,
    },
    Check {
        id: "shm.leftovers",
        title: "/dev/shm holds no segments left by finished jobs",
        needs_root: false,
        needs_gpu: false,
        run: shm_leftovers,
    },
    Check {
        id: "tmpfs.staging",
        title: "container image staging is not on a small tmpfs",
        needs_root: false,
        needs_gpu: false,
        run: tmpfs_staging,
    },
    Check {
        id: "cache.on.netfs",
        title: "Triton, Inductor and Hugging Face caches are not on a network filesystem",
        needs_root: false,
        needs_gpu: false,
        run: cache_on_netfs,
    },
];

const MIB: u64 = 1024 * 1024;

fn shm_size(i: &Input<'_>) -> Outcome {
    let mounts = match mounts(i.snap) {
        Ok(m) => m,
        Err(look) => return unreadable(MOUNTINFO, look, "shm.size"),
    };
    let Some(m) = mounts.iter().filter(|m| m.point == "/dev/shm").max_by_key(|m| m.line) else {
        return Outcome::found(
            vec![
                Finding::new(
                    State::Warn,
                    "/dev/shm",
                    "no /dev/shm is mounted: shared memory for workers and NCCL has nowhere to go",
                )
                .action("mount a tmpfs at /dev/shm (in a pod: an emptyDir with medium: Memory)"),
            ],
            "the mount table",
        );
    };
    let size = size_option(&m.options).or_else(|| statvfs(i.snap, "/dev/shm").map(|(t, _)| t));
    let Some(size) = size else {
        return Outcome::pass(format!("/dev/shm is {} with no size limit", m.fstype));
    };
    let gpus = !i.ctx.gpus.is_empty();
    let finding = |sev, msg: String| {
        Finding::new(sev, "/dev/shm", msg).evidence(mount_evidence(m)).action(if i.ctx.pod {
            "mount an emptyDir with medium: Memory at /dev/shm in the pod spec"
        } else if i.ctx.container {
            "start the container with --shm-size (e.g. 16g) or --ipc=host"
        } else {
            "raise the tmpfs size of /dev/shm (fstab: size=50%)"
        })
    };
    if size <= 64 * MIB {
        let sev = if i.ctx.container && gpus { State::Crit } else { State::Warn };
        return Outcome::found(
            vec![finding(
                sev,
                format!(
                    "/dev/shm is {}, the container default that data-loader workers and NCCL outgrow",
                    human(size)
                ),
            )],
            "",
        );
    }
    if gpus && size < 1024 * MIB {
        return Outcome::found(
            vec![finding(State::Warn, format!("/dev/shm is {} on a node with GPUs", human(size)))],
            "",
        );
    }
    Outcome::pass(format!("/dev/shm is {}", human(size)))
}

fn shm_leftovers(i: &Input<'_>) -> Outcome {
    let names = match i.snap.dir("/dev/shm") {
        super::Look::Found(n) => n,
        look => return unreadable("/dev/shm", look, "shm.leftovers"),
    };
    let stale: Vec<&String> = names
        .iter()
        .filter(|n| ["vllm", "torch_", "nccl-", "psm_", "sem.mp-"].iter().any(|p| n.starts_with(p)))
        .collect();
    let mut findings = Vec::new();
    if let Some((total, free)) = statvfs(i.snap, "/dev/shm")
        && total > 0
        && (total - free) * 4 > total
    {
        findings.push(
            Finding::new(
                State::Warn,
                "/dev/shm",
                format!(
                    "/dev/shm is {}% full ({} of {})",
                    (total - free) * 100 / total,
                    human(total - free),
                    human(total)
                ),
            )
            .evidence(Evidence::new("statvfs /dev/shm", format!("total {total} free {free}")))
            .action("remove what finished jobs left there (check nothing running owns it first)"),
        );
    }
    if !stale.is_empty() && i.snap.env("SLURM_JOB_ID").is_none() {
        let shown: Vec<&str> = stale.iter().take(4).map(|s| s.as_str()).collect();
        findings.push(
            Finding::new(
                State::Info,
                "/dev/shm",
                format!(
                    "{} segment(s) named as PyTorch, NCCL or vLLM leave them: {}",
                    stale.len(),
                    shown.join(", ")
                ),
            )
            .evidence(Evidence::new("/dev/shm", shown.join(" ")))
            .action("if no job of yours runs here, they are leftovers: remove them"),
        );
    }
    Outcome::found(findings, format!("/dev/shm holds {} entries", names.len()))
}

fn tmpfs_staging(i: &Input<'_>) -> Outcome {
    let mounts = match mounts(i.snap) {
        Ok(m) => m,
        Err(look) => return unreadable(MOUNTINFO, look, "tmpfs.staging"),
    };
    let mut dirs: Vec<(String, &str)> = Vec::new();
    for key in ["APPTAINER_TMPDIR", "SINGULARITY_TMPDIR", "TMPDIR"] {
        if let Some(d) = i.snap.env(key) {
            dirs.push((d.to_string(), key));
        }
    }
    if dirs.is_empty() {
        dirs.push(("/tmp".into(), "default TMPDIR"));
    }
    let pyxis = i.snap.file("/etc/slurm/plugstack.conf").found().is_some_and(|t| t.contains("pyxis"));
    if pyxis {
        dirs.push(("/run/pyxis".into(), "pyxis runtime_path"));
    }
    let mut findings = Vec::new();
    for (dir, why) in &dirs {
        let Some(m) = mount_of(&mounts, dir) else { continue };
        if m.fstype != "tmpfs" {
            continue;
        }
        let size = size_option(&m.options).or_else(|| statvfs(i.snap, &m.point).map(|(t, _)| t));
        let small = size.is_none_or(|s| s < 20 * 1024 * MIB);
        if small {
            let size = size.map_or("unlimited".to_string(), human);
            findings.push(
                Finding::new(State::Warn, dir.clone(), format!("{dir} ({why}) is a {size} tmpfs: pulling or unpacking a large image there fills memory"))
                    .evidence(mount_evidence(m))
                    .action("point APPTAINER_TMPDIR/TMPDIR (or pyxis runtime_path) at local disk"),
            );
        }
    }
    Outcome::found(
        findings,
        format!("staging in {}", dirs.iter().map(|(d, _)| d.as_str()).collect::<Vec<_>>().join(", ")),
    )
}

fn cache_on_netfs(i: &Input<'_>) -> Outcome {
    let mounts = match mounts(i.snap) {
        Ok(m) => m,
        Err(look) => return unreadable(MOUNTINFO, look, "cache.on.netfs"),
    };
    let home = i.snap.env("HOME");
    let mut caches: Vec<(String, &str)> = Vec::new();
    let mut add = |var: &'static str, default: Option<String>| {
        if let Some(v) = i.snap.env(var) {
            caches.push((v.to_string(), var));
        } else if let Some(d) = default {
            caches.push((d, var));
        }
    };
    add("TRITON_CACHE_DIR", home.map(|h| format!("{h}/.triton/cache")));
    add("TORCHINDUCTOR_CACHE_DIR", None);
    add("HF_HOME", home.map(|h| format!("{h}/.cache/huggingface")));
    add("HF_DATASETS_CACHE", None);
    add("HF_HUB_CACHE", None);
    if caches.is_empty() {
        return Outcome::unknown(
            "no cache directory is set and HOME is unknown",
            "set HOME or TRITON_CACHE_DIR and run again",
        );
    }
    let mut findings = Vec::new();
    for (dir, var) in &caches {
        let Some(m) = mount_of(&mounts, dir) else { continue };
        if is_network_fs(&m.fstype) {
            let what = if var.starts_with("TRITON") || var.starts_with("TORCHINDUCTOR") {
                "kernel caches shared over a network filesystem have hung jobs at exit and failed with stale file handles"
            } else {
                "dataset and hub caches on network filesystems have hit lock and symlink races"
            };
            findings.push(
                Finding::new(
                    State::Warn,
                    dir.clone(),
                    format!("{var} ({dir}) is on {} {}: {what}", m.fstype, m.point),
                )
                .evidence(mount_evidence(m))
                .action(format!(
                    "set {var} to a node-local directory (e.g. /tmp or local NVMe) for each job"
                )),
            );
        }
    }
    Outcome::found(findings, format!("{} cache directories on local filesystems", caches.len()))
}
