//! The network a job's ranks talk over: InfiniBand ports, RoCE GID index and MTUs, the socket
//! interfaces NCCL and Gloo are told to use, and the listen backlog of the rendezvous host.

use super::{Check, Input, Look, NodeEnv};
use crate::doctor::environment;
use crate::doctor::finding::{Evidence, Finding, Outcome, State};

pub(super) const CHECKS: &[Check] = &[
    Check {
        id: "ib.port",
        title: "InfiniBand ports are active and at the rate of their peers",
        needs_root: false,
        needs_gpu: false,
        run: ib_port,
    },
    Check {
        id: "rdma.netconf",
        title: "RoCE has a routable GID index and the RDMA netdevs agree on MTU",
        needs_root: false,
        needs_gpu: false,
        run: rdma,
    },
    Check {
        id: "socket.ifname",
        title: "NCCL_SOCKET_IFNAME and GLOO_SOCKET_IFNAME name interfaces that exist, in a form each accepts",
        needs_root: false,
        needs_gpu: false,
        run: ifname,
    },
    Check {
        id: "listen.backlog",
        title: "the listen backlog holds every rank that connects to the rendezvous",
        needs_root: false,
        needs_gpu: false,
        run: backlog,
    },
];

/// (device, port, base path) of every RDMA port.
fn ports(i: &Input<'_>) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for dev in &i.ctx.rdma {
        let base = format!("/sys/class/infiniband/{dev}/ports");
        if let Look::Found(ports) = i.snap.dir(&base) {
            for p in ports {
                out.push((dev.clone(), p.clone(), format!("{base}/{p}")));
            }
        }
    }
    out
}

fn ib_port(i: &Input<'_>) -> Outcome {
    if let look @ Look::Unreadable(_) = i.snap.dir("/sys/class/infiniband") {
        return super::unreadable("/sys/class/infiniband", look, "ib.port");
    }
    if i.ctx.rdma.is_empty() {
        return Outcome::na("no RDMA device (/sys/class/infiniband is empty or absent)");
    }
    let mut findings = Vec::new();
    let mut rates: Vec<(String, f64, String)> = Vec::new();
    let all = ports(i);
    for (dev, port, base) in &all {
        if i.snap.value(&format!("{base}/link_layer")).found() != Some("InfiniBand") {
            continue;
        }
        let state = i.snap.value(&format!("{base}/state")).found().unwrap_or("");
        if !state.contains("ACTIVE") {
            findings.push(
                Finding::new(
                    State::Warn,
                    format!("{dev}/{port}"),
                    format!("InfiniBand port {dev}/{port} is {state}"),
                )
                .evidence(Evidence::new(format!("{base}/state"), state))
                .action("check the cable and the switch port; a port in use by jobs must be ACTIVE"),
            );
        }
        if let Some(rate) = i.snap.value(&format!("{base}/rate")).found() {
            let gb = rate.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()).unwrap_or(0.0);
            rates.push((format!("{dev}/{port}"), gb, rate.to_string()));
        }
    }
    if let Some(best) = rates.iter().map(|r| r.1).reduce(f64::max) {
        for (name, gb, text) in &rates {
            if *gb < best {
                findings.push(
                    Finding::new(
                        State::Warn,
                        name.clone(),
                        format!("{name} runs at {text}, below the {best} Gb/s of the node's other ports"),
                    )
                    .evidence(Evidence::new(format!("/sys/class/infiniband/{name}"), text.clone()))
                    .action("check the cable, the transceiver and the switch port"),
                );
            }
        }
    }
    Outcome::found(findings, format!("{} RDMA port(s) active at one rate", all.len()))
}

