//! The GPUs themselves: Xid and SXid lines and "fallen off the bus" in the kernel log, memory
//! errors and row remapping, GPUs that went missing, throttling and power caps, and an
//! `nvidia-smi` that does not answer.

use std::collections::BTreeMap;

use super::{Check, Input, Look, SMI_Q, field, kernel_log, smi_report};
use crate::doctor::{
    finding::{Evidence, Finding, Outcome, State},
    snapshot::Ran,
};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "gpu.xid",
        title: "no hardware Xid, SXid or fallen-off-the-bus line since boot",
        needs_root: true,
        needs_gpu: true,
        run: xid,
    },
    Check {
        id: "gpu.memory.errors",
        title: "no uncorrectable ECC error, row-remap failure or pending remap",
        needs_root: false,
        needs_gpu: true,
        run: memory_errors,
    },
    Check {
        id: "gpu.count",
        title: "every GPU on the bus is seen by the driver and by nvidia-smi",
        needs_root: false,
        needs_gpu: true,
        run: count,
    },
    Check {
        id: "gpu.throttle",
        title: "no power brake, hardware slowdown or lowered power limit",
        needs_root: false,
        needs_gpu: true,
        run: throttle,
    },
    Check {
        id: "smi.unresponsive",
        title: "nvidia-smi answers in time and reaches every GPU",
        needs_root: false,
        needs_gpu: true,
        run: unresponsive,
    },
];

/// Xid codes that mean the GPU or its memory, NVLink or firmware failed (crit), and those that
/// an application causes (info). Anything else is a warning.
const CRIT_XIDS: &[u32] = &[48, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120, 145, 149];
const APP_XIDS: &[u32] = &[13, 31, 43, 45];

/// An Xid or SXid line: (kind, bus id, code).
fn parse_xid(line: &str) -> Option<(&'static str, String, u32)> {
    let (kind, rest) = if let Some(at) = line.find("SXid (PCI:") {
        ("SXid", &line[at + "SXid (PCI:".len()..])
    } else if let Some(at) = line.find("Xid (PCI:") {
        ("Xid", &line[at + "Xid (PCI:".len()..])
    } else {
        return None;
    };
    let (bdf, after) = rest.split_once(')')?;
    let code: String =
        after.trim_start_matches([':', ' ']).chars().take_while(char::is_ascii_digit).collect();
    Some((kind, bdf.to_string(), code.parse().ok()?))
}

fn xid(i: &Input<'_>) -> Outcome {
    let (source, log) = match kernel_log(i.snap, i.ctx, "gpu.xid") {
        Ok(l) => l,
        Err(o) => return o,
    };
    // (kind, bus id, code) → (count, last line number, last line).
    let mut seen: BTreeMap<(&str, String, u32), (usize, usize, String)> = BTreeMap::new();
    let mut off_bus: Vec<(usize, String)> = Vec::new();
    for (n, line) in log.lines().enumerate() {
        if let Some(key) = parse_xid(line) {
            let e = seen.entry(key).or_insert((0, 0, String::new()));
            e.0 += 1;
            e.1 = n + 1;
            e.2 = line.trim().to_string();
        } else if line.contains("fallen off the bus") {
            off_bus.push((n + 1, line.trim().to_string()));
        }
    }
    let mut findings = Vec::new();
    for ((kind, bdf, code), (count, line, text)) in seen {
        let sev = if kind == "SXid" {
            State::Warn
        } else if CRIT_XIDS.contains(&code) {
            State::Crit
        } else if APP_XIDS.contains(&code) {
            State::Info
        } else {
            State::Warn
        };
        let action = match sev {
            State::Crit => {
                "take the node out of the pool (drain it); reset or replace the GPU before it runs jobs again"
            }
            State::Info => "an application fault on that GPU: look at the job that ran there",
            _ => "look the code up in NVIDIA's Xid catalog and watch for repeats",
        };
        findings.push(
            Finding::new(sev, bdf.clone(), format!("{kind} {code} on {bdf}, {count}× since boot"))
                .evidence(Evidence::at(source, line, text))
                .action(action),
        );
    }
    if let Some((line, text)) = off_bus.last() {
        findings.push(
            Finding::new(
                State::Crit,
                "GPU",
                format!(
                    "a GPU has fallen off the bus ({}× since boot), with or without an Xid",
                    off_bus.len()
                ),
            )
            .evidence(Evidence::at(source, *line, text.clone()))
            .action(
                "drain the node; a GPU that fell off the bus needs a reset or a reboot, often a replacement",
            ),
        );
    }
    Outcome::found(findings, format!("no Xid in {} lines of the kernel log", log.lines().count()))
}

