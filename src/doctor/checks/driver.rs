//! The NVIDIA driver and the libraries around it: the kernel module against the user-space
//! library, a driver not loaded, upgrades that replace it under running jobs, known-bad driver
//! releases, and CUDA libraries shadowed on the library path.

use super::{Check, Input, Look, SMI_Q, smi_report, unreadable};
use crate::doctor::{
    finding::{Evidence, Finding, Outcome, State},
    snapshot::{Ran, Snapshot},
};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "driver.mismatch",
        title: "the NVIDIA kernel module and NVML are the same version",
        needs_root: false,
        needs_gpu: true,
        run: mismatch,
    },
    Check {
        id: "driver.not.loaded",
        title: "a driver is loaded for the NVIDIA GPUs on the bus",
        needs_root: false,
        needs_gpu: true,
        run: not_loaded,
    },
    Check {
        id: "os.auto.upgrade",
        title: "unattended upgrades cannot replace the NVIDIA driver under running jobs",
        needs_root: false,
        needs_gpu: false,
        run: auto_upgrade,
    },
    Check {
        id: "driver.known.bad",
        title: "the driver is not a release the cases show failing",
        needs_root: false,
        needs_gpu: true,
        run: known_bad,
    },
    Check {
        id: "cuda.compat.shadow",
        title: "no older CUDA compat library comes before the driver's own",
        needs_root: false,
        needs_gpu: false,
        run: compat_shadow,
    },
    Check {
        id: "ld.path.shadow",
        title: "LD_LIBRARY_PATH does not shadow the CUDA libraries a wheel ships",
        needs_root: false,
        needs_gpu: false,
        run: ld_shadow,
    },
];

const VERSION: &str = "/proc/driver/nvidia/version";

/// The kernel module's version, and the line it is on.
pub(super) fn module_version(snap: &Snapshot) -> Option<(String, Evidence)> {
    if let Look::Found(text) = snap.file(VERSION) {
        for (n, line) in text.lines().enumerate() {
            if line.starts_with("NVRM version:") {
                let v = line
                    .split_whitespace()
                    .find(|w| w.chars().next().is_some_and(|c| c.is_ascii_digit()) && w.contains('.'))?;
                return Some((v.to_string(), Evidence::at(VERSION, n + 1, line.trim())));
            }
        }
    }
    let v = snap.value("/sys/module/nvidia/version").found()?;
    Some((v.to_string(), Evidence::new("/sys/module/nvidia/version", v)))
}

/// The user-space NVML versions found in the library directories (`libnvidia-ml.so.<ver>`).
fn nvml_versions(snap: &Snapshot) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64"] {
        if let Look::Found(names) = snap.dir(dir) {
            for n in names {
                if let Some(v) = n.strip_prefix("libnvidia-ml.so.")
                    && v.contains('.')
                {
                    out.push((v.to_string(), format!("{dir}/{n}")));
                }
            }
        }
    }
    out
}

fn mismatch(i: &Input<'_>) -> Outcome {
    let module = module_version(i.snap);
    let mut findings = Vec::new();
    if let Some(Ran::Exited { stdout, stderr, .. }) = i.snap.command(SMI_Q) {
        if let Some(line) =
            stdout.lines().chain(stderr.lines()).find(|l| l.contains("Driver/library version mismatch"))
        {
            findings.push(
                Finding::new(State::Crit, "nvidia driver", "nvidia-smi reports a driver/library version mismatch: the module was upgraded under a running system")
                    .evidence(Evidence::new(SMI_Q, line.trim()))
                    .action("drain the node and reboot it (or reload the nvidia modules) so the kernel module matches the library"),
            );
        }
    }
    let Some((kernel, evidence)) = module else {
        if findings.is_empty() {
            return Outcome::unknown(
                format!("{VERSION} is not readable: no driver loaded?"),
                "see driver.not.loaded",
            );
        }
        return Outcome::found(findings, "");
    };
    let libs = nvml_versions(i.snap);
    for (v, path) in &libs {
        if v != &kernel && findings.is_empty() {
            findings.push(
                Finding::new(State::Crit, "nvidia driver", format!("kernel module {kernel} but NVML {v}: every NVML call fails until they match"))
                    .evidence(evidence.clone())
                    .evidence(Evidence::new(path.clone(), path.rsplit('/').next().unwrap_or(path)))
                    .action("reboot the node onto one driver version, and hold the driver packages (see os.auto.upgrade)"),
            );
        }
    }
    if libs.is_empty() && findings.is_empty() {
        return Outcome::unknown(
            format!("kernel module {kernel}, but no libnvidia-ml.so.<version> was found"),
            "check the driver's user-space install",
        );
    }
    Outcome::found(findings, format!("kernel module and NVML are both {kernel}"))
}

