//! What a pod or a container is given: `/dev/shm`, the kubelet's topology policy against the
//! GPUs a pod asks for, and the memory of the GPU metrics exporter.

use super::{Input, Rule, bytes};
use crate::doctor::{
    finding::{Finding, Outcome, State},
    spec::job::{Backing, Unit},
};

/// Whether a unit serves a model (vLLM, SGLang, TGI, Triton, llama.cpp, Ollama...).
pub(super) fn serves_a_model(u: &Unit) -> bool {
    const SERVERS: &[&str] = &[
        "vllm",
        "sglang",
        "text-generation-inference",
        "tritonserver",
        "llama.cpp",
        "ollama",
        "tgi",
        "lmdeploy",
    ];
    u.images.iter().any(|im| SERVERS.iter().any(|s| im.value.contains(s)))
        || u.commands.iter().any(|c| {
            SERVERS.iter().any(|s| c.program().contains(s) || c.module().is_some_and(|m| m.contains(s)))
        })
}

/// Whether a unit runs PyTorch work on GPUs (a launcher or Python, or a PyTorch image), not a
/// model server.
pub(super) fn torch_gpu_job(u: &Unit) -> bool {
    const LAUNCHERS: &[&str] = &["torchrun", "deepspeed", "accelerate"];
    let launches = u.commands.iter().any(|c| {
        LAUNCHERS.contains(&c.program())
            || c.program().starts_with("python")
            || c.runs("torch.distributed.run")
    });
    let image = u
        .images
        .iter()
        .any(|im| ["pytorch", "torch", "nemo", "megatron"].iter().any(|k| im.value.contains(k)));
    u.gpus.is_some() && (launches || image) && !serves_a_model(u)
}

/// Whether a unit trains: a GPU container that is not a model server.
fn trains(u: &Unit) -> bool {
    u.loc.field.is_some() && u.gpus.is_some() && !serves_a_model(u)
}

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "shm.size",
        title: "GPU containers get a memory-backed /dev/shm of at least 1 GB (or the host's IPC namespace)",
        assumes: Some(
            "1 GB is the least a GPU job's /dev/shm should have: the cases failed at Docker's 64 MB default",
        ),
        run: shm,
    },
    Rule {
        id: "k8s.topology",
        title: "the kubelet's topology policy can place the GPUs a pod asks for",
        assumes: Some("an 8-GPU node spreads its GPUs over two NUMA nodes, as the case's did"),
        run: topology,
    },
    Rule {
        id: "k8s.dcgm.memory",
        title: "the DCGM exporter has memory to run on many-GPU nodes",
        assumes: Some(
            "512 MiB is the least the exporter needs on an 8-GPU node: the cases saw it OOM-killed at 250Mi",
        ),
        run: dcgm,
    },
    Rule {
        id: "k8s.probes",
        title: "a model server's probes give it time to download and load the model",
        assumes: Some(
            "a large model takes up to 10 minutes to be ready, the start-up window the KServe fix gave",
        ),
        run: probes,
    },
    Rule {
        id: "k8s.grace.period",
        title: "a training pod's grace period leaves time to save a checkpoint",
        assumes: Some(
            "a checkpoint save takes more than Kubernetes' default 30 s; 120 s is the least this rule accepts",
        ),
        run: grace,
    },
    Rule {
        id: "k8s.main.process",
        title: "the training process is the container's main process, so it gets the SIGTERM",
        assumes: None,
        run: main_process,
    },
];

/// Whether a unit is a container (a pod's, or `docker run`'s), not a script.
pub(super) fn is_container(u: &Unit) -> bool {
    !u.images.is_empty()
}

const SHM_FLOOR: u64 = 1_000_000_000;

