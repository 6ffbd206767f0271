//! How a Slurm job ends when something fails: whether the step is killed when one task dies,
//! how long the rest wait, which signal it is warned with before preemption, where a requeued
//! job lands; and the container plumbing of pyxis/enroot and Apptainer.

use super::{Input, Rule};
use crate::doctor::{
    finding::{Finding, Outcome, State},
    spec::job::{Command, Job, Loc, Unit},
};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "slurm.kill.on.bad.exit",
        title: "a multi-task srun step ends when one of its tasks fails",
        assumes: Some(
            "the cluster's slurm.conf does not set KillOnBadExit=1; if it does, the option is already the default",
        ),
        run: kill_on_bad_exit,
    },
    Rule {
        id: "slurm.wait",
        title: "a multi-task srun step does not wait for ever after its first task ends",
        assumes: Some("the cluster keeps Slurm's default WaitTime=0 (no limit)"),
        run: wait,
    },
    Rule {
        id: "slurm.signal",
        title: "the job is warned before it is killed, with a signal nothing else in it takes",
        assumes: None,
        run: signal,
    },
    Rule {
        id: "slurm.requeue",
        title: "a job that requeues itself does not land on the node that failed",
        assumes: None,
        run: requeue,
    },
    Rule {
        id: "slurm.gpus.per.task",
        title: "--gpus-per-task is not combined with pyxis containers that restrict devices",
        assumes: None,
        run: gpus_per_task,
    },
    Rule {
        id: "tmpfs.staging",
        title: "container images are pulled and unpacked outside small tmpfs mounts",
        assumes: None,
        run: staging,
    },
];

fn script(job: &Job) -> Option<&Unit> {
    job.units.first().filter(|_| job.is_slurm())
}

fn srun_steps(u: &Unit) -> impl Iterator<Item = &Command> {
    u.commands.iter().filter(|c| c.program() == "srun")
}

/// How many tasks a step runs, as far as the script says: its own options, then `#SBATCH`.
fn tasks(job: &Job, step: &Command) -> u64 {
    let num = |v: Option<&str>| v.and_then(|v| v.split(['-', ':']).next_back()?.parse::<u64>().ok());
    let sb = |long: &str, short: Option<&str>| num(job.sbatch(long, short).and_then(|d| d.value.as_deref()));
    let nodes = num(step.option("--nodes").or(step.option("-N"))).or(sb("--nodes", Some("-N"))).unwrap_or(1);
    let ntasks = num(step.option("--ntasks").or(step.option("-n"))).or(sb("--ntasks", Some("-n")));
    let per_node = num(step.option("--ntasks-per-node")).or(sb("--ntasks-per-node", None));
    ntasks.unwrap_or(nodes * per_node.unwrap_or(1))
}

fn exported(u: &Unit, key: &str) -> Option<String> {
    u.var(key).map(|s| s.value.clone())
}

fn kill_on_bad_exit(i: &Input<'_>) -> Outcome {
    let Some(u) = script(i.job) else { return Outcome::na("not a Slurm job") };
    let steps: Vec<&Command> = srun_steps(u).filter(|c| tasks(i.job, c) > 1).collect();
    if steps.is_empty() {
        return Outcome::na("no srun step with more than one task");
    }
    if exported(u, "SLURM_KILL_BAD_EXIT").is_some_and(|v| v == "1") {
        return Outcome::pass("SLURM_KILL_BAD_EXIT=1 is exported");
    }
    let findings = steps
        .into_iter()
        .filter(|c| {
            let k = c.option("--kill-on-bad-exit");
            !(c.words.iter().any(|w| w == "-K" || w == "-K1" || w == "--kill-on-bad-exit") && k.is_none_or(|v| v != "0"))
                && k.is_none_or(|v| v == "0")
        })
        .map(|c| {
            Finding::new(State::Warn, "srun", format!("a step of {} tasks without --kill-on-bad-exit: when one task dies the others stay in their collectives and the job hangs until its time limit, as in the cases", tasks(i.job, c)))
                .evidence(i.evidence(&c.loc, &c.text))
                .action("add --kill-on-bad-exit=1 to the srun (and --wait=60), so the step ends once a task fails")
        })
        .collect();
    Outcome::found(findings, "every multi-task step is killed when a task fails")
}

