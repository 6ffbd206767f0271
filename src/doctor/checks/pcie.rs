//! The PCIe platform under the GPUs: IOMMU translation and ACS redirection on bare metal (the
//! peer-to-peer hang and corruption cases), links trained below their width, and AER errors.

use super::{Check, Input, Look, as_root};
use crate::doctor::{
    context::PCI,
    finding::{Evidence, Finding, Outcome, State},
};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "iommu.translated",
        title: "GPUs of a multi-GPU bare-metal host are not behind a translating IOMMU",
        needs_root: false,
        needs_gpu: true,
        run: iommu,
    },
    Check {
        id: "acs.enabled",
        title: "no PCIe bridge above the GPUs redirects peer-to-peer traffic (ACS)",
        needs_root: true,
        needs_gpu: true,
        run: acs,
    },
    Check {
        id: "pcie.link",
        title: "GPU and NIC links are trained at their full width",
        needs_root: false,
        needs_gpu: true,
        run: link,
    },
    Check {
        id: "pcie.aer",
        title: "no fatal or non-fatal PCIe AER error on the GPUs and NICs",
        needs_root: false,
        needs_gpu: true,
        run: aer,
    },
];

fn iommu(i: &Input<'_>) -> Outcome {
    if !i.ctx.bare_metal() {
        return Outcome::na(format!(
            "a VM guest ({}): the hypervisor owns the IOMMU",
            i.ctx.vm.as_deref().unwrap_or("")
        ));
    }
    if i.ctx.gpus.len() < 2 {
        return Outcome::na("fewer than two GPUs: no peer-to-peer traffic");
    }
    let cmdline = match i.snap.value("/proc/cmdline") {
        Look::Found(c) => c,
        look => return super::unreadable("/proc/cmdline", look, "iommu.translated"),
    };
    if cmdline
        .split_whitespace()
        .any(|w| w == "iommu=pt" || w == "iommu=off" || w == "intel_iommu=off" || w == "amd_iommu=off")
    {
        return Outcome::pass("the kernel command line sets iommu=pt or turns the IOMMU off");
    }
    let mut translated = Vec::new();
    for g in &i.ctx.gpus {
        let Some(target) = i.snap.link(&format!("{PCI}/{}/iommu_group", g.address)).found() else { continue };
        let group = target.rsplit('/').next().unwrap_or("");
        let path = format!("/sys/kernel/iommu_groups/{group}/type");
        if let Some(t) = i.snap.value(&path).found()
            && t.starts_with("DMA")
        {
            translated.push((g.address.clone(), path, t.to_string()));
        }
    }
    let Some((addr, path, t)) = translated.first() else {
        return Outcome::pass("no GPU's IOMMU group translates DMA");
    };
    Outcome::found(
        vec![Finding::new(State::Warn, addr.clone(), format!("{} of {} GPUs sit in IOMMU groups that translate DMA ({t}) on bare metal: peer-to-peer copies can hang, crawl or corrupt", translated.len(), i.ctx.gpus.len()))
            .evidence(Evidence::new(path.clone(), t.clone()))
            .evidence(Evidence::new("/proc/cmdline", cmdline))
            .action("boot with iommu=pt (intel_iommu=on iommu=pt or amd_iommu=on iommu=pt), or run with NCCL_P2P_DISABLE=1 until then")],
        "",
    )
}