fn shm(i: &Input<'_>) -> Outcome {
    let gpu_containers: Vec<&Unit> =
        i.job.units.iter().filter(|u| is_container(u) && u.gpus.is_some()).collect();
    if gpu_containers.is_empty() {
        return Outcome::na("no GPU container (a pod asking for GPUs, or docker run --gpus) in this file");
    }
    let mut findings = Vec::new();
    for u in &gpu_containers {
        if u.host_ipc {
            continue;
        }
        let docker = u.loc.field.is_none();
        match u.mounts.iter().find(|m| m.path.trim_end_matches('/') == "/dev/shm") {
            Some(m) => {
                let Backing::Memory(Some(size)) = &m.backing else { continue };
                if bytes(size).is_some_and(|b| b < SHM_FLOOR) {
                    findings.push(
                        Finding::new(State::Warn, &u.name, format!("/dev/shm is limited to {size}: DataLoader workers and NCCL's shared-memory transport need more"))
                            .evidence(i.evidence(&m.loc, &m.text))
                            .action(if docker { "raise --shm-size (e.g. 16g), or use --ipc=host" } else { "raise the emptyDir's sizeLimit (e.g. 16Gi)" }),
                    );
                }
            }
            None => {
                let (message, action) = if docker {
                    (
                        "no --shm-size and no --ipc=host: the container's /dev/shm is Docker's 64 MB default",
                        "add --ipc=host, or --shm-size=16g",
                    )
                } else {
                    (
                        "no memory-backed volume at /dev/shm: the container gets the runtime's 64 MB default",
                        "mount an emptyDir with medium: Memory at /dev/shm (or set hostIPC: true)",
                    )
                };
                let gpus = u.gpus.as_ref().expect("filtered on GPUs");
                findings.push(
                    Finding::new(State::Warn, &u.name, message)
                        .evidence(i.evidence(&u.loc, &u.text))
                        .evidence(i.evidence(&gpus.loc, &gpus.text))
                        .action(action),
                );
            }
        }
    }
    Outcome::found(
        findings,
        format!("{} GPU container(s) have a large enough /dev/shm", gpu_containers.len()),
    )
}

fn topology(i: &Input<'_>) -> Outcome {
    let policies: Vec<_> = i.job.kubelets.iter().filter_map(|k| k.topology_policy.as_ref()).collect();
    if policies.is_empty() {
        return Outcome::na("no KubeletConfiguration with a topologyManagerPolicy in this file");
    }
    let mut findings = Vec::new();
    for p in policies.iter().filter(|p| p.value == "single-numa-node") {
        let full: Vec<&Unit> =
            i.job.units.iter().filter(|u| u.gpus.as_ref().is_some_and(|g| g.value >= 8)).collect();
        let mut f = Finding::new(
            State::Warn,
            "topologyManagerPolicy",
            "single-numa-node cannot place a pod whose GPUs span NUMA nodes: a full-node (8-GPU) pod is rejected with TopologyAffinityError",
        )
        .evidence(i.evidence(&p.loc, &p.text))
        .action("run full-node GPU pods on nodes whose kubelet uses best-effort or restricted, or keep them in a pool of their own");
        for u in full {
            let g = u.gpus.as_ref().expect("filtered on GPUs");
            f = f.evidence(i.evidence(&g.loc, &g.text));
        }
        findings.push(f);
    }
    Outcome::found(findings, "the topology policy can place full-node GPU pods")
}

fn dcgm(i: &Input<'_>) -> Outcome {
    let exporters: Vec<&Unit> =
        i.job.units.iter().filter(|u| u.images.iter().any(|im| im.value.contains("dcgm-exporter"))).collect();
    if exporters.is_empty() {
        return Outcome::na("no dcgm-exporter container in this file");
    }
    let mut findings = Vec::new();
    for u in exporters {
        if let Some(m) = &u.memory_limit
            && bytes(&m.value).is_some_and(|b| b < 512 * 1024 * 1024)
        {
            findings.push(
                Finding::new(State::Warn, &u.name, format!("dcgm-exporter is limited to {} of memory: the cases saw it OOM-killed over and over on 8-GPU nodes, which blinds GPU monitoring", m.value))
                    .evidence(i.evidence(&m.loc, &m.text))
                    .action("raise the limit (the cases went to 512Mi and more), and pin GOMAXPROCS=2"),
            );
        }
        if u.var("GOMAXPROCS").is_none() && u.memory_limit.is_some() {
            findings.push(
                Finding::new(State::Info, &u.name, "GOMAXPROCS is not set: the exporter's Go runtime sizes itself to the node's cores, and one case stopped its OOM kills by pinning it")
                    .evidence(i.evidence(&u.loc, &u.text))
                    .action("set GOMAXPROCS=2 in the exporter's env"),
            );
        }
    }
    Outcome::found(findings, "dcgm-exporter has room")
}

