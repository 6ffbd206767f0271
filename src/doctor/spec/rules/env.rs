//! What a job's environment sets: the hazards the node audit checks in the environment (the same
//! functions, [`crate::doctor::environment`]), library paths that shadow a framework's own
//! libraries, caches on shared filesystems, and memory left to NCCL by frameworks that take the
//! GPU's memory up front.

use super::{
    Input, Rule,
    pod::{is_container, torch_gpu_job},
};
use crate::doctor::{
    environment,
    finding::{Finding, Outcome, State},
    spec::job::{Backing, Setting, Unit},
};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "torch.nccl.env",
        title: "PyTorch's NCCL error handling and watchdog are not turned off",
        assumes: None,
        run: torch_nccl,
    },
    Rule {
        id: "env.hazards",
        title: "no debugging or workaround variable is set for every run",
        assumes: None,
        run: hazards,
    },
    Rule {
        id: "socket.ifname",
        title: "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME are in forms each accepts",
        assumes: None,
        run: ifname,
    },
    Rule {
        id: "ld.path.shadow",
        title: "LD_LIBRARY_PATH does not put the cluster's CUDA libraries ahead of the framework's own",
        assumes: None,
        run: ld_path,
    },
    Rule {
        id: "cuda.compat.shadow",
        title: "LD_LIBRARY_PATH does not put CUDA forward-compatibility libraries ahead of the driver's",
        assumes: None,
        run: compat,
    },
    Rule {
        id: "cache.on.netfs",
        title: "compiler and model caches are not on a shared network filesystem",
        assumes: Some(
            "paths under /home, /nfs, /lustre, /gpfs, /fsx, /shared, /scratch, /weka and /efs are shared filesystems, and so is an NFS volume or a PersistentVolumeClaim a pod mounts",
        ),
        run: caches,
    },
    Rule {
        id: "hf.cache.race",
        title: "replicas that share one Hugging Face cache do not download into it at once",
        assumes: None,
        run: hf_race,
    },
    Rule {
        id: "jax.preallocate",
        title: "JAX leaves GPU memory for NCCL",
        assumes: Some("a memory fraction of 0.9 or more leaves NCCL too little, as in the cases"),
        run: jax,
    },
    Rule {
        id: "nccl.nvls.memory",
        title: "NVLink SHARP is off where a framework takes nearly all GPU memory",
        assumes: Some("the job runs on NVSwitch systems, where NCCL sets NVLS up"),
        run: nvls,
    },
    Rule {
        id: "nccl.ib.gid.index",
        title: "a job that picks its RDMA devices also picks a routable RoCE GID index",
        assumes: Some("the fabric is RoCE; on InfiniBand the GID index does not matter"),
        run: gid,
    },
];

fn units<'a>(i: &'a Input<'_>) -> impl Iterator<Item = &'a Unit> + 'a {
    i.job.units.iter().filter(|u| !u.env.is_empty() || !u.commands.is_empty() || !u.images.is_empty())
}

fn no_units(i: &Input<'_>) -> Option<Outcome> {
    units(i).next().is_none().then(|| Outcome::na("this file sets no environment and runs nothing"))
}

fn torch_nccl(i: &Input<'_>) -> Outcome {
    if let Some(na) = no_units(i) {
        return na;
    }
    let findings = units(i).flat_map(|u| environment::torch_nccl(&i.env(u), torch_gpu_job(u))).collect();
    Outcome::found(findings, "PyTorch's NCCL error handling is left on")
}

fn hazards(i: &Input<'_>) -> Outcome {
    if let Some(na) = no_units(i) {
        return na;
    }
    // A container not given SYS_PTRACE (or privileged) cannot take another process's descriptors.
    let findings = units(i)
        .flat_map(|u| environment::hazards(&i.env(u), is_container(u) && !u.ptrace_allowed))
        .collect();
    Outcome::found(findings, "no leftover debugging or workaround variable")
}

fn ifname(i: &Input<'_>) -> Outcome {
    if let Some(na) = no_units(i) {
        return na;
    }
    let findings = units(i).flat_map(|u| environment::socket_forms(&i.env(u), &[])).collect();
    Outcome::found(findings, "the socket interface variables are in accepted forms")
}

fn ld_entries(u: &Unit) -> Option<(&Setting, Vec<&str>)> {
    let s = u.var("LD_LIBRARY_PATH")?;
    Some((s, s.value.split(':').filter(|p| !p.is_empty()).collect()))
}

