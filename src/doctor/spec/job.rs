//! What a job spec says about how its processes will run, in one shape for every kind of file:
//! the units (a container of a pod, a batch script, a `docker run`), each with its environment,
//! its launch commands, its GPUs, its `/dev/shm` and its mounts, every value with the line (and
//! for YAML, the field path) it was read from. The rules read only this.

/// Where a value was read: its line (from 1) and, in a manifest, its field path.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Loc {
    /// Line, from 1.
    pub line: usize,
    /// The field path in a manifest (`spec.template.spec.containers[0].env[2]`).
    pub field: Option<String>,
}

impl Loc {
    /// A line of a script.
    pub fn line(line: usize) -> Loc {
        Loc { line, field: None }
    }

    /// A field of a manifest.
    pub fn field(line: usize, field: impl Into<String>) -> Loc {
        Loc { line, field: Some(field.into()) }
    }
}

/// A value and where it was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where.
    pub loc: Loc,
    /// The text it was read from, for the evidence (`- name: NCCL_DEBUG`).
    pub text: String,
}

/// An environment variable the job sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setting {
    /// The name.
    pub key: String,
    /// The value, unquoted.
    pub value: String,
    /// Where it is set.
    pub loc: Loc,
    /// The line that sets it.
    pub text: String,
}

/// A command the job runs: `srun`, `torchrun`, `docker run`, `pip install`, `vllm serve`...
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// Its words, unquoted; the first is the program (with any path and `env K=V` prefix gone).
    pub words: Vec<String>,
    /// Where it starts.
    pub loc: Loc,
    /// Its text, continuation lines joined.
    pub text: String,
}

impl Command {
    /// The program's base name (`/usr/bin/srun` → `srun`).
    pub fn program(&self) -> &str {
        self.words.first().map_or("", |w| w.rsplit('/').next().unwrap_or(w))
    }

    /// Whether it passes `flag` (a long `--flag`, `--flag=value` or a short `-f`).
    pub fn has(&self, flag: &str) -> bool {
        self.option(flag).is_some() || self.words.iter().any(|w| w == flag)
    }

    /// The value of an option, in any of `--name value`, `--name=value`, `-n value` and `-nvalue`
    /// (for a single-letter `name`).
    pub fn option(&self, name: &str) -> Option<&str> {
        option_in(&self.words, name)
    }

    /// Whether this command runs `program` (as itself, or as `python -m program`).
    pub fn runs(&self, program: &str) -> bool {
        self.program() == program || self.module() == Some(program)
    }

    /// The module of `python -m module`.
    pub fn module(&self) -> Option<&str> {
        let p = self.program();
        if !(p.starts_with("python") || p == "uv" || p == "srun") {
            return None;
        }
        self.words.iter().position(|w| w == "-m").and_then(|i| self.words.get(i + 1)).map(String::as_str)
    }
}

/// The value of option `name` among `words` (see [`Command::option`]).
pub fn option_in<'a>(words: &'a [String], name: &str) -> Option<&'a str> {
    let short = name.len() == 2 && name.starts_with('-') && !name.starts_with("--");
    let eq = format!("{name}=");
    for (i, w) in words.iter().enumerate() {
        if let Some(v) = w.strip_prefix(&eq) {
            return Some(v);
        }
        if w == name {
            return words.get(i + 1).map(String::as_str).filter(|v| !v.starts_with('-') || v.len() == 1);
        }
        if short && w.len() > 2 && w.starts_with(name) && !w.starts_with("--") {
            return Some(&w[2..]);
        }
    }
    None
}

/// What backs a mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backing {
    /// `emptyDir` with `medium: Memory`, with its size limit if it has one.
    Memory(Option<String>),
    /// `emptyDir` on the node's disk.
    NodeDisk,
    /// An NFS volume.
    Nfs,
    /// A PersistentVolumeClaim (what backs it is not in the manifest).
    Claim(String),
    /// A path of the host.
    HostPath(String),
    /// Anything else (configMap, secret, csi...), by its kind.
    Other(String),
}

/// A volume mounted into a unit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Where it is mounted.
    pub path: String,
    /// What backs it.
    pub backing: Backing,
    /// Where the mount is written.
    pub loc: Loc,
    /// The line.
    pub text: String,
}

