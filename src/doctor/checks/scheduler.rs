//! The scheduler's settings the cases turned on: Slurm's unkillable-step timeout, GPU devices
//! and GRES, health checks and bad-exit handling, and the kubelet's topology policy.

use super::{Check, Input, Look};
use crate::doctor::{
    context::PCI,
    finding::{Evidence, Finding, Outcome, State},
    snapshot::Snapshot,
};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "slurm.unkillable",
        title: "Slurm's UnkillableStepTimeout leaves time for a GPU job to exit",
        needs_root: false,
        needs_gpu: false,
        run: unkillable,
    },
    Check {
        id: "slurm.gpu.config",
        title: "Slurm constrains GPU devices and its GRES matches the GPUs",
        needs_root: false,
        needs_gpu: false,
        run: gpu_config,
    },
    Check {
        id: "slurm.failure.handling",
        title: "Slurm keeps failed nodes out and ends steps with a dead rank",
        needs_root: false,
        needs_gpu: false,
        run: failure_handling,
    },
    Check {
        id: "k8s.topology",
        title: "the kubelet's topology policy can admit a pod that asks for every GPU",
        needs_root: true,
        needs_gpu: true,
        run: topology,
    },
];

/// `slurm.conf`: its path and text.
fn slurm_conf(snap: &Snapshot) -> Option<(String, &str)> {
    if let Some(p) = snap.env("SLURM_CONF")
        && let Some(t) = snap.file(p).found()
    {
        return Some((p.to_string(), t));
    }
    for p in ["/etc/slurm/slurm.conf", "/etc/slurm-llnl/slurm.conf"] {
        if let Some(t) = snap.file(p).found() {
            return Some((p.to_string(), t));
        }
    }
    None
}

/// A `Key=Value` setting of a Slurm config (case-insensitive key), with its line.
fn setting<'a>(text: &'a str, key: &str) -> Option<(&'a str, usize, &'a str)> {
    text.lines().enumerate().find_map(|(n, l)| {
        let l = l.split('#').next().unwrap_or("").trim();
        let (k, v) = l.split_once('=')?;
        k.trim().eq_ignore_ascii_case(key).then(|| (v.trim(), n + 1, l))
    })
}

fn no_slurm(snap: &Snapshot) -> Outcome {
    if let look @ (Look::NotCaptured | Look::Unreadable(_)) = snap.file("/etc/slurm/slurm.conf") {
        return super::unreadable("/etc/slurm/slurm.conf", look, "slurm.unkillable");
    }
    Outcome::na("no slurm.conf here (not a Slurm node, or a configless cluster)")
}

fn unkillable(i: &Input<'_>) -> Outcome {
    let Some((path, text)) = slurm_conf(i.snap) else { return no_slurm(i.snap) };
    match setting(text, "UnkillableStepTimeout") {
        Some((v, n, l)) if v.parse::<u64>().is_ok_and(|s| s >= 120) => {
            let _ = (n, l);
            Outcome::pass(format!("UnkillableStepTimeout={v}"))
        }
        Some((v, n, l)) => Outcome::found(
            vec![Finding::new(State::Warn, "UnkillableStepTimeout", format!("UnkillableStepTimeout={v} s: GPU processes that take longer to exit drain the node with \"Kill task failed\""))
                .evidence(Evidence::at(path, n, l))
                .action("set UnkillableStepTimeout=180 (or more) in slurm.conf")],
            "",
        ),
        None => Outcome::found(
            vec![Finding::new(State::Warn, "UnkillableStepTimeout", "UnkillableStepTimeout is not set (60 s by default): GPU processes that take longer to exit drain the node")
                .evidence(Evidence::new(path, "no UnkillableStepTimeout"))
                .action("set UnkillableStepTimeout=180 (or more) in slurm.conf")],
            "",
        ),
    }
}