fn rdma(i: &Input<'_>) -> Outcome {
    if let look @ Look::Unreadable(_) = i.snap.dir("/sys/class/infiniband") {
        return super::unreadable("/sys/class/infiniband", look, "rdma.netconf");
    }
    if i.ctx.rdma.is_empty() {
        return Outcome::na("no RDMA device");
    }
    let mut findings = Vec::new();
    let roce: Vec<(String, String, String)> = ports(i)
        .into_iter()
        .filter(|(_, _, b)| i.snap.value(&format!("{b}/link_layer")).found() == Some("Ethernet"))
        .collect();
    if !roce.is_empty() {
        match i.snap.env("NCCL_IB_GID_INDEX") {
            None => findings.push(
                Finding::new(State::Warn, "NCCL_IB_GID_INDEX", format!("{} RoCE port(s) and NCCL_IB_GID_INDEX is not set: the default GID may not route across switches", roce.len()))
                    .evidence(Evidence::new("environment", "NCCL_IB_GID_INDEX unset"))
                    .action("set NCCL_IB_GID_INDEX to the index of a RoCE v2 GID (see show_gids)"),
            ),
            Some(idx) => {
                for (dev, port, base) in &roce {
                    let path = format!("{base}/gid_attrs/types/{idx}");
                    if let Some(t) = i.snap.value(&path).found()
                        && !t.contains("v2")
                    {
                        findings.push(
                            Finding::new(State::Warn, format!("{dev}/{port}"), format!("NCCL_IB_GID_INDEX={idx} is a {t} GID on {dev}/{port}, not RoCE v2"))
                                .evidence(Evidence::new(path, t))
                                .action("point NCCL_IB_GID_INDEX at a RoCE v2 GID"),
                        );
                    }
                }
            }
        }
    }
    // The RDMA netdevs' MTUs.
    let mut mtus: Vec<(String, String)> = Vec::new();
    for dev in &i.ctx.rdma {
        if let Look::Found(nets) = i.snap.dir(&format!("/sys/class/infiniband/{dev}/device/net")) {
            for n in nets {
                if let Some(m) = i.snap.value(&format!("/sys/class/net/{n}/mtu")).found() {
                    mtus.push((n.clone(), m.to_string()));
                }
            }
        }
    }
    let mut distinct: Vec<&str> = mtus.iter().map(|(_, m)| m.as_str()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    if distinct.len() > 1 {
        let list: Vec<String> = mtus.iter().map(|(n, m)| format!("{n} {m}")).collect();
        findings.push(
            Finding::new(State::Info, "RDMA MTU", format!("the RDMA netdevs differ in MTU: {}", list.join(", ")))
                .evidence(Evidence::new("/sys/class/net/*/mtu", list.join(", ")))
                .action("use one MTU on every RDMA interface of the cluster; compare nodes with `incidex doctor --json`"),
        );
    }
    Outcome::found(findings, "RoCE GID index and MTUs agree")
}

fn ifname(i: &Input<'_>) -> Outcome {
    let nccl = i.snap.env("NCCL_SOCKET_IFNAME");
    let gloo = i.snap.env("GLOO_SOCKET_IFNAME");
    if nccl.is_none() && gloo.is_none() {
        return Outcome::pass("neither NCCL_SOCKET_IFNAME nor GLOO_SOCKET_IFNAME is set");
    }
    let interfaces = match i.snap.dir("/sys/class/net") {
        Look::Found(n) => n.to_vec(),
        look => {
            // The forms can be judged without the interfaces; whether they exist cannot.
            let forms_ok = gloo.is_none_or(|g| {
                !g.starts_with('^') && !g.contains(',') && g.parse::<std::net::IpAddr>().is_err()
            });
            if forms_ok {
                return super::unreadable("/sys/class/net", look, "socket.ifname");
            }
            Vec::new()
        }
    };
    let findings = environment::socket_forms(&NodeEnv(i), &interfaces);
    Outcome::found(findings, "the socket interfaces exist and are named in forms NCCL and Gloo accept")
}

fn backlog(i: &Input<'_>) -> Outcome {
    let ranks =
        ["WORLD_SIZE", "SLURM_NTASKS"].iter().find_map(|k| i.snap.env(k)).and_then(|v| v.parse::<u64>().ok());
    let path = "/proc/sys/net/core/somaxconn";
    let somaxconn = match i.snap.value(path) {
        Look::Found(v) => v.parse::<u64>().ok(),
        look => return super::unreadable(path, look, "listen.backlog"),
    };
    let Some(ranks) = ranks else {
        return Outcome::na(
            "no world size known here (WORLD_SIZE or SLURM_NTASKS): run it in the job's environment",
        );
    };
    match somaxconn {
        Some(s) if s < ranks => Outcome::found(
            vec![Finding::new(State::Info, "somaxconn", format!("somaxconn is {s}, below the {ranks} ranks that connect to the rendezvous store at once"))
                .evidence(Evidence::new(path, s.to_string()))
                .action(format!("raise net.core.somaxconn (and tcp_max_syn_backlog) to at least {ranks} on the rank-0 host"))],
            "",
        ),
        Some(s) => Outcome::pass(format!("somaxconn {s} holds {ranks} ranks")),
        None => Outcome::unknown(format!("{path} is not a number"), "read it on the node"),
    }
}
