//! Environment settings the cases show hanging or slowing jobs: PyTorch's NCCL error handling
//! and watchdog, and debugging or workaround variables left set.

use super::{Check, Input, NodeEnv};
use crate::doctor::{environment, finding::Outcome};

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

fn torch_nccl(i: &Input<'_>) -> Outcome {
    let gpu_job = !i.ctx.gpus.is_empty() || i.snap.env("SLURM_JOB_ID").is_some();
    Outcome::found(environment::torch_nccl(&NodeEnv(i), gpu_job), "PyTorch's NCCL error handling is on")
}

fn hazards(i: &Input<'_>) -> Outcome {
    let restricted = i.snap.value("/proc/sys/kernel/yama/ptrace_scope").found().is_some_and(|s| s != "0");
    Outcome::found(
        environment::hazards(&NodeEnv(i), restricted),
        "no leftover debugging or workaround variable",
    )
}