fn gpu_config(i: &Input<'_>) -> Outcome {
    let Some((path, text)) = slurm_conf(i.snap) else { return no_slurm(i.snap) };
    let gres = setting(text, "GresTypes").map(|(v, _, _)| v).unwrap_or("");
    let gpu_nodes = text.lines().any(|l| l.contains("Gres=gpu") || l.contains("Gres=gpu:"));
    if !gres.contains("gpu") && !gpu_nodes && i.ctx.gpus.is_empty() {
        return Outcome::na("this cluster's Slurm schedules no GPUs");
    }
    let mut findings = Vec::new();
    if !gres.contains("gpu") {
        findings.push(
            Finding::new(
                State::Warn,
                "GresTypes",
                "GPUs are present or requested, but GresTypes does not list gpu: GPUs cannot be allocated",
            )
            .evidence(Evidence::new(path.clone(), format!("GresTypes={gres}")))
            .action("add GresTypes=gpu to slurm.conf and describe the GPUs in gres.conf"),
        );
    }
    match i.snap.file("/etc/slurm/cgroup.conf") {
        Look::Found(c) => {
            let constrained =
                setting(c, "ConstrainDevices").is_some_and(|(v, _, _)| v.eq_ignore_ascii_case("yes"));
            if !constrained {
                findings.push(
                    Finding::new(State::Warn, "ConstrainDevices", "cgroup.conf does not set ConstrainDevices=yes: jobs (and containers) may see no CUDA device, or every GPU")
                        .evidence(Evidence::new("/etc/slurm/cgroup.conf", setting(c, "ConstrainDevices").map_or("ConstrainDevices unset", |(_, _, l)| l)))
                        .action("set ConstrainDevices=yes in cgroup.conf"),
                );
            }
        }
        Look::Missing => findings.push(
            Finding::new(
                State::Warn,
                "ConstrainDevices",
                "no cgroup.conf: GPU devices are not constrained per job",
            )
            .evidence(Evidence::new("/etc/slurm/cgroup.conf", "missing"))
            .action("add cgroup.conf with ConstrainDevices=yes"),
        ),
        _ => {}
    }
    // This node's GRES count against its GPUs.
    let host = i.snap.meta("host").unwrap_or("");
    if !host.is_empty() && !i.ctx.gpus.is_empty() {
        for (n, l) in text.lines().enumerate() {
            let line = l.trim();
            if !line.starts_with("NodeName=")
                || line.split_whitespace().next().is_none_or(|w| w.trim_start_matches("NodeName=") != host)
            {
                continue;
            }
            if let Some(count) = line
                .split_whitespace()
                .find_map(|w| w.strip_prefix("Gres="))
                .and_then(|g| g.rsplit(':').next())
                .and_then(|c| c.parse::<usize>().ok())
                && count != i.ctx.gpus.len()
            {
                findings.push(
                    Finding::new(
                        State::Warn,
                        host.to_string(),
                        format!(
                            "slurm.conf gives this node {count} GPUs in GRES; {} are on the bus",
                            i.ctx.gpus.len()
                        ),
                    )
                    .evidence(Evidence::at(path.clone(), n + 1, line))
                    .action("make Gres=gpu:N match the node's GPUs (or find the missing GPU: gpu.count)"),
                );
            }
        }
    }
    Outcome::found(findings, "GPU GRES and device constraints are configured")
}

fn failure_handling(i: &Input<'_>) -> Outcome {
    let Some((path, text)) = slurm_conf(i.snap) else { return no_slurm(i.snap) };
    let mut findings = Vec::new();
    if setting(text, "HealthCheckProgram").is_none() {
        findings.push(
            Finding::new(State::Info, "HealthCheckProgram", "no HealthCheckProgram: nothing keeps a node with Xid or ECC errors out of the next job")
                .evidence(Evidence::new(path.clone(), "no HealthCheckProgram"))
                .action("set HealthCheckProgram (e.g. NHC, or `incidex doctor --fail-on crit` in a prolog) and HealthCheckInterval"),
        );
    }
    match setting(text, "KillOnBadExit") {
        Some(("1", _, _)) => {}
        other => findings.push(
            Finding::new(
                State::Info,
                "KillOnBadExit",
                "KillOnBadExit is not 1: when one rank dies, the step's other ranks can wait for ever",
            )
            .evidence(other.map_or(Evidence::new(path.clone(), "no KillOnBadExit"), |(_, n, l)| {
                Evidence::at(path.clone(), n, l)
            }))
            .action("set KillOnBadExit=1, or launch with `srun --kill-on-bad-exit=1 --wait=60`"),
        ),
    }
    Outcome::found(findings, "health checks and bad-exit handling are configured")
}

fn topology(i: &Input<'_>) -> Outcome {
    let path = "/var/lib/kubelet/config.yaml";
    let text = match i.snap.file(path) {
        Look::Found(t) => t,
        Look::Missing => return Outcome::na("no kubelet on this node"),
        look => return super::unreadable(path, look, "k8s.topology"),
    };
    let Some((n, line)) =
        text.lines().enumerate().find(|(_, l)| l.trim_start().starts_with("topologyManagerPolicy:"))
    else {
        return Outcome::pass("no topology manager policy (none by default)");
    };
    if !line.contains("single-numa-node") {
        return Outcome::pass(line.trim().to_string());
    }
    let mut nodes: Vec<&str> = i
        .ctx
        .gpus
        .iter()
        .filter_map(|g| i.snap.value(&format!("{PCI}/{}/numa_node", g.address)).found())
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    if nodes.len() <= 1 {
        return Outcome::pass("single-numa-node, and every GPU is on one NUMA node");
    }
    Outcome::found(
        vec![Finding::new(State::Warn, "topologyManagerPolicy", format!("single-numa-node while the GPUs span {} NUMA nodes: a pod asking for all GPUs is never admitted (TopologyAffinityError)", nodes.len()))
            .evidence(Evidence::at(path, n + 1, line.trim()))
            .action("use the best-effort or restricted policy on nodes where full-node GPU pods run")],
        "",
    )
}
