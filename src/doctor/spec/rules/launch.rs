//! How the job's processes are started: torchrun's rendezvous, the number of ranks that meet
//! at once, an inference server's context length, the images they run and the limits they get.

use super::{Input, Rule};
use crate::doctor::{
    finding::{Finding, Outcome, State},
    spec::job::{Command, Loc, Unit},
};

pub(super) const RULES: &[Rule] = &[
    Rule {
        id: "torchrun.rdzv",
        title: "a multi-node torchrun meets at an address every node can reach",
        assumes: None,
        run: rdzv,
    },
    Rule {
        id: "listen.backlog",
        title: "the ranks that meet at once fit the rendezvous host's listen backlog",
        assumes: Some("net.core.somaxconn is 4096, the default of Linux 5.4 and later (128 before)"),
        run: backlog,
    },
    Rule {
        id: "vllm.max.model.len",
        title: "a vLLM server names the context length its KV cache must hold",
        assumes: None,
        run: max_model_len,
    },
    Rule {
        id: "image.unpinned",
        title: "images are pinned to a version or digest, not `latest`",
        assumes: None,
        run: unpinned,
    },
    Rule {
        id: "ulimit.memlock",
        title: "RDMA jobs may lock the memory they register",
        assumes: None,
        run: memlock,
    },
    Rule {
        id: "ulimit.nofile",
        title: "the open-file limit leaves room for DataLoader workers' shared memory",
        assumes: Some("4096 open files is the least a job with DataLoader workers should have"),
        run: nofile,
    },
];

fn launches<'a>(i: &'a Input<'_>) -> impl Iterator<Item = &'a Command> {
    i.job.units.iter().flat_map(|u| u.commands.iter())
}

fn torchruns<'a>(i: &'a Input<'_>) -> impl Iterator<Item = &'a Command> {
    launches(i).filter(|c| c.runs("torchrun") || c.runs("torch.distributed.run"))
}

/// `--name` or its underscore spelling (`--rdzv_endpoint`).
fn opt<'a>(c: &'a Command, name: &str) -> Option<&'a str> {
    c.option(name).or_else(|| c.option(&name.replace('-', "_").replacen("__", "--", 1)))
}

/// The most nodes a torchrun may have (`--nnodes 4`, `--nnodes 2:8`).
fn nnodes(c: &Command) -> u64 {
    opt(c, "--nnodes").and_then(|v| v.rsplit(':').next()?.parse().ok()).unwrap_or(1)
}

fn rdzv(i: &Input<'_>) -> Outcome {
    let multi: Vec<&Command> = torchruns(i).filter(|c| nnodes(c) > 1).collect();
    if multi.is_empty() {
        return Outcome::na("no multi-node torchrun in this file");
    }
    let mut findings = Vec::new();
    for c in multi {
        let endpoint = opt(c, "--rdzv-endpoint").or_else(|| opt(c, "--master-addr"));
        let host = endpoint.map(|e| e.rsplit_once(':').map_or(e, |(h, _)| h).trim_matches(['[', ']']));
        if host.is_some_and(|h| matches!(h, "localhost" | "127.0.0.1" | "::1" | "0.0.0.0")) {
            findings.push(
                Finding::new(State::Crit, "torchrun", format!("a {}-node torchrun meets at {}: every node meets itself and forms a world of one, as in the case", nnodes(c), endpoint.unwrap_or("")))
                    .evidence(i.evidence(&c.loc, &c.text))
                    .action("set --rdzv-endpoint to the first node's host name (e.g. from scontrol show hostnames), and fail the launch if it cannot be found"),
            );
        } else if endpoint.is_some()
            && opt(c, "--local-addr").is_none()
            && opt(c, "--rdzv-backend").is_none_or(|b| b == "c10d")
        {
            findings.push(
                Finding::new(State::Info, "torchrun", "c10d rendezvous with no --local-addr: each node advertises its getfqdn() name, and where peers could not resolve it the rendezvous hung")
                    .evidence(i.evidence(&c.loc, &c.text))
                    .action("make sure node names resolve between nodes, or pass --local-addr with an address peers can reach"),
            );
        }
    }
    Outcome::found(findings, "multi-node torchruns meet at a reachable address")
}

fn backlog(i: &Input<'_>) -> Outcome {
    let sizes: Vec<(u64, &Command)> = torchruns(i)
        .filter_map(|c| {
            let per: u64 = opt(c, "--nproc-per-node")?.parse().ok()?;
            Some((per * nnodes(c), c))
        })
        .collect();
    let Some((ranks, c)) = sizes.into_iter().max_by_key(|(n, _)| *n) else {
        return Outcome::na("no torchrun with --nproc-per-node in this file");
    };
    if ranks < 4096 {
        return Outcome::pass(format!("{ranks} ranks"));
    }
    Outcome::found(
        vec![Finding::new(State::Info, "torchrun", format!("{ranks} ranks connect to the rendezvous store at once: past the listen backlog (net.core.somaxconn) connections are reset, as in the cases at thousands of ranks"))
            .evidence(i.evidence(&c.loc, &c.text))
            .action("run `incidex doctor --only listen.backlog` with WORLD_SIZE set on the rank-0 host, and raise net.core.somaxconn there")],
        "",
    )
}

fn vllm_servers<'a>(i: &'a Input<'_>) -> Vec<(&'a Unit, &'a Command)> {
    let mut out = Vec::new();
    for u in &i.job.units {
        let image = u.images.iter().any(|im| im.value.contains("vllm"));
        for c in &u.commands {
            let serve = (c.program() == "vllm" && c.words.get(1).is_some_and(|w| w == "serve"))
                || c.module().is_some_and(|m| m.starts_with("vllm.entrypoints"))
                || (image && c.option("--model").is_some());
            if serve {
                out.push((u, c));
            }
        }
    }
    out
}

