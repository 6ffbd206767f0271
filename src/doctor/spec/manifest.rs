//! Kubernetes manifests read into a [`Job`]: every pod template of every document, wherever
//! its kind keeps it (`Pod`, `Job`, `Deployment`, `StatefulSet`, `DaemonSet`, `CronJob`, and the
//! training CRDs: `PyTorchJob`, `MPIJob`, `JobSet`, `RayCluster`, `LeaderWorkerSet`...), found
//! as the mapping that holds `containers`; `kind: List` (what `kubectl get -o yaml` prints) too.
//! Each container is a unit, with the volumes of its pod behind its mounts.

use super::{
    job::{Backing, Command, Job, Kubelet, Loc, Located, Mount, Probe, Setting, Unit},
    yaml::{Node, Value},
};

/// How deep to look for pod templates in a document.
const MAX_WALK: usize = 24;

/// Read the documents of a manifest file.
pub fn read(docs: &[Node]) -> Job {
    let mut job = Job::default();
    for doc in docs {
        let kind = doc.str_at("kind").unwrap_or("object");
        if kind == "KubeletConfiguration" {
            let topology_policy = doc.get("topologyManagerPolicy").and_then(|n| {
                Some(Located {
                    value: n.str()?.to_string(),
                    loc: Loc::field(n.line, "topologyManagerPolicy"),
                    text: format!("topologyManagerPolicy: {}", n.str()?),
                })
            });
            job.kubelets.push(Kubelet { topology_policy });
            continue;
        }
        walk(doc, doc, String::new(), 0, &mut job);
    }
    job
}