fn acs(i: &Input<'_>) -> Outcome {
    if !i.ctx.bare_metal() {
        return Outcome::na("a VM guest: virtual machines need ACS, it must stay on");
    }
    if i.ctx.gpus.len() < 2 {
        return Outcome::na("fewer than two GPUs: no peer-to-peer traffic");
    }
    let out = match super::output(i.snap, "lspci -vvv", "acs.enabled") {
        Ok((stdout, _, 0)) => stdout,
        Ok((_, stderr, code)) => {
            let why = format!(
                "lspci -vvv exited {code}: {}",
                crate::text::one_line(stderr.lines().next().unwrap_or(""))
            );
            return Outcome::unknown(why, as_root("acs.enabled"));
        }
        Err(unknown) => return unknown,
    };
    if !out.contains("ACSCtl:") {
        if i.ctx.root {
            return Outcome::pass("no device reports ACS control");
        }
        return Outcome::unknown("lspci shows ACS control only to root", as_root("acs.enabled"));
    }
    let mut device = String::new();
    let mut findings = Vec::new();
    for (n, line) in out.lines().enumerate() {
        if !line.starts_with(char::is_whitespace) && !line.is_empty() {
            device = line.split_whitespace().next().unwrap_or("").to_string();
        }
        if line.trim_start().starts_with("ACSCtl:")
            && (line.contains("ReqRedir+") || line.contains("CmpltRedir+"))
        {
            findings.push(
                Finding::new(State::Warn, device.clone(), format!("{device} redirects peer-to-peer requests (ACS): GPU-to-GPU traffic goes up through the root complex"))
                    .evidence(Evidence::at("lspci -vvv", n + 1, line.trim()))
                    .action("clear ACS on the bridges above the GPUs at boot (setpci, as NCCL's troubleshooting guide describes), or in the BIOS"),
            );
        }
    }
    Outcome::found(findings, "no bridge redirects peer-to-peer requests")
}

fn link(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut read = 0;
    for g in &i.ctx.gpus {
        let base = format!("{PCI}/{}", g.address);
        let (Some(cur), Some(max)) = (
            i.snap.value(&format!("{base}/current_link_width")).found(),
            i.snap.value(&format!("{base}/max_link_width")).found(),
        ) else {
            continue;
        };
        read += 1;
        if let (Ok(c), Ok(m)) = (cur.parse::<u32>(), max.parse::<u32>())
            && c < m
            && c > 0
        {
            findings.push(
                Finding::new(
                    State::Warn,
                    g.address.clone(),
                    format!("{} runs at x{c} of x{m}: a lane, riser or slot fault", g.address),
                )
                .evidence(Evidence::new(format!("{base}/current_link_width"), cur))
                .action("reseat or replace the GPU or riser; compare with its neighbours"),
            );
        }
    }
    if read == 0 {
        return Outcome::unknown("no GPU's link width could be read", "run on the host, with /sys visible");
    }
    Outcome::found(
        findings,
        format!("{read} GPU link(s) at full width (link speed drops at idle by design and is not judged)"),
    )
}

fn aer(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut read = 0;
    for g in &i.ctx.gpus {
        let base = format!("{PCI}/{}", g.address);
        for (file, sev) in [("aer_dev_fatal", State::Crit), ("aer_dev_nonfatal", State::Warn)] {
            let path = format!("{base}/{file}");
            let Some(text) = i.snap.file(&path).found() else { continue };
            read += 1;
            let total = text
                .lines()
                .find_map(|l| l.strip_prefix("TOTAL_ERR_").and_then(|r| r.split_whitespace().nth(1)))
                .and_then(|n| n.parse::<u64>().ok());
            if let Some(n) = total.filter(|n| *n > 0) {
                findings.push(
                    Finding::new(
                        sev,
                        g.address.clone(),
                        format!(
                            "{n} {} PCIe error(s) on {}",
                            if sev == State::Crit { "fatal" } else { "non-fatal" },
                            g.address
                        ),
                    )
                    .evidence(Evidence::new(path, format!("TOTAL_ERR {n}")))
                    .action("drain the node if errors grow; check the slot, riser and cabling"),
                );
            }
        }
    }
    if read == 0 {
        return Outcome::unknown(
            "no AER counters are exposed for the GPUs (no AER support, or /sys not visible)",
            "run on the host",
        );
    }
    Outcome::found(findings, "no PCIe AER errors on the GPUs")
}