/// The start-up window this rule accepts, in seconds.
const STARTUP: u64 = 600;

fn probes(i: &Input<'_>) -> Outcome {
    let servers: Vec<&Unit> =
        i.job.units.iter().filter(|u| u.loc.field.is_some() && serves_a_model(u)).collect();
    if servers.is_empty() {
        return Outcome::na("no model server container in this file");
    }
    let mut findings = Vec::new();
    for u in servers {
        if u.probes.iter().any(|p| p.kind == "startup") {
            continue;
        }
        for p in u.probes.iter().filter(|p| p.kind == "liveness" && p.window() < STARTUP) {
            findings.push(
                Finding::new(State::Warn, &u.name, format!("a liveness probe with no startup probe acts {} s after start: a large model still loading is restarted, over and over (CrashLoopBackOff in the cases)", p.window()))
                    .evidence(i.evidence(&p.loc, &p.text))
                    .action("add a startupProbe on the health endpoint (e.g. failureThreshold 60, periodSeconds 10) so liveness starts once the model is up"),
            );
        }
    }
    Outcome::found(findings, "model servers' probes wait for the model to load")
}

fn grace(i: &Input<'_>) -> Outcome {
    let training: Vec<&Unit> = i.job.units.iter().filter(|u| trains(u)).collect();
    if training.is_empty() {
        return Outcome::na("no training pod (a GPU container that is not a model server) in this file");
    }
    let mut findings = Vec::new();
    let mut seen = Vec::new();
    for u in training {
        let (seconds, loc, text) = match &u.grace {
            Some(g) => (g.value.parse::<u64>().ok(), g.loc.clone(), g.text.clone()),
            None => (Some(30), u.loc.clone(), format!("{} (no terminationGracePeriodSeconds: 30 s)", u.text)),
        };
        if seen.contains(&loc) {
            continue;
        }
        seen.push(loc.clone());
        if let Some(s) = seconds.filter(|s| *s < 120) {
            findings.push(
                Finding::new(State::Warn, &u.name, format!("the pod has {s} s between SIGTERM and SIGKILL: a checkpoint still being written then is cut off, and in the case the restarted job crashed on the corrupt checkpoint"))
                    .evidence(i.evidence(&loc, &text))
                    .action("set terminationGracePeriodSeconds above your longest checkpoint save, and write checkpoints to a temporary name renamed into place"),
            );
        }
    }
    Outcome::found(findings, "training pods have time to save")
}

fn main_process(i: &Input<'_>) -> Outcome {
    let training: Vec<&Unit> = i.job.units.iter().filter(|u| trains(u)).collect();
    if training.is_empty() {
        return Outcome::na("no training pod (a GPU container that is not a model server) in this file");
    }
    let findings = training
        .into_iter()
        .filter_map(|u| u.shell_main.as_ref().map(|s| (u, s)))
        .map(|(u, s)| {
            Finding::new(State::Warn, &u.name, "the container runs its training through a shell (`sh -c`) without `exec`: the shell is process 1, and in the case the trainer never got the SIGTERM, so no checkpoint was taken")
                .evidence(i.evidence(&s.loc, &s.text))
                .action("start the trainer with `exec` as the script's last command (or run it as the container's command)")
        })
        .collect();
    Outcome::found(findings, "the trainer is the container's main process")
}