fn ld_path(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    for u in units(i) {
        let Some((s, entries)) = ld_entries(u) else { continue };
        let shadowing: Vec<&str> = entries
            .iter()
            .copied()
            .filter(|p| !p.contains("compat"))
            .filter(|p| {
                ["cuda", "cudnn", "nccl", "cublas"].iter().any(|k| p.to_ascii_lowercase().contains(k))
            })
            .collect();
        if !shadowing.is_empty() {
            findings.push(
                Finding::new(State::Info, "LD_LIBRARY_PATH", format!("LD_LIBRARY_PATH puts {} first: a pip-installed PyTorch brings its own CUDA, cuDNN, cuBLAS and NCCL, and the cases loaded the cluster's instead", shadowing.join(", ")))
                    .evidence(i.evidence(&s.loc, &s.text))
                    .action("leave CUDA library directories out of LD_LIBRARY_PATH for jobs that run pip wheels"),
            );
        }
    }
    Outcome::found(findings, "LD_LIBRARY_PATH names no CUDA library directory")
}

fn compat(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    for u in units(i) {
        let Some((s, entries)) = ld_entries(u) else { continue };
        if let Some(p) = entries.iter().find(|p| p.contains("cuda") && p.contains("compat")) {
            findings.push(
                Finding::new(State::Warn, "LD_LIBRARY_PATH", format!("LD_LIBRARY_PATH puts the CUDA forward-compatibility libraries ({p}) ahead of the driver's: on a newer driver CUDA then fails to start (error 803 or 804 in the cases)"))
                    .evidence(i.evidence(&s.loc, &s.text))
                    .action("drop the compat directory from LD_LIBRARY_PATH unless the node's driver is older than the image's CUDA"),
            );
        }
    }
    Outcome::found(findings, "LD_LIBRARY_PATH names no CUDA compat directory")
}

/// The cache variables the cases found on shared filesystems.
const CACHE_VARS: &[&str] = &[
    "TRITON_CACHE_DIR",
    "TORCHINDUCTOR_CACHE_DIR",
    "HF_HOME",
    "HF_HUB_CACHE",
    "HF_DATASETS_CACHE",
    "TRANSFORMERS_CACHE",
    "XDG_CACHE_HOME",
];

const SHARED_PREFIXES: &[&str] =
    &["/home/", "$HOME", "~/", "/nfs", "/lustre", "/gpfs", "/fsx", "/shared", "/scratch", "/weka", "/efs"];

/// Why `path` is on a shared filesystem, if it is: the mount that holds it, or its prefix.
fn shared(u: &Unit, path: &str) -> Option<String> {
    let mount = u
        .mounts
        .iter()
        .filter(|m| path == m.path || path.starts_with(&format!("{}/", m.path.trim_end_matches('/'))))
        .max_by_key(|m| m.path.len());
    if let Some(m) = mount {
        return match &m.backing {
            Backing::Nfs => Some(format!("an NFS volume mounted at {}", m.path)),
            Backing::Claim(c) => Some(format!("the PersistentVolumeClaim {c} mounted at {}", m.path)),
            _ => None,
        };
    }
    SHARED_PREFIXES
        .iter()
        .find(|p| path.starts_with(**p))
        .map(|p| format!("{} (a shared filesystem)", p.trim_end_matches('/')))
}

fn caches(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    for u in units(i) {
        for key in CACHE_VARS {
            let Some(s) = u.var(key) else { continue };
            let Some(why) = shared(u, &s.value) else { continue };
            // A Hugging Face cache read offline takes no lock and downloads nothing.
            let offline = u.var("HF_HUB_OFFLINE").is_some_and(|o| o.value == "1");
            if offline && key.starts_with("HF_") {
                continue;
            }
            findings.push(
                Finding::new(State::Warn, *key, format!("{key} is on {why}: {}", if key.starts_with("HF_") || *key == "TRANSFORMERS_CACHE" {
                    "on network filesystems the cases saw Hugging Face lock files block workers and a cache refresh break the servers reading it"
                } else {
                    "on network filesystems the cases saw Triton caches hang at exit or fail with stale file handles"
                }))
                    .evidence(i.evidence(&s.loc, &s.text))
                    .action(format!("point {key} at node-local disk (e.g. /tmp or a local NVMe path)")),
            );
        }
    }
    Outcome::found(findings, "no cache variable points at a shared filesystem")
}