fn not_loaded(i: &Input<'_>) -> Outcome {
    let loaded = i.snap.file(VERSION).found().is_some()
        || i.snap.value("/sys/module/nvidia/version").found().is_some();
    if loaded {
        return Outcome::pass(format!("the nvidia module is loaded for {} GPU(s)", i.ctx.gpus.len()));
    }
    if i.snap.file(VERSION) == Look::NotCaptured {
        return unreadable(VERSION, Look::<()>::NotCaptured, "driver.not.loaded");
    }
    let kernel = i.snap.meta("kernel").unwrap_or("the running kernel");
    Outcome::found(
        vec![Finding::new(State::Crit, "nvidia driver", format!("{} NVIDIA GPU(s) on the PCI bus but no nvidia module is loaded (kernel {kernel})", i.ctx.gpus.len()))
            .evidence(Evidence::new(format!("{}/{}", super::super::context::PCI, i.ctx.gpus[0].address), format!("class {}", i.ctx.gpus[0].class)))
            .action("build or install the driver for this kernel (a kernel upgrade without a rebuilt module is the usual cause)")],
        "",
    )
}

fn auto_upgrade(i: &Input<'_>) -> Outcome {
    let path = "/etc/apt/apt.conf.d/20auto-upgrades";
    let text = match i.snap.file(path) {
        Look::Found(t) => t,
        Look::Missing => {
            return Outcome::na(
                "no unattended-upgrades configuration (not a Debian or Ubuntu node, or it is off)",
            );
        }
        look => return unreadable(path, look, "os.auto.upgrade"),
    };
    let Some((n, line)) =
        text.lines().enumerate().find(|(_, l)| l.contains("Unattended-Upgrade") && l.contains("\"1\""))
    else {
        return Outcome::pass("unattended upgrades are off");
    };
    let blacklist = i.snap.file("/etc/apt/apt.conf.d/50unattended-upgrades").found().unwrap_or("");
    let blacklisted = blacklist
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .any(|l| l.contains("nvidia") || l.contains("libnvidia"));
    let status = i.snap.file("/var/lib/dpkg/status").found().unwrap_or("");
    let held = status.split("\n\n").any(|s| {
        s.contains("Package: nvidia-driver")
            || s.contains("Package: libnvidia-compute") && s.contains("Status: hold")
    }) && status
        .split("\n\n")
        .filter(|s| s.contains("Package: nvidia") || s.contains("Package: libnvidia"))
        .all(|s| s.contains("Status: hold"));
    if blacklisted || held {
        return Outcome::pass("unattended upgrades are on, and the NVIDIA packages are held or blacklisted");
    }
    if i.ctx.gpus.is_empty() && !status.contains("Package: nvidia") && !status.contains("Package: libnvidia")
    {
        return Outcome::na("no NVIDIA packages installed");
    }
    Outcome::found(
        vec![Finding::new(State::Warn, "unattended-upgrades", "unattended upgrades are on and nothing holds the NVIDIA packages: an upgrade can replace the driver under running jobs")
            .evidence(Evidence::at(path, n + 1, line.trim()))
            .action("add the nvidia and libnvidia packages to Unattended-Upgrade::Package-Blacklist, or `apt-mark hold` them")],
        "",
    )
}

