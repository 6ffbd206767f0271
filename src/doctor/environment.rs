//! The environment settings both audits check, on the node (its environment, or the job's under
//! `incidex doctor` run inside it) and in a job's files (what a batch script exports, a
//! container's `env`, an env file): PyTorch's NCCL error handling and watchdog, debugging or
//! workaround variables left set, and the forms NCCL and Gloo accept for their socket
//! interfaces. One function per check, so the two audits give the same findings in the same
//! words; only where a value was read differs.

use super::finding::{Evidence, Finding, State};

/// Where the values come from.
pub trait EnvSource {
    /// The value of `key` when it is set (and not empty), with where it was read.
    fn get(&self, key: &str) -> Option<(&str, Evidence)>;
    /// The evidence for `key` not being set.
    fn unset(&self, key: &str) -> Evidence;
}

/// PyTorch's NCCL error handling, blocking wait, heartbeat monitor and flight recorder.
/// `gpu_job`: whether this environment runs GPU work (the flight recorder advice needs one).
pub fn torch_nccl(env: &dyn EnvSource, gpu_job: bool) -> Vec<Finding> {
    let mut findings = Vec::new();
    for key in ["TORCH_NCCL_ASYNC_ERROR_HANDLING", "NCCL_ASYNC_ERROR_HANDLING"] {
        if let Some((_, ev)) = env.get(key).filter(|(v, _)| *v == "0") {
            findings.push(
                Finding::new(State::Warn, key, format!("{key}=0: a rank that dies leaves the others waiting in a collective until the job's time runs out"))
                    .evidence(ev)
                    .action(format!("unset {key} (or set it to 1) so the watchdog aborts the job")),
            );
        }
    }
    // PyTorch renamed NCCL_BLOCKING_WAIT to TORCH_NCCL_BLOCKING_WAIT; either turns it on.
    for key in ["TORCH_NCCL_BLOCKING_WAIT", "NCCL_BLOCKING_WAIT"] {
        if let Some((_, ev)) = env.get(key).filter(|(v, _)| *v == "1") {
            findings.push(
                Finding::new(
                    State::Info,
                    key,
                    format!("{key}=1: every collective blocks the host thread; jobs run slower"),
                )
                .evidence(ev)
                .action("unset it unless you are debugging a hang"),
            );
        }
    }
    if let Some((_, ev)) = env.get("TORCH_NCCL_ENABLE_MONITORING").filter(|(v, _)| *v == "0") {
        findings.push(
            Finding::new(
                State::Info,
                "TORCH_NCCL_ENABLE_MONITORING",
                "the NCCL heartbeat monitor is off: a stuck watchdog is never noticed",
            )
            .evidence(ev)
            .action(
                "leave the monitor on, and raise TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC if it kills healthy jobs",
            ),
        );
    }
    if let Some((v, ev)) = env.get("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC")
        && v.parse::<u64>().is_ok_and(|s| s < 600)
    {
        findings.push(
            Finding::new(
                State::Info,
                "TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC",
                format!("the heartbeat timeout is {v} s: slow but healthy steps can be killed"),
            )
            .evidence(ev)
            .action("set it well above your longest step or checkpoint save"),
        );
    }
    if env.get("TORCH_NCCL_TRACE_BUFFER_SIZE").is_none_or(|(v, _)| v == "0") && gpu_job {
        findings.push(
            Finding::new(State::Info, "TORCH_NCCL_TRACE_BUFFER_SIZE", "the NCCL flight recorder is off: a hang leaves no record of which collective each rank was in")
                .evidence(env.unset("TORCH_NCCL_TRACE_BUFFER_SIZE"))
                .action("set TORCH_NCCL_TRACE_BUFFER_SIZE (e.g. 2000) and TORCH_NCCL_DUMP_ON_TIMEOUT=1 in the job"),
        );
    }
    findings
}

