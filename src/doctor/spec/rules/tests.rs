//! The rules on small job specs: each rule fires on the gap and stays quiet on the fix.

use crate::doctor::{Rules, Selection, State, spec::check_text};

fn states(path: &str, text: &str) -> Vec<(&'static str, State)> {
    let report = check_text(path, text, &Rules::bundled(), &Selection::default(), &[]);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    report.results.iter().map(|r| (r.id, r.state())).collect()
}

fn state_of(path: &str, text: &str, id: &str) -> State {
    states(path, text).into_iter().find(|(i, _)| *i == id).map(|(_, s)| s).expect("the rule ran")
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train\nspec:\n  containers:\n  - name: t\n    image: nvcr.io/nvidia/pytorch:24.03-py3\n    resources:\n      limits:\n        nvidia.com/gpu: 8\n";

#[test]
fn a_gpu_pod_without_a_memory_backed_dev_shm_is_a_warning_and_the_fix_passes() {
    assert_eq!(state_of("pod.yaml", POD, "shm.size"), State::Warn);
    let fixed = format!(
        "{POD}    volumeMounts:\n    - name: shm\n      mountPath: /dev/shm\n  volumes:\n  - name: shm\n    emptyDir:\n      medium: Memory\n      sizeLimit: 16Gi\n"
    );
    assert_eq!(state_of("pod.yaml", &fixed, "shm.size"), State::Pass);
    let small = fixed.replace("16Gi", "64Mi");
    assert_eq!(state_of("pod.yaml", &small, "shm.size"), State::Warn);
    assert_eq!(
        state_of("run", "docker run --gpus all --ipc=host img:1 python x.py\n", "shm.size"),
        State::Pass
    );
    assert_eq!(state_of("run", "docker run --gpus all img:1 python x.py\n", "shm.size"), State::Warn);
}

#[test]
fn gloo_exclusion_syntax_and_async_error_handling_off_are_found_in_scripts() {
    let s = "#!/bin/bash\n#SBATCH -N 2\nexport GLOO_SOCKET_IFNAME=^docker0\nexport TORCH_NCCL_ASYNC_ERROR_HANDLING=0\nsrun -K --wait=60 torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint node1:29500 --local-addr $(hostname) t.py\n";
    let got = states("train.sbatch", s);
    let get = |id: &str| got.iter().find(|(i, _)| *i == id).unwrap().1;
    assert_eq!(get("socket.ifname"), State::Crit);
    assert_eq!(get("torch.nccl.env"), State::Warn);
    assert_eq!(get("slurm.kill.on.bad.exit"), State::Pass);
    assert_eq!(get("slurm.wait"), State::Pass);
    assert_eq!(get("torchrun.rdzv"), State::Pass);
}

#[test]
fn slurm_steps_that_hang_after_a_task_dies_are_found() {
    let s = "#!/bin/bash\n#SBATCH --nodes=4\n#SBATCH --ntasks-per-node=8\nsrun python train.py\n";
    assert_eq!(state_of("t.sbatch", s, "slurm.kill.on.bad.exit"), State::Warn);
    assert_eq!(state_of("t.sbatch", s, "slurm.wait"), State::Info);
    let exported = s.replace("srun", "export SLURM_KILL_BAD_EXIT=1\nsrun");
    assert_eq!(state_of("t.sbatch", &exported, "slurm.kill.on.bad.exit"), State::Pass);
    let single = "#!/bin/bash\n#SBATCH -N 1\nsrun -n 1 python x.py\n";
    assert_eq!(state_of("t.sbatch", single, "slurm.kill.on.bad.exit"), State::NotApplicable);
}

#[test]
fn a_localhost_rendezvous_for_several_nodes_is_critical() {
    let s = "torchrun --nnodes=2 --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=localhost:29500 train.py\n";
    assert_eq!(state_of("cmd", s, "torchrun.rdzv"), State::Crit);
}

#[test]
fn versions_in_image_tags_meet_the_node_audits_version_rules() {
    let s = "docker run --gpus all --ipc=host pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime python x.py\n";
    assert_eq!(state_of("cmd", s, "pypkg.known.bad"), State::Info);
    let nccl = "#!/bin/sh\nexport NCCL_VERSION=2.19.3\npython x.py\n";
    assert_eq!(state_of("s.sh", nccl, "nccl.stack.version"), State::Warn);
    let disabled = nccl.replace("python", "export NCCL_CUMEM_ENABLE=0\npython");
    assert_eq!(state_of("s.sh", &disabled, "nccl.stack.version"), State::Pass);
}

#[test]
fn a_suppression_silences_one_rule_and_is_counted() {
    let text = format!("# incidex: ignore shm.size — the webhook mounts /dev/shm\n{POD}");
    let report = check_text("pod.yaml", &text, &Rules::bundled(), &Selection::default(), &[]);
    let r = report.results.iter().find(|r| r.id == "shm.size").unwrap();
    assert!(r.silenced());
    assert_eq!(r.state(), State::Pass);
    assert_eq!(r.suppressed.as_ref().unwrap().reason.as_deref(), Some("the webhook mounts /dev/shm"));
    let typo = check_text(
        "pod.yaml",
        &format!("# incidex: ignore shm.sise\n{POD}"),
        &Rules::bundled(),
        &Selection::default(),
        &[],
    );
    assert!(
        typo.problems.iter().any(|p| p.message.contains("did you mean `shm.size`")),
        "{:?}",
        typo.problems
    );
}

#[test]
fn model_servers_probes_and_training_pods_grace_periods() {
    let server = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: llm\nspec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.8.5\n        args: [\"--model\", \"m\"]\n        livenessProbe:\n          httpGet:\n            path: /health\n            port: 8000\n          periodSeconds: 10\n";
    assert_eq!(state_of("d.yaml", server, "k8s.probes"), State::Warn);
    assert_eq!(state_of("d.yaml", server, "vllm.max.model.len"), State::Info);
    assert_eq!(state_of("pod.yaml", POD, "k8s.grace.period"), State::Warn);
    let graced =
        POD.replace("spec:\n  containers:", "spec:\n  terminationGracePeriodSeconds: 600\n  containers:");
    assert_eq!(state_of("pod.yaml", &graced, "k8s.grace.period"), State::Pass);
}

#[test]
fn every_rule_cites_cases_in_the_rules_data() {
    let rules = Rules::bundled();
    for r in super::all() {
        assert!(!rules.cases_of(r.id).is_empty(), "{} cites no case", r.id);
    }
    assert!(super::all().len() >= 25, "{} rules", super::all().len());
}