fn known_bad(i: &Input<'_>) -> Outcome {
    let Some((version, evidence)) = module_version(i.snap) else {
        return Outcome::unknown(
            "the driver version could not be read (no driver loaded?)",
            "see driver.not.loaded",
        );
    };
    // GSP firmware: `GSP Firmware Version` in nvidia-smi -q (N/A when off), or the module
    // parameter EnableGpuFirmware.
    let gsp = match smi_report(i.snap, "driver.known.bad") {
        Ok(report) => report
            .gpus
            .iter()
            .any(|(_, f)| super::field(f, "GSP Firmware Version").is_some_and(|(v, _)| v != "N/A")),
        Err(_) => i
            .snap
            .file("/proc/driver/nvidia/params")
            .found()
            .and_then(|t| t.lines().find(|l| l.starts_with("EnableGpuFirmware")))
            .is_some_and(|l| !l.trim_end().ends_with(": 0")),
    };
    let mut findings = Vec::new();
    for rule in i.rules.versions_of("driver.known.bad", "driver") {
        if !rule.matches(&version) || rule.when.iter().any(|w| w == "gsp" && !gsp) {
            continue;
        }
        findings.push(
            Finding::new(rule.state(), "nvidia driver", format!("driver {version}: {}", rule.message))
                .evidence(evidence.clone())
                .action(rule.action.clone()),
        );
    }
    Outcome::found(findings, format!("driver {version} is in no known-bad range"))
}

fn compat_shadow(i: &Input<'_>) -> Outcome {
    let dirs = super::ld_dirs(i.snap);
    let compat: Vec<(&str, String)> = dirs
        .iter()
        .filter(|d| d.contains("compat"))
        .filter_map(|d| {
            let names = i.snap.dir(d).found()?;
            let v = names.iter().find_map(|n| n.strip_prefix("libcuda.so.").filter(|v| v.contains('.')))?;
            Some((*d, v.to_string()))
        })
        .collect();
    if compat.is_empty() {
        return Outcome::pass(if dirs.is_empty() {
            "LD_LIBRARY_PATH is not set".to_string()
        } else {
            "no CUDA compat library on LD_LIBRARY_PATH".to_string()
        });
    }
    let Some((kernel, evidence)) = module_version(i.snap) else {
        return Outcome::unknown(
            "CUDA compat libraries are on LD_LIBRARY_PATH, but the driver version could not be read",
            "audit the node that runs the job",
        );
    };
    let mut findings = Vec::new();
    for (dir, v) in compat {
        if crate::doctor::rules::compare(&v, &kernel).is_lt() {
            findings.push(
                Finding::new(State::Warn, dir.to_string(), format!("{dir} holds libcuda {v}, older than the driver {kernel}, and comes first on LD_LIBRARY_PATH: CUDA fails with error 803/804"))
                    .evidence(Evidence::new("LD_LIBRARY_PATH", i.snap.env("LD_LIBRARY_PATH").unwrap_or("")))
                    .evidence(evidence.clone())
                    .action(format!("take {dir} off LD_LIBRARY_PATH: the host driver is newer than the compat package")),
            );
        }
    }
    Outcome::found(findings, "the compat libraries are newer than the driver")
}

fn ld_shadow(i: &Input<'_>) -> Outcome {
    let dirs = super::ld_dirs(i.snap);
    if dirs.is_empty() {
        return Outcome::pass("LD_LIBRARY_PATH is not set");
    }
    let wheels = super::dist_infos(i.snap);
    let shipped: Vec<(&str, &str)> =
        [("nvidia_cudnn", "libcudnn.so"), ("nvidia_cublas", "libcublasLt.so"), ("nvidia_nccl", "libnccl.so")]
            .into_iter()
            .filter(|(wheel, _)| wheels.iter().any(|(name, _, _)| name.starts_with(wheel)))
            .collect();
    let mut findings = Vec::new();
    for d in &dirs {
        let Some(names) = i.snap.dir(d).found() else { continue };
        for (wheel, lib) in &shipped {
            if let Some(n) = names.iter().find(|n| n.starts_with(lib)) {
                findings.push(
                    Finding::new(State::Warn, format!("{d}/{n}"), format!("{d} on LD_LIBRARY_PATH carries {n}, which the {wheel}* wheel also ships: the process may load the wrong one"))
                        .evidence(Evidence::new("LD_LIBRARY_PATH", i.snap.env("LD_LIBRARY_PATH").unwrap_or("")))
                        .action(format!("drop {d} from LD_LIBRARY_PATH in the Python environment that ships its own CUDA libraries")),
                );
            }
        }
    }
    Outcome::found(findings, format!("{} LD_LIBRARY_PATH directories", dirs.len()))
}