fn memory_errors(i: &Input<'_>) -> Outcome {
    let report = match smi_report(i.snap, "gpu.memory.errors") {
        Ok(r) => r,
        Err(o) => return o,
    };
    let mut findings = Vec::new();
    for (bus, fields) in &report.gpus {
        let ev = |line: usize, text: String| Evidence::at(SMI_Q, line, text);
        if let Some((v, l)) =
            field(fields, "Remapped Rows / Remapping Failure Occurred").filter(|(v, _)| *v == "Yes")
        {
            findings.push(
                Finding::new(State::Crit, bus.clone(), format!("row remapping failed on {bus}"))
                    .evidence(ev(l, format!("Remapping Failure Occurred : {v}")))
                    .action("drain the node and have the GPU replaced"),
            );
        }
        for key in [
            "Volatile / DRAM Uncorrectable",
            "Volatile / SRAM Uncorrectable",
            "Volatile / Double Bit ECC / Total",
        ] {
            if let Some((v, l)) = field(fields, key).filter(|(v, _)| v.parse::<u64>().is_ok_and(|n| n > 0)) {
                findings.push(
                    Finding::new(
                        State::Crit,
                        bus.clone(),
                        format!("{v} uncorrectable ECC error(s) on {bus} since the last reset"),
                    )
                    .evidence(ev(l, format!("{key} : {v}")))
                    .action("drain the node; reset the GPU, and replace it if errors return"),
                );
            }
        }
        if let Some((v, l)) = field(fields, "Remapped Rows / Pending").filter(|(v, _)| *v == "Yes") {
            findings.push(
                Finding::new(
                    State::Warn,
                    bus.clone(),
                    format!("a row remap is pending on {bus}: it takes effect at the next GPU reset"),
                )
                .evidence(ev(l, format!("Pending : {v}")))
                .action("reset the GPU (or reboot) before the next job"),
            );
        }
        if let Some((v, l)) = field(fields, "Retired Pages / Pending Page Blacklist")
            .or_else(|| field(fields, "Retired Pages / Pending Page Retirement"))
            .filter(|(v, _)| *v == "Yes")
        {
            findings.push(
                Finding::new(State::Warn, bus.clone(), format!("a page retirement is pending on {bus}"))
                    .evidence(ev(l, format!("Pending : {v}")))
                    .action("reset the GPU (or reboot) before the next job"),
            );
        }
    }
    Outcome::found(findings, format!("no memory error on {} GPU(s)", report.gpus.len()))
}

fn count(i: &Input<'_>) -> Outcome {
    let bus = i.ctx.gpus.len();
    let driver = match i.snap.dir("/proc/driver/nvidia/gpus") {
        Look::Found(n) => Some(n.len()),
        _ => None,
    };
    let smi = match i.snap.command("nvidia-smi -L") {
        Some(Ran::Exited { code: 0, stdout, .. }) => {
            Some(stdout.lines().filter(|l| l.starts_with("GPU ")).count())
        }
        _ => None,
    };
    let mut parts = vec![format!("{bus} on the PCI bus")];
    if let Some(d) = driver {
        parts.push(format!("{d} known to the driver"));
    }
    if let Some(s) = smi {
        parts.push(format!("{s} listed by nvidia-smi -L"));
    }
    let expected = i.snap.env("INCIDEX_EXPECT_GPUS").and_then(|v| v.parse::<usize>().ok());
    let counts: Vec<usize> = [Some(bus), driver, smi].into_iter().flatten().collect();
    let agree = counts.windows(2).all(|w| w[0] == w[1]) && expected.is_none_or(|e| e == bus);
    if driver.is_none() && smi.is_none() {
        return Outcome::unknown(
            format!("{bus} GPU(s) on the bus; neither the driver nor nvidia-smi could be asked"),
            "see driver.not.loaded and smi.unresponsive",
        );
    }
    if agree {
        return Outcome::pass(parts.join(", "));
    }
    if let Some(e) = expected {
        parts.push(format!("{e} expected"));
    }
    Outcome::found(
        vec![
            Finding::new(State::Crit, "GPUs", format!("the GPU counts disagree: {}", parts.join(", ")))
                .evidence(Evidence::new("/sys/bus/pci/devices", format!("{bus} NVIDIA GPU functions")))
                .action(
                    "a GPU is lost or hidden: drain the node and look for Xid 79 or fallen-off-the-bus lines",
                ),
        ],
        "",
    )
}

