//! Containers and GPUs: a runtime that can hand GPUs to containers, the `/dev/char` links that
//! keep them through a systemd reload, and enroot/pyxis on Slurm.

use super::{Check, Input, Look};
use crate::doctor::finding::{Evidence, Finding, Outcome, State};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "ctr.runtime",
        title: "Docker or containerd can give containers the GPUs",
        needs_root: false,
        needs_gpu: true,
        run: runtime,
    },
    Check {
        id: "ctr.devchar",
        title: "every /dev/nvidia* node has its /dev/char link under systemd cgroups",
        needs_root: false,
        needs_gpu: true,
        run: devchar,
    },
    Check {
        id: "enroot.pyxis",
        title: "enroot and pyxis are set up as the cases needed",
        needs_root: false,
        needs_gpu: false,
        run: enroot,
    },
];

fn runtime(i: &Input<'_>) -> Outcome {
    let daemon = i.snap.file("/etc/docker/daemon.json");
    let containerd = i.snap.file("/etc/containerd/config.toml");
    if daemon == Look::Missing && containerd == Look::Missing {
        return Outcome::na("no Docker or containerd configuration on this node");
    }
    for (path, look) in [("/etc/docker/daemon.json", daemon), ("/etc/containerd/config.toml", containerd)] {
        if matches!(look, Look::Unreadable(_)) {
            return super::unreadable(path, look, "ctr.runtime");
        }
    }
    let cdi = ["/etc/cdi", "/var/run/cdi"]
        .iter()
        .any(|d| i.snap.dir(d).found().is_some_and(|n| n.iter().any(|f| f.contains("nvidia"))));
    let docker_nvidia = daemon.found().is_some_and(|t| t.contains("nvidia"));
    let containerd_nvidia = containerd.found().is_some_and(|t| t.contains("nvidia"));
    let toolkit = i.snap.file("/etc/nvidia-container-runtime/config.toml").found().is_some()
        || i.snap
            .file("/var/lib/dpkg/status")
            .found()
            .is_some_and(|s| s.contains("Package: nvidia-container-toolkit"));
    if docker_nvidia || containerd_nvidia || cdi {
        let findings = toolkit_versions(i);
        return Outcome::found(findings, "an NVIDIA runtime or CDI spec is configured");
    }
    let source =
        if daemon.found().is_some() { "/etc/docker/daemon.json" } else { "/etc/containerd/config.toml" };
    let msg = if toolkit {
        "the NVIDIA container toolkit is installed but no runtime is configured: `--gpus all` fails with \"could not select device driver\""
    } else {
        "no NVIDIA container runtime, toolkit or CDI spec: containers cannot be given the GPUs"
    };
    Outcome::found(
        vec![Finding::new(State::Warn, source, msg)
            .evidence(Evidence::new(source, "no nvidia runtime"))
            .action("install nvidia-container-toolkit and run `nvidia-ctk runtime configure`, then restart the runtime")],
        "",
    )
}

/// The installed container toolkit against the version rules (`data/doctor.toml`).
fn toolkit_versions(i: &Input<'_>) -> Vec<Finding> {
    let Some(status) = i.snap.file("/var/lib/dpkg/status").found() else { return Vec::new() };
    let Some(version) = status
        .split("\n\n")
        .find(|s| s.starts_with("Package: nvidia-container-toolkit\n"))
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("Version: ")))
    else {
        return Vec::new();
    };
    let v3 = i.snap.file("/etc/containerd/config.toml").found().is_some_and(|t| {
        t.lines().any(|l| l.split('#').next().unwrap_or("").replace(' ', "") == "version=3")
    });
    i.rules
        .versions_of("ctr.runtime", "container-toolkit")
        .filter(|r| r.matches(version) && r.when.iter().all(|w| w != "containerd-v3" || v3))
        .map(|r| {
            Finding::new(
                r.state(),
                "nvidia-container-toolkit",
                format!("container toolkit {version}: {}", r.message),
            )
            .evidence(Evidence::new(
                "/var/lib/dpkg/status",
                format!("nvidia-container-toolkit Version: {version}"),
            ))
            .action(r.action.clone())
        })
        .collect()
}

