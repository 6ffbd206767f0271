//! Environment settings the cases show hanging or slowing jobs: PyTorch's NCCL error handling
//! and watchdog, and debugging or workaround variables left set.

use super::{Check, Input};
use crate::doctor::finding::{Evidence, Finding, Outcome, State};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "torch.nccl.env",
        title: "PyTorch's NCCL error handling and watchdog are not turned off",
        needs_root: false,
        needs_gpu: false,
        run: torch_nccl,
    },
    Check {
        id: "env.hazards",
        title: "no debugging or workaround variable is left set for every job",
        needs_root: false,
        needs_gpu: false,
        run: hazards,
    },
];

fn var(key: &str, value: &str) -> Evidence {
    Evidence::new("environment", format!("{key}={value}"))
}

fn torch_nccl(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    for key in ["TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"] {
        if let Some(v) = i.snap.env(key).filter(|v| *v == "0") {
            findings.push(
                Finding::new(State::Warn, key, format!("{key}=0: a rank that dies leaves the others waiting in a collective until the job's time runs out"))
                    .evidence(var(key, v))
                    .action(format!("unset {key} (or set it to 1) so the watchdog aborts the job")),
            );
        }
    }
    if let Some(v) = i.snap.env("NCCL_BLOCKING_WAIT").filter(|v| *v == "1") {
        findings.push(
            Finding::new(
                State::Info,
                "NCCL_BLOCKING_WAIT",
                "NCCL_BLOCKING_WAIT=1: every collective blocks the host thread; jobs run slower",
            )
            .evidence(var("NCCL_BLOCKING_WAIT", v))
            .action("unset it unless you are debugging a hang"),
        );
    }
    if let Some(v) = i.snap.env("TORCH_NCCL_ENABLE_MONITORING").filter(|v| *v == "0") {
        findings.push(
            Finding::new(
                State::Info,
                "TORCH_NCCL_ENABLE_MONITORING",
                "the NCCL heartbeat monitor is off: a stuck watchdog is never noticed",
            )
            .evidence(var("TORCH_NCCL_ENABLE_MONITORING", v))
            .action(
                "leave the monitor on, and raise TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC if it kills healthy jobs",
            ),
        );
    }
    if let Some(v) = i.snap.env("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")
        && v.parse::<u64>().is_ok_and(|s| s < 600)
    {
        findings.push(
            Finding::new(
                State::Info,
                "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC",
                format!("the heartbeat timeout is {v} s: slow but healthy steps can be killed"),
            )
            .evidence(var("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", v))
            .action("set it well above your longest step or checkpoint save"),
        );
    }
    if i.snap.env("TORCH_NCCL_TRACE_BUFFER_SIZE").is_none_or(|v| v == "0")
        && (!i.ctx.gpus.is_empty() || i.snap.env("SLURM_JOB_ID").is_some())
    {
        findings.push(
            Finding::new(State::Info, "TORCH_NCCL_TRACE_BUFFER_SIZE", "the NCCL flight recorder is off: a hang leaves no record of which collective each rank was in")
                .evidence(Evidence::new("environment", "TORCH_NCCL_TRACE_BUFFER_SIZE unset"))
                .action("set TORCH_NCCL_TRACE_BUFFER_SIZE (e.g. 2000) and TORCH_NCCL_DUMP_ON_TIMEOUT=1 in the job"),
        );
    }
    Outcome::found(findings, "PyTorch's NCCL error handling is on")
}

fn hazards(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    if let Some(v) = i.snap.env("CUDA_LAUNCH_BLOCKING").filter(|v| *v == "1") {
        findings.push(
            Finding::new(
                State::Warn,
                "CUDA_LAUNCH_BLOCKING",
                "CUDA_LAUNCH_BLOCKING=1 is set: it serialises kernels and has made NCCL jobs hang",
            )
            .evidence(var("CUDA_LAUNCH_BLOCKING", v))
            .action("unset it outside a debugging session"),
        );
    }
    for key in ["NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE"] {
        if let Some(v) = i.snap.env(key).filter(|v| *v == "1") {
            findings.push(
                Finding::new(State::Info, key, format!("{key}=1 is set: a workaround that costs bandwidth, often left after the cause was fixed"))
                    .evidence(var(key, v))
                    .action(format!("unset {key} and check the job still runs")),
            );
        }
    }
    if let Some(v) = i.snap.env("PYTORCH_CUDA_ALLOC_CONF").filter(|v| v.contains("expandable_segments:True"))
        && i.snap.value("/proc/sys/kernel/yama/ptrace_scope").found().is_some_and(|s| s != "0")
    {
        findings.push(
            Finding::new(State::Info, "PYTORCH_CUDA_ALLOC_CONF", "expandable segments with ptrace restricted: sharing CUDA memory between processes can fail (pidfd_getfd not permitted)")
                .evidence(var("PYTORCH_CUDA_ALLOC_CONF", v))
                .action("turn expandable segments off for jobs that share CUDA tensors across processes"),
        );
    }
    Outcome::found(findings, "no leftover debugging or workaround variable")
}