fn watts(v: &str) -> Option<f64> {
    v.trim().trim_end_matches('W').trim().parse().ok()
}

fn throttle(i: &Input<'_>) -> Outcome {
    let report = match smi_report(i.snap, "gpu.throttle") {
        Ok(r) => r,
        Err(o) => return o,
    };
    let mut findings = Vec::new();
    for (bus, fields) in &report.gpus {
        for (key, sev, what) in [
            ("HW Power Brake Slowdown", State::Crit, "the hardware power brake is asserted"),
            ("HW Thermal Slowdown", State::Warn, "hardware thermal slowdown is active"),
            ("HW Slowdown", State::Warn, "hardware slowdown is active"),
        ] {
            let found = fields.iter().find(|(k, v, _)| {
                (k.contains("Clocks Event Reasons") || k.contains("Clocks Throttle Reasons"))
                    && k.ends_with(key)
                    && v == "Active"
            });
            if let Some((_, v, l)) = found {
                findings.push(
                    Finding::new(sev, bus.clone(), format!("{what} on {bus}"))
                        .evidence(Evidence::at(SMI_Q, *l, format!("{key} : {v}")))
                        .action("check the chassis power and cooling (BMC); the brake can stay asserted after a power event until it is cleared"),
                );
                break;
            }
        }
        let limit = fields
            .iter()
            .find(|(k, _, _)| k.ends_with("Current Power Limit"))
            .and_then(|(_, v, l)| Some((watts(v)?, *l)));
        let default =
            fields.iter().find(|(k, _, _)| k.ends_with("Default Power Limit")).and_then(|(_, v, _)| watts(v));
        if let (Some((now, l)), Some(def)) = (limit, default)
            && now + 1.0 < def
        {
            findings.push(
                Finding::new(State::Warn, bus.clone(), format!("{bus} is capped at {now:.0} W of its default {def:.0} W"))
                    .evidence(Evidence::at(SMI_Q, l, format!("Current Power Limit : {now:.2} W")))
                    .action("reset the power limit (`nvidia-smi -pl` to the default, as root) unless the cap is meant"),
            );
        }
    }
    Outcome::found(findings, format!("no throttling on {} GPU(s)", report.gpus.len()))
}

fn unresponsive(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut ran = 0;
    for key in ["nvidia-smi -L", SMI_Q] {
        match i.snap.command(key) {
            Some(Ran::TimedOut { secs }) => findings.push(
                Finding::new(State::Crit, "nvidia-smi", format!("`{key}` did not answer in {secs} s: the GPU or the driver is wedged"))
                    .evidence(Evidence::new(key, format!("timed out after {secs} s")))
                    .action("do not schedule here: drain the node, then look at the kernel log (gpu.xid) and reset or reboot"),
            ),
            Some(Ran::Exited { stdout, stderr, .. }) => {
                ran += 1;
                if let Some(line) = stdout.lines().chain(stderr.lines()).find(|l| {
                    l.contains("Unable to determine the device handle") || l.contains("GPU is lost") || l.contains("No devices were found")
                }) {
                    findings.push(
                        Finding::new(State::Crit, "nvidia-smi", format!("`{key}` cannot reach a GPU"))
                            .evidence(Evidence::new(key, line.trim()))
                            .action("drain the node; a lost GPU needs a reset or a reboot"),
                    );
                }
            }
            Some(Ran::NotFound) => return Outcome::unknown("nvidia-smi is not installed here", "install the driver's utilities, or audit the host"),
            Some(Ran::NotRun(w)) | Some(Ran::Failed(w)) => {
                return Outcome::unknown(format!("`{key}`: {w}"), "run `incidex doctor` on the node itself");
            }
            None => return Outcome::unknown(format!("`{key}` is not in the snapshot"), "capture one on the node"),
        }
    }
    if findings.is_empty() && ran == 0 {
        return Outcome::unknown("nvidia-smi was not run", "run `incidex doctor` on the node itself");
    }
    Outcome::found(findings, "nvidia-smi answered in time")
}