fn wait(i: &Input<'_>) -> Outcome {
    let Some(u) = script(i.job) else { return Outcome::na("not a Slurm job") };
    let steps: Vec<&Command> = srun_steps(u).filter(|c| tasks(i.job, c) > 1).collect();
    if steps.is_empty() {
        return Outcome::na("no srun step with more than one task");
    }
    let findings = steps
        .into_iter()
        .filter(|c| c.option("--wait").or(c.option("-W")).is_none_or(|v| v == "0"))
        .map(|c| {
            Finding::new(State::Info, "srun", "no --wait: once the first task ends, the others run on for the cluster's WaitTime, which by default has no limit")
                .evidence(i.evidence(&c.loc, &c.text))
                .action("add --wait=60 (the BLOOM case's value) so a step whose task ended is torn down")
        })
        .collect();
    Outcome::found(findings, "every multi-task step has a --wait")
}

/// The job's warning signal: `#SBATCH --signal`, or an srun's.
fn warning_signal(job: &Job, u: &Unit) -> Option<(String, Loc, String)> {
    if let Some(d) = job.sbatch("--signal", None) {
        return Some((d.value.clone().unwrap_or_default(), d.loc.clone(), d.text.clone()));
    }
    srun_steps(u).find_map(|c| Some((c.option("--signal")?.to_string(), c.loc.clone(), c.text.clone())))
}

fn signal(i: &Input<'_>) -> Outcome {
    let Some(u) = script(i.job) else { return Outcome::na("not a Slurm job") };
    let mut findings = Vec::new();
    let gpu_job =
        u.gpus.is_some() || u.commands.iter().any(|c| c.runs("torchrun") || c.runs("torch.distributed.run"));
    match warning_signal(i.job, u) {
        Some((value, loc, text)) => {
            let name = value.trim_start_matches("B:").trim_start_matches("R:");
            let name = name.split('@').next().unwrap_or("");
            if gpu_job && (name == "USR1" || name == "SIGUSR1" || name == "10") {
                findings.push(
                    Finding::new(State::Warn, "--signal", "the warning signal is SIGUSR1: some NCCL releases caught SIGUSR1 themselves, so the job's checkpoint-and-requeue handler never ran")
                        .evidence(i.evidence(&loc, &text))
                        .action("warn with another signal (submitit moved to USR2, then SIGHUP), or make sure NCCL_PROXY_DUMP_SIGNAL is not set"),
                );
            }
        }
        None => {
            let requeues = i.job.sbatch("--requeue", None).is_some()
                || u.commands
                    .iter()
                    .any(|c| c.program() == "scontrol" && c.words.iter().any(|w| w == "requeue"));
            let traps = u.commands.iter().find(|c| c.program() == "trap");
            if let Some(c) = traps.filter(|_| true) {
                findings.push(
                    Finding::new(State::Warn, "--signal", "the script traps a signal but asks Slurm for none: at the time limit or on preemption the job gets SIGTERM only moments before SIGKILL, and the save does not run")
                        .evidence(i.evidence(&c.loc, &c.text))
                        .action("add #SBATCH --signal=B:USR2@300 (time to save before the end) and trap that signal"),
                );
            } else if requeues {
                let d = i.job.sbatch("--requeue", None);
                let (loc, text) =
                    d.map_or((u.loc.clone(), u.text.clone()), |d| (d.loc.clone(), d.text.clone()));
                findings.push(
                    Finding::new(State::Info, "--signal", "the job requeues but asks for no warning signal: it cannot save before it is stopped")
                        .evidence(i.evidence(&loc, &text))
                        .action("add #SBATCH --signal=B:USR2@300 and save a checkpoint when it arrives"),
                );
            }
        }
    }
    Outcome::found(findings, "the job's warning signal is its own")
}