fn hf_race(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut any = false;
    for u in units(i).filter(|u| u.replicas.is_some_and(|r| r > 1)) {
        any = true;
        let Some(s) = ["HF_HOME", "HF_HUB_CACHE"].iter().find_map(|k| u.var(k)) else { continue };
        let Some(why) = shared(u, &s.value) else { continue };
        if u.var("HF_HUB_OFFLINE").is_some_and(|o| o.value == "1") {
            continue;
        }
        findings.push(
            Finding::new(State::Warn, &u.name, format!("{} replicas share one Hugging Face cache ({why}) and may download into it at once: in the case, a cache refresh made servers fail with 'Unrecognized model ... Should have a model_type key'", u.replicas.unwrap_or(2)))
                .evidence(i.evidence(&s.loc, &s.text))
                .action("download the model once (an init job), then run the replicas with HF_HUB_OFFLINE=1"),
        );
    }
    if !any {
        return Outcome::na("no workload with more than one replica in this file");
    }
    Outcome::found(findings, "replicas do not download into a shared cache at once")
}

fn fraction(u: &Unit) -> Option<(&Setting, f64)> {
    let s = u.var("XLA_PYTHON_CLIENT_MEM_FRACTION")?;
    Some((s, s.value.trim().parse().ok()?))
}

fn jax(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut any = false;
    for u in units(i) {
        let Some((s, f)) = fraction(u) else { continue };
        any = true;
        if f >= 0.9 && u.var("XLA_PYTHON_CLIENT_PREALLOCATE").is_none_or(|p| p.value != "false") {
            findings.push(
                Finding::new(State::Warn, "XLA_PYTHON_CLIENT_MEM_FRACTION", format!("JAX takes {f} of each GPU's memory up front: in the cases NCCL then had no room and failed ('unhandled system error', out of memory at communicator set-up)"))
                    .evidence(i.evidence(&s.loc, &s.text))
                    .action("lower XLA_PYTHON_CLIENT_MEM_FRACTION (e.g. 0.8) or set NCCL_NVLS_ENABLE=0"),
            );
        }
    }
    if !any {
        return Outcome::na("no JAX memory fraction set in this file");
    }
    Outcome::found(findings, "JAX leaves memory for NCCL")
}

fn nvls(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    for u in units(i).filter(|u| u.gpus.is_some() || fraction(u).is_some()) {
        if u.var("NCCL_NVLS_ENABLE").is_some_and(|v| v.value == "0") {
            continue;
        }
        let vllm = u.commands.iter().find_map(|c| {
            let v: f64 = c.option("--gpu-memory-utilization")?.parse().ok()?;
            (v >= 0.95).then_some((c, v))
        });
        let (loc, text, what) = if let Some((s, f)) = fraction(u).filter(|(_, f)| *f >= 0.9) {
            (&s.loc, &s.text, format!("JAX takes {f} of GPU memory"))
        } else if let Some((c, v)) = vllm {
            (&c.loc, &c.text, format!("vLLM takes {v} of GPU memory"))
        } else {
            continue;
        };
        findings.push(
            Finding::new(State::Info, &u.name, format!("{what} and NVLink SHARP is not turned off: NVLS communicator set-up takes GPU memory of its own, enough to cause OOMs in the case"))
                .evidence(i.evidence(loc, text))
                .action("set NCCL_NVLS_ENABLE=0 (NVIDIA's JAX containers did), or leave more memory free"),
        );
    }
    Outcome::found(findings, "no framework takes nearly all GPU memory with NVLS on")
}

fn gid(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut any = false;
    for u in units(i) {
        let Some(hca) = u.var("NCCL_IB_HCA") else { continue };
        any = true;
        if u.var("NCCL_IB_GID_INDEX").is_none() {
            findings.push(
                Finding::new(State::Info, "NCCL_IB_GID_INDEX", "the job picks its RDMA devices (NCCL_IB_HCA) but not a GID index: on RoCE, NCCL's default GID may not be routable across switches, and the cases failed at start until NCCL_IB_GID_INDEX=3")
                    .evidence(i.evidence(&hca.loc, &hca.text))
                    .action("on RoCE, set NCCL_IB_GID_INDEX to the fabric's routable (RoCE v2) GID; `show_gids` on a node lists them"),
            );
        }
    }
    if !any {
        return Outcome::na("the job does not pick RDMA devices (no NCCL_IB_HCA)");
    }
    Outcome::found(findings, "a GID index is set with the RDMA devices")
}
