//! NVLink and the NVSwitch fabric: the fabric manager running, at the driver's version, with
//! the fabric up; and NVLinks down on one GPU while its peers' are up.

use super::{Check, Input, SMI_Q, field, smi_report};
use crate::doctor::{
    finding::{Evidence, Finding, Outcome, State},
    snapshot::Ran,
};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "fabric.manager",
        title: "on NVSwitch systems the fabric manager runs, matches the driver and the fabric is up",
        needs_root: false,
        needs_gpu: true,
        run: fabric_manager,
    },
    Check {
        id: "nvlink.state",
        title: "no GPU has its NVLinks down while its peers' are up",
        needs_root: false,
        needs_gpu: true,
        run: nvlink,
    },
];

const SYSTEMCTL: &str = "systemctl is-active nvidia-fabricmanager";

fn fabric_manager(i: &Input<'_>) -> Outcome {
    if !i.ctx.nvswitch {
        return Outcome::na("no NVSwitch on the PCI bus");
    }
    let mut findings = Vec::new();
    match i.snap.command(SYSTEMCTL) {
        Some(Ran::Exited { stdout, .. }) if stdout.trim() != "active" => findings.push(
            Finding::new(
                State::Crit,
                "nvidia-fabricmanager",
                format!(
                    "the fabric manager is {}: CUDA and NCCL fail on NVSwitch systems without it",
                    stdout.trim()
                ),
            )
            .evidence(Evidence::new(SYSTEMCTL, stdout.trim()))
            .action("start nvidia-fabricmanager (its version must match the driver's) and check its log"),
        ),
        Some(Ran::Exited { .. }) => {}
        _ => {}
    }
    if let Ok(report) = smi_report(i.snap, "fabric.manager") {
        for (bus, fields) in &report.gpus {
            let state = field(fields, "Fabric / State");
            let status = field(fields, "Fabric / Status");
            if let Some((s, l)) = state.filter(|(s, _)| !["Completed", "N/A"].contains(s)) {
                findings.push(
                    Finding::new(State::Crit, bus.clone(), format!("{bus}: fabric state is {s}"))
                        .evidence(Evidence::at(SMI_Q, l, format!("State : {s}")))
                        .action("restart the fabric manager, then reset the GPUs; NVLS needs both"),
                );
            } else if let Some((s, l)) = status.filter(|(s, _)| !["Success", "N/A"].contains(s)) {
                findings.push(
                    Finding::new(State::Crit, bus.clone(), format!("{bus}: fabric status is {s}"))
                        .evidence(Evidence::at(SMI_Q, l, format!("Status : {s}")))
                        .action("restart the fabric manager, then reset the GPUs"),
                );
            }
        }
    }
    // The fabric manager's package version against the driver's.
    if let (Some(status), Some((driver, evidence))) =
        (i.snap.file("/var/lib/dpkg/status").found(), super::driver::module_version(i.snap))
    {
        for stanza in status.split("\n\n").filter(|s| s.starts_with("Package: nvidia-fabricmanager")) {
            if let Some(v) = stanza.lines().find_map(|l| l.strip_prefix("Version: "))
                && !v.starts_with(&driver)
            {
                findings.push(
                    Finding::new(State::Crit, "nvidia-fabricmanager", format!("fabric manager {v} but driver {driver}: it refuses to start on a version mismatch"))
                        .evidence(Evidence::new("/var/lib/dpkg/status", format!("nvidia-fabricmanager Version: {v}")))
                        .evidence(evidence.clone())
                        .action("install the fabric manager of the driver's exact version and hold both packages"),
                );
            }
        }
    }
    if i.snap.command(SYSTEMCTL).is_none() && findings.is_empty() {
        return Outcome::unknown(
            "the fabric manager's state was not read",
            "run `incidex doctor` on the node itself",
        );
    }
    Outcome::found(findings, "the fabric manager is active and the fabric is up")
}

fn nvlink(i: &Input<'_>) -> Outcome {
    let key = "nvidia-smi nvlink -s";
    let out = match super::output(i.snap, key, "nvlink.state") {
        Ok((stdout, stderr, _)) => format!("{stdout}{stderr}"),
        Err(unknown) => return unknown,
    };
    // GPU n: (active links, inactive links, the GPU's line number)
    let mut gpus: Vec<(String, usize, usize, usize)> = Vec::new();
    for (n, line) in out.lines().enumerate() {
        let t = line.trim();
        if t.starts_with("GPU ") {
            gpus.push((t.split(':').next().unwrap_or(t).to_string(), 0, 0, n + 1));
        } else if let Some(g) = gpus.last_mut() {
            if t.starts_with("Link ") && t.contains("<inactive>") || t.contains("all links are inactive") {
                g.2 += 1;
            } else if t.starts_with("Link ") {
                g.1 += 1;
            }
        }
    }
    if gpus.iter().all(|g| g.1 + g.2 == 0) {
        return Outcome::na("no NVLink on these GPUs");
    }
    let any_active = gpus.iter().any(|g| g.1 > 0);
    let findings = gpus
        .iter()
        .filter(|g| any_active && g.1 == 0 && g.2 > 0)
        .map(|(name, _, down, line)| {
            Finding::new(State::Crit, name.clone(), format!("{name} has all {down} NVLinks inactive while its peers' are up"))
                .evidence(Evidence::at(key, *line, name.clone()))
                .action("drain the node; look for Xid 74/145/149 (gpu.xid) and reset the GPU or have the link serviced")
        })
        .collect();
    Outcome::found(findings, format!("NVLinks up on {} GPU(s)", gpus.len()))
}