fn requeue(i: &Input<'_>) -> Outcome {
    let Some(u) = script(i.job) else { return Outcome::na("not a Slurm job") };
    let scontrol =
        u.commands.iter().find(|c| c.program() == "scontrol" && c.words.iter().any(|w| w == "requeue"));
    let directive = i.job.sbatch("--requeue", None).map(|d| (d.loc.clone(), d.text.clone()));
    let Some((loc, text)) = directive.or_else(|| scontrol.map(|c| (c.loc.clone(), c.text.clone()))) else {
        return Outcome::na("the job does not requeue itself");
    };
    let avoids = i.job.sbatch("--exclude", Some("-x")).is_some()
        || u.commands.iter().any(|c| {
            (c.program() == "scontrol" && c.words.iter().any(|w| w.to_ascii_lowercase().contains("drain")))
                || c.has("--exclude")
        });
    if avoids {
        return Outcome::pass("the job excludes or drains nodes when it requeues");
    }
    Outcome::found(
        vec![Finding::new(State::Info, "requeue", "the job requeues itself with no step that keeps it off the node that failed: in the case, the next run landed on the same faulty GPU node and crashed again")
            .evidence(i.evidence(&loc, &text))
            .action("before requeueing, drain the failed node (scontrol update nodename=... state=drain) or requeue with --exclude")],
        "",
    )
}

fn gpus_per_task(i: &Input<'_>) -> Outcome {
    let Some(u) = script(i.job) else { return Outcome::na("not a Slurm job") };
    let per_task =
        i.job.sbatch("--gpus-per-task", None).map(|d| (d.loc.clone(), d.text.clone())).or_else(|| {
            srun_steps(u)
                .find(|c| c.option("--gpus-per-task").is_some())
                .map(|c| (c.loc.clone(), c.text.clone()))
        });
    let Some((loc, text)) = per_task else { return Outcome::na("no --gpus-per-task") };
    let pyxis = srun_steps(u).find(|c| c.option("--container-image").is_some());
    let Some(step) = pyxis else { return Outcome::pass("--gpus-per-task without pyxis containers") };
    if u.var("ENROOT_RESTRICT_DEV").is_some_and(|v| v.value == "n" || v.value == "no") {
        return Outcome::pass("ENROOT_RESTRICT_DEV=n is exported");
    }
    Outcome::found(
        vec![Finding::new(State::Warn, "--gpus-per-task", "--gpus-per-task with a pyxis container: enroot's device restriction left the tasks with no GPU in the case ('no CUDA-capable device is detected')")
            .evidence(i.evidence(&loc, &text))
            .evidence(i.evidence(&step.loc, &step.text))
            .action("export ENROOT_RESTRICT_DEV=n, or give each task all of a node's GPUs (--gpus-per-node)")],
        "",
    )
}

fn staging(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut any = false;
    for u in &i.job.units {
        for c in u.commands.iter().filter(|c| matches!(c.program(), "apptainer" | "singularity")) {
            if !c.words.get(1).is_some_and(|w| w == "pull" || w == "build") {
                continue;
            }
            any = true;
            let tmp = ["APPTAINER_TMPDIR", "SINGULARITY_TMPDIR"].iter().any(|k| u.var(k).is_some())
                || c.has("--tmpdir");
            if !tmp {
                findings.push(
                    Finding::new(State::Info, c.program(), "the image is built in the default temporary directory (/tmp), which is small on many nodes: the case ran out of space")
                        .evidence(i.evidence(&c.loc, &c.text))
                        .action("set APPTAINER_TMPDIR and APPTAINER_CACHEDIR to a filesystem with room (or pass --tmpdir)"),
                );
            }
        }
        for key in ["ENROOT_DATA_PATH", "ENROOT_CACHE_PATH", "ENROOT_TEMP_PATH"] {
            let Some(s) = u.var(key) else { continue };
            any = true;
            if s.value.starts_with("/run") || s.value.starts_with("/dev/shm") {
                findings.push(
                    Finding::new(
                        State::Info,
                        key,
                        format!(
                            "{key}={} is a tmpfs: large images unpacked there filled /run in the case",
                            s.value
                        ),
                    )
                    .evidence(i.evidence(&s.loc, &s.text))
                    .action(format!("point {key} at local disk with room for the image")),
                );
            }
        }
    }
    if !any {
        return Outcome::na("no image pull or enroot path in this file");
    }
    Outcome::found(findings, "images are staged outside small tmpfs mounts")
}