/// The name of an object: `Kind/name`.
fn object_name(doc: &Node) -> String {
    let kind = doc.str_at("kind").unwrap_or("object");
    match doc.str_at("metadata.name") {
        Some(name) => format!("{kind}/{name}"),
        None => kind.to_string(),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

fn walk(doc: &Node, node: &Node, path: String, depth: usize, job: &mut Job) {
    if depth > MAX_WALK {
        return;
    }
    match &node.value {
        Value::Map(entries) => {
            if let Some(containers) = node.get("containers").filter(|c| matches!(c.value, Value::Seq(_))) {
                pod(doc, node, containers, &path, job);
                return;
            }
            for (k, v) in entries {
                walk(doc, v, join(&path, k), depth + 1, job);
            }
        }
        Value::Seq(items) => {
            for (i, item) in items.iter().enumerate() {
                // An item of a List with its own kind is an object of its own.
                let doc =
                    if item.get("kind").is_some() && item.get("apiVersion").is_some() { item } else { doc };
                let path = if std::ptr::eq(doc, item) { String::new() } else { format!("{path}[{i}]") };
                walk(doc, item, path, depth + 1, job);
            }
        }
        _ => {}
    }
}

/// What backs each volume of a pod, by name.
fn volumes(spec: &Node) -> Vec<(String, Backing)> {
    spec.get("volumes")
        .map(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|v| {
            let name = v.str_at("name")?.to_string();
            let backing = if let Some(e) = v.get("emptyDir") {
                if e.str_at("medium").is_some_and(|m| m.eq_ignore_ascii_case("memory")) {
                    Backing::Memory(e.str_at("sizeLimit").map(str::to_string))
                } else {
                    Backing::NodeDisk
                }
            } else if v.get("nfs").is_some() {
                Backing::Nfs
            } else if let Some(c) = v.get("persistentVolumeClaim") {
                Backing::Claim(c.str_at("claimName").unwrap_or("").to_string())
            } else if let Some(h) = v.get("hostPath") {
                Backing::HostPath(h.str_at("path").unwrap_or("").to_string())
            } else {
                let kind =
                    v.entries().iter().map(|(k, _)| k.as_str()).find(|k| *k != "name").unwrap_or("volume");
                Backing::Other(kind.to_string())
            };
            Some((name, backing))
        })
        .collect()
}

fn scalar_text(key: &str, n: &Node) -> String {
    format!("{key}: {}", n.str().unwrap_or("…"))
}

fn pod(doc: &Node, spec: &Node, containers: &Node, path: &str, job: &mut Job) {
    let object = object_name(doc);
    // The part of the path that names a replica type (`pytorchReplicaSpecs.Worker`).
    let role = path
        .split('.')
        .zip(path.split('.').skip(1))
        .find(|(parent, _)| parent.ends_with("ReplicaSpecs"))
        .map(|(_, role)| format!(" {role}"))
        .unwrap_or_default();
    let vols = volumes(spec);
    let host_ipc = spec.get("hostIPC").is_some_and(Node::is_true);
    let grace = spec.get("terminationGracePeriodSeconds").and_then(|n| {
        Some(Located {
            value: n.str()?.to_string(),
            loc: Loc::field(n.line, join(path, "terminationGracePeriodSeconds")),
            text: scalar_text("terminationGracePeriodSeconds", n),
        })
    });
    let replicas = doc
        .at("spec.replicas")
        .and_then(Node::str)
        .and_then(|r| r.parse::<u32>().ok())
        .or_else(|| spec_replicas_near(doc, path));
    for (i, c) in containers.items().iter().enumerate() {
        let field = join(path, &format!("containers[{i}]"));
        let cname = c.str_at("name").unwrap_or("?");
        let mut unit = Unit {
            name: format!("{object}{role} container {cname}"),
            loc: Loc::field(c.line, field.clone()),
            text: format!("- name: {cname}"),
            host_ipc,
            replicas,
            grace: grace.clone(),
            ..Unit::default()
        };
        for kind in ["liveness", "readiness", "startup"] {
            let key = format!("{kind}Probe");
            let Some(p) = c.get(&key) else { continue };
            let num = |k: &str, default: u64| p.str_at(k).and_then(|v| v.parse().ok()).unwrap_or(default);
            unit.probes.push(Probe {
                kind: kind.to_string(),
                initial_delay: num("initialDelaySeconds", 0),
                period: num("periodSeconds", 10),
                failure_threshold: num("failureThreshold", 3),
                loc: Loc::field(p.line, format!("{field}.{key}")),
                text: format!(
                    "{key}: initialDelaySeconds {}, periodSeconds {}, failureThreshold {}",
                    num("initialDelaySeconds", 0),
                    num("periodSeconds", 10),
                    num("failureThreshold", 3)
                ),
            });
        }
        if let Some(img) = c.get("image").and_then(|n| n.str().map(|s| (n, s))) {
            unit.images.push(Located {
                value: img.1.to_string(),
                loc: Loc::field(img.0.line, format!("{field}.image")),
                text: format!("image: {}", img.1),
            });
        }
        for (j, e) in c.get("env").map(Node::items).unwrap_or_default().iter().enumerate() {
            let (Some(k), Some(v)) = (e.str_at("name"), e.get("value").and_then(Node::str)) else { continue };
            unit.env.push(Setting {
                key: k.into(),
                value: v.into(),
                loc: Loc::field(e.line, format!("{field}.env[{j}]")),
                text: format!("{k}={v}"),
            });
        }
        for (j, m) in c.get("volumeMounts").map(Node::items).unwrap_or_default().iter().enumerate() {
            let (Some(name), Some(at)) = (m.str_at("name"), m.str_at("mountPath")) else { continue };
            let backing = vols
                .iter()
                .find(|(n, _)| n == name)
                .map_or(Backing::Other("unknown volume".into()), |(_, b)| b.clone());
            unit.mounts.push(Mount {
                path: at.to_string(),
                backing,
                loc: Loc::field(m.line, format!("{field}.volumeMounts[{j}]")),
                text: format!("mountPath: {at} (volume {name})"),
            });
        }
        for key in ["limits", "requests"] {
            let Some(r) = c.at(&format!("resources.{key}")) else { continue };
            if unit.gpus.is_none() {
                for gpu in ["nvidia.com/gpu", "amd.com/gpu"] {
                    if let Some(n) = r.get(gpu) {
                        let count = n.str().and_then(|s| s.parse().ok()).unwrap_or(0);
                        if count > 0 {
                            unit.gpus = Some(Located {
                                value: count,
                                loc: Loc::field(n.line, format!("{field}.resources.{key}")),
                                text: scalar_text(gpu, n),
                            });
                        }
                    }
                }
            }
            if key == "limits"
                && let Some(m) = r.get("memory")
            {
                unit.memory_limit = Some(Located {
                    value: m.str().unwrap_or("").to_string(),
                    loc: Loc::field(m.line, format!("{field}.resources.limits.memory")),
                    text: scalar_text("memory", m),
                });
            }
        }
        let sc = c.get("securityContext");
        unit.ptrace_allowed = sc.and_then(|s| s.get("privileged")).is_some_and(Node::is_true)
            || sc
                .and_then(|s| s.at("capabilities.add"))
                .map(Node::items)
                .unwrap_or_default()
                .iter()
                .any(|cap| cap.str().is_some_and(|c| c.eq_ignore_ascii_case("SYS_PTRACE") || c == "ALL"));
        let words: Vec<String> = ["command", "args"]
            .iter()
            .flat_map(|k| c.get(k).map(Node::items).unwrap_or_default())
            .filter_map(|w| w.str().map(str::to_string))
            .collect();
        if !words.is_empty() {
            let line = c.get("command").or_else(|| c.get("args")).map_or(c.line, |n| n.line);
            let text = words.join(" ");
            let command =
                Command { words: words.clone(), loc: Loc::field(line, format!("{field}.command")), text };
            // A shell's `-c` script is read as a script: its exports and launches.
            let script = ["-c", "-lc", "-ec"]
                .iter()
                .find_map(|f| words.iter().position(|w| w == f).and_then(|i| words.get(i + 1)));
            if let Some(script) = script {
                let last = script
                    .lines()
                    .map(str::trim)
                    .rfind(|l| !l.is_empty() && !l.starts_with('#'))
                    .unwrap_or("");
                if !last.starts_with("exec ") {
                    unit.shell_main = Some(Located {
                        value: script.clone(),
                        loc: command.loc.clone(),
                        text: command.text.clone(),
                    });
                }
                for inner in super::script::read_script(script, "script").units.into_iter().take(1) {
                    unit.env.extend(inner.env.into_iter().map(|s| Setting { loc: command.loc.clone(), ..s }));
                    let at = command.loc.clone();
                    unit.commands
                        .extend(inner.commands.into_iter().map(|c| Command { loc: at.clone(), ..c }));
                }
            }
            unit.commands.push(command);
        }
        unit.rdma |= unit.var("NCCL_IB_HCA").is_some();
        job.units.push(unit);
    }
}

/// `replicas` of a replica spec (`pytorchReplicaSpecs.Worker.replicas`), from the pod's path.
fn spec_replicas_near(doc: &Node, path: &str) -> Option<u32> {
    let parent = path.strip_suffix(".template.spec")?;
    doc.at(parent)?.str_at("replicas")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pod_templates_are_found_in_training_crds_and_lists() {
        let text = "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: llama\nspec:\n  pytorchReplicaSpecs:\n    Worker:\n      replicas: 4\n      template:\n        spec:\n          volumes:\n          - name: shm\n            emptyDir:\n              medium: Memory\n          containers:\n          - name: trainer\n            image: nvcr.io/nvidia/pytorch:24.03-py3\n            env:\n            - name: NCCL_DEBUG\n              value: INFO\n            resources:\n              limits:\n                nvidia.com/gpu: 8\n            volumeMounts:\n            - name: shm\n              mountPath: /dev/shm\n";
        let (docs, err) = crate::doctor::spec::yaml::parse(text);
        assert!(err.is_none());
        let job = read(&docs);
        let u = &job.units[0];
        assert_eq!(u.name, "PyTorchJob/llama Worker container trainer");
        assert_eq!(u.gpus.as_ref().unwrap().value, 8);
        assert_eq!(u.replicas, Some(4));
        assert_eq!(u.mounts[0].backing, Backing::Memory(None));
        let e = u.var("NCCL_DEBUG").unwrap();
        assert_eq!(
            e.loc.field.as_deref(),
            Some("spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].env[0]")
        );
        assert_eq!(e.loc.line, 19);
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: p\n  spec:\n    containers:\n    - name: c\n      image: x\n";
        let job = read(&crate::doctor::spec::yaml::parse(list).0);
        assert_eq!(job.units[0].name, "Pod/p container c");
        assert_eq!(job.units[0].loc.field.as_deref(), Some("spec.containers[0]"));
    }
}