fn max_model_len(i: &Input<'_>) -> Outcome {
    let servers = vllm_servers(i);
    if servers.is_empty() {
        return Outcome::na("no vLLM server in this file");
    }
    let findings = servers
        .into_iter()
        .filter(|(_, c)| opt(c, "--max-model-len").is_none())
        .map(|(u, c)| {
            Finding::new(State::Info, &u.name, "no --max-model-len: vLLM takes the model's own context length, and refused to start in the cases when its KV cache could not hold it ('... larger than the maximum number of tokens that can be stored in KV cache')")
                .evidence(i.evidence(&c.loc, &c.text))
                .action("set --max-model-len to the context you serve (or raise --gpu-memory-utilization)")
        })
        .collect();
    Outcome::found(findings, "every vLLM server sets --max-model-len")
}

/// Every image a file runs: containers', and pyxis's `--container-image`.
pub(super) fn images<'a>(i: &'a Input<'_>) -> Vec<(&'a str, &'a Loc, &'a str)> {
    let mut out: Vec<(&str, &Loc, &str)> = Vec::new();
    for u in &i.job.units {
        out.extend(u.images.iter().map(|im| (im.value.as_str(), &im.loc, im.text.as_str())));
        out.extend(
            u.commands
                .iter()
                .filter(|c| c.program() == "srun")
                .filter_map(|c| Some((c.option("--container-image")?, &c.loc, c.text.as_str()))),
        );
    }
    out
}

/// The tag of an image reference (`repo:tag`), none for `repo` or a digest.
pub(super) fn tag(image: &str) -> Option<&str> {
    if image.contains('@') {
        return None;
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    // enroot writes `registry#repo:tag`.
    let last = last.rsplit('#').next().unwrap_or(last);
    last.split_once(':').map(|(_, t)| t)
}

fn unpinned(i: &Input<'_>) -> Outcome {
    let all = images(i);
    if all.is_empty() {
        return Outcome::na("no image in this file");
    }
    let findings = all
        .iter()
        .filter(|(im, ..)| !im.contains('@') && !im.starts_with('/') && !im.ends_with(".sqsh") && !im.contains('$'))
        // `latest`, and the tags that move with it (`latest-gpu`, `latest-py3`).
        .filter(|(im, ..)| tag(im).is_none_or(|t| t == "latest" || t.starts_with("latest-")))
        .map(|(im, loc, text)| {
            Finding::new(State::Warn, *im, format!("{im} follows `latest`: the image can change, or vanish, under the job; in the case the tag was removed from the registry and pulls failed"))
                .evidence(i.evidence(loc, text))
                .action("pin a version tag (or a digest, @sha256:...)")
        })
        .collect();
    Outcome::found(findings, format!("{} image(s), each pinned", all.len()))
}

/// A limit's value in units (`unlimited` and `-1` are none).
fn limit(v: &str) -> Option<u64> {
    let v = v.split(':').next().unwrap_or(v);
    if v == "unlimited" || v == "-1" { None } else { v.parse().ok() }
}

fn memlock(i: &Input<'_>) -> Outcome {
    let rdma: Vec<&Unit> = i.job.units.iter().filter(|u| u.rdma).collect();
    if rdma.is_empty() {
        return Outcome::na("no RDMA devices or NCCL_IB_HCA in this file");
    }
    let mut findings = Vec::new();
    for u in rdma {
        let set = u.ulimits.iter().rev().find(|l| l.value.0 == "memlock");
        match set {
            Some(l) if limit(&l.value.1).is_some_and(|n| n < 1 << 20) => findings.push(
                Finding::new(State::Crit, &u.name, format!("the locked-memory limit is {}: RDMA memory registration fails (ibv_reg_mr, ibv_create_cq: \"Cannot allocate memory\") in the cases", l.value.1))
                    .evidence(i.evidence(&l.loc, &l.text))
                    .action("lift it: ulimit -l unlimited, or --ulimit memlock=-1 for a container"),
            ),
            None if u.loc.field.is_none() && !u.images.is_empty() => findings.push(
                Finding::new(State::Warn, &u.name, "a container given RDMA devices with the default locked-memory limit: RDMA memory registration failed with \"Cannot allocate memory\" in the cases")
                    .evidence(i.evidence(&u.loc, &u.text))
                    .action("add --ulimit memlock=-1"),
            ),
            _ => {}
        }
    }
    Outcome::found(findings, "RDMA jobs may lock memory")
}

fn nofile(i: &Input<'_>) -> Outcome {
    let mut findings = Vec::new();
    let mut any = false;
    for u in &i.job.units {
        for l in u.ulimits.iter().filter(|l| l.value.0 == "nofile") {
            any = true;
            if limit(&l.value.1).is_some_and(|n| n < 4096) {
                findings.push(
                    Finding::new(State::Info, &u.name, format!("the open-file limit is {}: DataLoader workers pass tensors as file descriptors, and the case crashed with 'received 0 items of ancdata' once they ran out", l.value.1))
                        .evidence(i.evidence(&l.loc, &l.text))
                        .action("raise it (ulimit -n 65536), or use the file_system sharing strategy"),
                );
            }
        }
    }
    if !any {
        return Outcome::na("no open-file limit set in this file");
    }
    Outcome::found(findings, "the open-file limit has room")
}