fn devchar(i: &Input<'_>) -> Outcome {
    let systemd = i
        .snap
        .file("/etc/docker/daemon.json")
        .found()
        .is_some_and(|t| t.contains("native.cgroupdriver=systemd"))
        || i.snap
            .file("/etc/containerd/config.toml")
            .found()
            .is_some_and(|t| t.contains("SystemdCgroup = true"));
    if !systemd {
        return Outcome::na("the container runtime does not use the systemd cgroup driver");
    }
    let nodes = match i.snap.dir("/dev") {
        Look::Found(n) => n.to_vec(),
        look => return super::unreadable("/dev", look, "ctr.devchar"),
    };
    let links = i.snap.dir("/dev/char").found().map(<[String]>::to_vec).unwrap_or_default();
    let mut missing = Vec::new();
    for n in nodes.iter().filter(|n| n.starts_with("nvidia")) {
        if let Some(numbers) = i.snap.value(&format!("stat:/dev/{n}")).found()
            && !links.iter().any(|l| l == numbers)
        {
            missing.push(format!("{n} ({numbers})"));
        }
    }
    if missing.is_empty() {
        return Outcome::pass("every /dev/nvidia* node has its /dev/char link");
    }
    Outcome::found(
        vec![Finding::new(State::Warn, "/dev/char", format!("{} NVIDIA device node(s) have no /dev/char link: running containers lose their GPUs at the next `systemctl daemon-reload`", missing.len()))
            .evidence(Evidence::new("/dev/char", missing.join(", ")))
            .action("run `nvidia-ctk system create-dev-char-symlinks --create-all` at boot (a udev rule)")],
        "",
    )
}

fn enroot(i: &Input<'_>) -> Outcome {
    let conf = i.snap.file("/etc/enroot/enroot.conf");
    let hooks = i.snap.dir("/etc/enroot/hooks.d");
    if conf == Look::Missing && matches!(hooks, Look::Missing) {
        return Outcome::na("enroot is not installed");
    }
    if matches!(conf, Look::Unreadable(_) | Look::NotCaptured) {
        return super::unreadable("/etc/enroot/enroot.conf", conf, "enroot.pyxis");
    }
    let mut findings = Vec::new();
    if let Look::Found(h) = hooks
        && let Some(hook) = h.iter().find(|n| n.contains("mellanox"))
        && i.snap.exists("/sys/class/infiniband_cm") == Some(false)
    {
        findings.push(
            Finding::new(State::Warn, format!("/etc/enroot/hooks.d/{hook}"), "the Mellanox hook is installed but /sys/class/infiniband_cm does not exist: older hooks fail every container start on newer kernels")
                .evidence(Evidence::new("/etc/enroot/hooks.d", hook.clone()))
                .action("update enroot's Mellanox hook, or remove it on nodes without InfiniBand CM"),
        );
    }
    let plug = i.snap.file("/etc/slurm/plugstack.conf").found().unwrap_or("");
    let plug_d = i
        .snap
        .dir("/etc/slurm/plugstack.conf.d")
        .found()
        .is_some_and(|n| n.iter().any(|f| f.contains("pyxis")));
    if i.ctx.slurm && !plug.contains("pyxis") && !plug_d {
        findings.push(
            Finding::new(State::Info, "/etc/slurm/plugstack.conf", "enroot is installed but pyxis is not in Slurm's plugstack: `srun --container-image` is not recognised")
                .evidence(Evidence::new("/etc/slurm/plugstack.conf", "no spank_pyxis.so"))
                .action("add `required /usr/local/lib/slurm/spank_pyxis.so` to plugstack.conf(.d)"),
        );
    }
    if let Some(line) = conf.found().and_then(|t| {
        t.lines().find(|l| l.trim_start().starts_with("ENROOT_RESTRICT_DEV") && l.contains('y'))
    }) {
        findings.push(
            Finding::new(
                State::Info,
                "ENROOT_RESTRICT_DEV",
                "ENROOT_RESTRICT_DEV is on: with --gpus-per-task, tasks can start with no GPU",
            )
            .evidence(Evidence::new("/etc/enroot/enroot.conf", line.trim()))
            .action("prefer --gpus or --gres for containers, or turn ENROOT_RESTRICT_DEV off"),
        );
    }
    Outcome::found(findings, "enroot's hooks and Slurm's pyxis are in place")
}