/// One process environment: a container of a pod, a batch script, a `docker run` line.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unit {
    /// What it is (`PyTorchJob/llama worker container trainer`, `batch script`).
    pub name: String,
    /// Where it starts.
    pub loc: Loc,
    /// The first line, for the evidence.
    pub text: String,
    /// The environment it sets, in order.
    pub env: Vec<Setting>,
    /// The commands it runs.
    pub commands: Vec<Command>,
    /// The images it runs.
    pub images: Vec<Located<String>>,
    /// GPUs requested (a pod's `nvidia.com/gpu` limit, `docker run --gpus`, Slurm's GPU options).
    pub gpus: Option<Located<u32>>,
    /// Mounts.
    pub mounts: Vec<Mount>,
    /// The host's IPC namespace (`hostIPC: true`, `--ipc=host`).
    pub host_ipc: bool,
    /// A memory limit, as written (`250Mi`).
    pub memory_limit: Option<Located<String>>,
    /// Privileged, or given `SYS_PTRACE`.
    pub ptrace_allowed: bool,
    /// Replicas of the pod (a Deployment's `replicas`), when more than one may run.
    pub replicas: Option<u32>,
    /// The pod's `terminationGracePeriodSeconds`, as written.
    pub grace: Option<Located<String>>,
    /// The container's probes.
    pub probes: Vec<Probe>,
    /// When the container's main process is a shell running a script (`sh -c "..."`), the
    /// script: the program it starts is then not process 1 and may not get the SIGTERM.
    pub shell_main: Option<Located<String>>,
    /// Resource limits it sets: `ulimit -l`, `--ulimit memlock=...` (`memlock`, `nofile`).
    pub ulimits: Vec<Located<(String, String)>>,
    /// Whether it is given RDMA devices (`/dev/infiniband`, an `rdma/` resource, NCCL_IB_HCA).
    pub rdma: bool,
}

/// A probe of a container.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// `liveness`, `readiness` or `startup`.
    pub kind: String,
    /// `initialDelaySeconds` (0 when not written).
    pub initial_delay: u64,
    /// `periodSeconds` (Kubernetes' default 10).
    pub period: u64,
    /// `failureThreshold` (Kubernetes' default 3).
    pub failure_threshold: u64,
    /// Where.
    pub loc: Loc,
    /// The line.
    pub text: String,
}

impl Probe {
    /// How long after start the probe can first have failed enough to act, in seconds.
    pub fn window(&self) -> u64 {
        self.initial_delay + self.period * self.failure_threshold
    }
}

impl Unit {
    /// The last setting of `key` (a later `export` wins).
    pub fn var(&self, key: &str) -> Option<&Setting> {
        self.env.iter().rev().find(|s| s.key == key)
    }

    /// The commands that run `program`.
    pub fn running<'a>(&'a self, program: &'a str) -> impl Iterator<Item = &'a Command> + 'a {
        self.commands.iter().filter(move |c| c.runs(program))
    }
}

/// A `#SBATCH` option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The option, long or short, without its value (`--signal`, `-N`).
    pub name: String,
    /// Its value.
    pub value: Option<String>,
    /// Where.
    pub loc: Loc,
    /// The line.
    pub text: String,
}

/// A kubelet's configuration (`kind: KubeletConfiguration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kubelet {
    /// `topologyManagerPolicy`.
    pub topology_policy: Option<Located<String>>,
}

/// Everything one file says about a job.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Job {
    /// The units.
    pub units: Vec<Unit>,
    /// The `#SBATCH` options of a batch script.
    pub sbatch: Vec<Directive>,
    /// Kubelet configurations.
    pub kubelets: Vec<Kubelet>,
}

impl Job {
    /// The `#SBATCH` option `long` (or its short form `short`), last one wins.
    pub fn sbatch(&self, long: &str, short: Option<&str>) -> Option<&Directive> {
        self.sbatch.iter().rev().find(|d| d.name == long || short.is_some_and(|s| d.name == s))
    }

    /// Whether this is a Slurm batch script.
    pub fn is_slurm(&self) -> bool {
        !self.sbatch.is_empty() || self.units.iter().any(|u| u.commands.iter().any(|c| c.program() == "srun"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(s: &str) -> Command {
        Command { words: shell_words::split(s).unwrap(), loc: Loc::line(1), text: s.into() }
    }

    #[test]
    fn options_are_read_in_every_spelling() {
        let c = cmd("srun -N2 --ntasks-per-node 8 --wait=60 -K torchrun --nnodes=2 train.py");
        assert_eq!(c.option("-N"), Some("2"));
        assert_eq!(c.option("--ntasks-per-node"), Some("8"));
        assert_eq!(c.option("--wait"), Some("60"));
        assert!(c.has("-K") && !c.has("--kill-on-bad-exit"));
        assert_eq!(c.program(), "srun");
        assert!(
            cmd("python3 -m torch.distributed.run --nproc-per-node 8 x.py").runs("torch.distributed.run")
        );
    }
}