/// Debugging and workaround variables left set. `ipc_restricted`: whether processes cannot
/// take each other's file descriptors (ptrace restricted, or a container without `SYS_PTRACE`).
pub fn hazards(env: &dyn EnvSource, ipc_restricted: bool) -> Vec<Finding> {
    let mut findings = Vec::new();
    if let Some((_, ev)) = env.get("CUDA_LAUNCH_BLOCKING").filter(|(v, _)| *v == "1") {
        findings.push(
            Finding::new(
                State::Warn,
                "CUDA_LAUNCH_BLOCKING",
                "CUDA_LAUNCH_BLOCKING=1 is set: it serialises kernels and has made NCCL jobs hang",
            )
            .evidence(ev)
            .action("unset it outside a debugging session"),
        );
    }
    for key in ["NCCL_P2P_DISABLE", "NCCL_SHM_DISABLE", "NCCL_IB_DISABLE"] {
        if let Some((_, ev)) = env.get(key).filter(|(v, _)| *v == "1") {
            findings.push(
                Finding::new(State::Info, key, format!("{key}=1 is set: a workaround that costs bandwidth, often left after the cause was fixed"))
                    .evidence(ev)
                    .action(format!("unset {key} and check the job still runs")),
            );
        }
    }
    if let Some((_, ev)) =
        env.get("PYTORCH_CUDA_ALLOC_CONF").filter(|(v, _)| v.contains("expandable_segments:True"))
        && ipc_restricted
    {
        findings.push(
            Finding::new(State::Info, "PYTORCH_CUDA_ALLOC_CONF", "expandable segments with ptrace restricted: sharing CUDA memory between processes can fail (pidfd_getfd not permitted)")
                .evidence(ev)
                .action("turn expandable segments off for jobs that share CUDA tensors across processes"),
        );
    }
    findings
}

/// The forms of `GLOO_SOCKET_IFNAME` and `NCCL_SOCKET_IFNAME`; against `interfaces` too, when
/// they are known (empty: not known, as in a job's files).
pub fn socket_forms(env: &dyn EnvSource, interfaces: &[String]) -> Vec<Finding> {
    let is_ip = |s: &str| s.parse::<std::net::IpAddr>().is_ok();
    let mut findings = Vec::new();
    if let Some((g, ev)) = env.get("GLOO_SOCKET_IFNAME") {
        if g.starts_with('^') || g.contains(',') {
            findings.push(Finding::new(State::Crit, "GLOO_SOCKET_IFNAME", format!("GLOO_SOCKET_IFNAME={g}: Gloo takes one interface name, not NCCL's list or exclusion syntax")).evidence(ev).action("set GLOO_SOCKET_IFNAME to one interface name (e.g. eth0)"));
        } else if is_ip(g) {
            findings.push(
                Finding::new(
                    State::Crit,
                    "GLOO_SOCKET_IFNAME",
                    format!("GLOO_SOCKET_IFNAME={g} is an address, not an interface name"),
                )
                .evidence(ev)
                .action("set it to the interface that carries that address"),
            );
        } else if !interfaces.is_empty() && !interfaces.iter().any(|n| n == g) {
            findings.push(
                Finding::new(
                    State::Crit,
                    "GLOO_SOCKET_IFNAME",
                    format!("GLOO_SOCKET_IFNAME={g}, but this node has no interface {g}"),
                )
                .evidence(ev)
                .action(format!("use one of: {}", interfaces.join(", "))),
            );
        }
    }
    if let Some((n, ev)) = env.get("NCCL_SOCKET_IFNAME") {
        let (exclude, list) = match n.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, n),
        };
        let names: Vec<&str> =
            list.split(',').map(|s| s.trim_start_matches('=')).filter(|s| !s.is_empty()).collect();
        if names.iter().any(|s| is_ip(s)) {
            findings.push(
                Finding::new(
                    State::Crit,
                    "NCCL_SOCKET_IFNAME",
                    format!("NCCL_SOCKET_IFNAME={n} holds an address, not an interface name"),
                )
                .evidence(ev.clone())
                .action("set it to the interface (prefix) that carries that address"),
            );
        } else if exclude && !names.contains(&"lo") {
            findings.push(
                Finding::new(
                    State::Warn,
                    "NCCL_SOCKET_IFNAME",
                    format!(
                        "NCCL_SOCKET_IFNAME={n} excludes interfaces but not lo: NCCL may pick the loopback"
                    ),
                )
                .evidence(ev.clone())
                .action(format!("write NCCL_SOCKET_IFNAME=^{list},lo, or name the interface to use")),
            );
        } else if !exclude
            && !interfaces.is_empty()
            && !names.iter().any(|p| interfaces.iter().any(|i| i.starts_with(p)))
        {
            findings.push(
                Finding::new(
                    State::Crit,
                    "NCCL_SOCKET_IFNAME",
                    format!("NCCL_SOCKET_IFNAME={n} matches no interface of this node"),
                )
                .evidence(ev)
                .action(format!("use one of: {}", interfaces.join(", "))),
            );
        }
    }
    findings
}
