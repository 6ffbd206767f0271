//! The one part of the audit that touches the node: it reads files, lists directories and
//! follows links under a root directory, and runs a fixed table of commands, into a
//! [`Snapshot`]. Everything else is a pure function of the snapshot.
//!
//! It only reads. Files are opened read-only and read up to [`MAX_FILE`] bytes (a log's last
//! bytes); nothing is created, written, renamed or removed, and no signal is sent but to a child
//! of its own that ran past its timeout. `tests/doctor_readonly.rs` reads this folder's source
//! and fails on any call that could write or spawn outside [`run_command`].
//!
//! Paths are looked up under the root (`--root DIR`, `/` by default, `/host` in a pod with the
//! host's directories mounted read-only). A path with `..`, or a link whose target climbs above
//! the root, is refused; an absolute link target is taken inside the root, as the host would.
//!
//! Commands come only from [`COMMANDS`]. They run without a shell, with standard input closed
//! and a cleared environment (`PATH=/usr/bin:/bin:/usr/sbin:/sbin`, `LC_ALL=C`), all at once on
//! threads of their own, each with a timeout; a timeout is data ([`Ran::TimedOut`]), never a
//! hang. They run only when the root is `/`: another root's commands are not this machine's.

use std::{
    io::{Read, Seek, SeekFrom},
    path::{Component, Path, PathBuf},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use super::{
    context::PCI,
    snapshot::{Entry, Ran, Snapshot},
};

/// The most of a file that is read (the tail, for a log).
pub const MAX_FILE: u64 = 4 * 1024 * 1024;

/// A command of the probe's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed {
    /// The command line, as the snapshot keys it.
    pub key: &'static str,
    /// When it is worth running.
    pub when: When,
}

/// When a command of the table runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// Always.
    Always,
    /// When NVIDIA GPUs are on the PCI bus.
    Gpus,
    /// When NVSwitches are on the bus.
    NvSwitch,
}

/// Every command the audit may run: each only reads. (No `-pm`, `-r`, `-pl`, no `modprobe`,
/// `setpci`, `scontrol update`, `kubectl`, `dcgmi diag`: `tests/doctor_readonly.rs` holds this
/// table to that.)
pub const COMMANDS: &[Allowed] = &[
    Allowed { key: "nvidia-smi -q", when: When::Gpus },
    Allowed { key: "nvidia-smi -L", when: When::Gpus },
    Allowed { key: "nvidia-smi nvlink -s", when: When::Gpus },
    Allowed { key: "lspci -vvv", when: When::Gpus },
    Allowed { key: "systemctl is-active nvidia-fabricmanager", when: When::NvSwitch },
    Allowed { key: "journalctl -k -b --no-pager -o short-iso", when: When::Always },
];

/// The directories a program of the table is looked for in (never `$PATH`).
const BIN_DIRS: &[&str] = &["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

/// Files read on every node.
const FILES: &[&str] = &[
    "/proc/self/mountinfo",
    "/proc/cmdline",
    "/proc/cpuinfo",
    "/proc/meminfo",
    "/proc/modules",
    "/proc/1/cgroup",
    "/proc/uptime",
    "/proc/sys/kernel/osrelease",
    "/proc/sys/kernel/dmesg_restrict",
    "/proc/sys/net/core/somaxconn",
    "/proc/sys/net/ipv4/tcp_max_syn_backlog",
    "/proc/sys/kernel/yama/ptrace_scope",
    "/proc/net/route",
    "/proc/driver/nvidia/version",
    "/proc/driver/nvidia/params",
    "/sys/module/nvidia/version",
    "/sys/hypervisor/type",
    "/sys/class/dmi/id/sys_vendor",
    "/sys/class/dmi/id/product_name",
    "/sys/fs/cgroup/cgroup.controllers",
    "/.dockerenv",
    "/run/.containerenv",
    "/etc/docker/daemon.json",
    "/etc/containerd/config.toml",
    "/etc/nvidia-container-runtime/config.toml",
    "/etc/slurm/slurm.conf",
    "/etc/slurm/gres.conf",
    "/etc/slurm/cgroup.conf",
    "/etc/slurm/plugstack.conf",
    "/etc/slurm-llnl/slurm.conf",
    "/etc/enroot/enroot.conf",
    "/var/lib/kubelet/config.yaml",
    "/etc/apt/apt.conf.d/20auto-upgrades",
    "/etc/apt/apt.conf.d/50unattended-upgrades",
    "/var/log/kern.log",
];

/// Directories listed on every node.
const DIRS: &[&str] = &[
    "/dev/shm",
    "/dev/char",
    "/dev",
    PCI,
    "/sys/class/infiniband",
    "/sys/class/infiniband_cm",
    "/sys/class/net",
    "/etc/cdi",
    "/var/run/cdi",
    "/etc/enroot/hooks.d",
    "/etc/slurm/plugstack.conf.d",
    "/proc/driver/nvidia/gpus",
    "/var/run/secrets/kubernetes.io/serviceaccount",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/usr/local/lib",
];

/// Names kept from the big library directories (the rest says nothing to a check).
const LIB_NAMES: &[&str] = &["libnvidia-ml.so", "libcuda.so", "libnccl", "libcudnn", "libcublas", "python3"];

/// The environment variables the checks read, by prefix or whole name.
const ENV_PREFIXES: &[&str] = &["NCCL_", "GLOO_", "TORCH_", "CUDA_", "HF_", "TRITON_", "SLURM_", "PYTORCH_"];
const ENV_NAMES: &[&str] = &[
    "LD_LIBRARY_PATH",
    "TMPDIR",
    "APPTAINER_TMPDIR",
    "SINGULARITY_TMPDIR",
    "HOME",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "KUBERNETES_SERVICE_HOST",
    "WORLD_SIZE",
    "TORCHINDUCTOR_CACHE_DIR",
];

/// How a capture is made.
#[derive(Debug, Clone)]
pub struct Options {
    /// The root directory the node's files are read under.
    pub root: PathBuf,
    /// Each command's timeout.
    pub timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Options { root: PathBuf::from("/"), timeout: Duration::from_secs(10) }
    }
}

/// Whether an environment variable is one the checks read.
pub fn wanted_env(key: &str) -> bool {
    ENV_PREFIXES.iter().any(|p| key.starts_with(p)) || ENV_NAMES.contains(&key)
}

/// The root directory, and paths looked up under it.
pub struct Root {
    base: PathBuf,
}

impl Root {
    /// The root at `dir`.
    pub fn new(dir: &Path) -> std::io::Result<Root> {
        Ok(Root { base: dir.canonicalize()? })
    }

    /// Whether this root is the machine's own `/`.
    pub fn is_system(&self) -> bool {
        self.base == Path::new("/")
    }

    /// Where `path` (absolute, as seen from the root) is on this machine, following links
    /// inside the root. `..` in `path`, or a link that climbs above the root, is refused.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let wanted = Path::new(path);
        if wanted.components().any(|c| matches!(c, Component::ParentDir)) {
            return Err("refused: the path climbs with `..`".into());
        }
        // Walk component by component, resolving links as the kernel would, but inside the root.
        let mut todo: Vec<std::ffi::OsString> = wanted
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_os_string()),
                _ => None,
            })
            .rev()
            .collect();
        let mut at: Vec<std::ffi::OsString> = Vec::new();
        let mut hops = 0;
        while let Some(part) = todo.pop() {
            if part == ".." {
                if at.pop().is_none() {
                    return Err("refused: a link climbs above the root".into());
                }
                continue;
            }
            if part == "." {
                continue;
            }
            at.push(part);
            let here: PathBuf = at.iter().fold(self.base.clone(), |p, c| p.join(c));
            let Ok(meta) = std::fs::symlink_metadata(&here) else {
                continue; // not there: the read will say so
            };
            // The last component is not followed here: `read_entry` decides what a link there is.
            if !meta.file_type().is_symlink() || todo.is_empty() {
                continue;
            }
            hops += 1;
            if hops > 40 {
                return Err("refused: too many levels of links".into());
            }
            let target = std::fs::read_link(&here).map_err(|e| e.to_string())?;
            at.pop();
            if target.is_absolute() {
                at.clear();
            }
            for c in target.components().rev() {
                match c {
                    Component::Normal(n) => todo.push(n.to_os_string()),
                    Component::ParentDir => todo.push("..".into()),
                    _ => {}
                }
            }
        }
        Ok(at.iter().fold(self.base.clone(), |p, c| p.join(c)))
    }

    /// Whether `path` under the root is a link that resolves (for the last component) outside it.
    fn last_link_escapes(&self, path: &str) -> bool {
        let Ok(real) = self.resolve(path) else { return true };
        let Ok(target) = std::fs::read_link(&real) else { return false };
        if target.is_absolute() {
            return false;
        }
        let depth = path.split('/').filter(|c| !c.is_empty()).count().saturating_sub(1);
        let ups = target.components().take_while(|c| matches!(c, Component::ParentDir)).count();
        ups > depth
    }
}

/// Read `path` into an [`Entry`]: a file's text, a listing, a link, missing or unreadable.
fn read_entry(root: &Root, path: &str, tail: bool) -> Entry {
    let real = match root.resolve(path) {
        Ok(p) => p,
        Err(why) => return Entry::Unreadable(why),
    };
    let meta = match std::fs::symlink_metadata(&real) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Entry::Missing,
        Err(e) => return Entry::Unreadable(e.to_string()),
    };
    if meta.file_type().is_symlink() {
        if root.last_link_escapes(path) {
            return Entry::Unreadable("refused: the link climbs above the root".into());
        }
        // A link to a directory or a file is read through; a link asked for as one is recorded.
        match std::fs::metadata(&real) {
            Ok(m) if m.is_dir() => return list(&real),
            Ok(_) => {}
            Err(_) => {
                return std::fs::read_link(&real)
                    .map(|t| Entry::Link(t.display().to_string()))
                    .unwrap_or(Entry::Missing);
            }
        }
    } else if meta.is_dir() {
        return list(&real);
    }
    if !std::fs::metadata(&real).is_ok_and(|m| m.is_file()) {
        return Entry::Unreadable("not a regular file".into());
    }
    let mut file = match std::fs::File::open(&real) {
        Ok(f) => f,
        Err(e) => return Entry::Unreadable(e.to_string()),
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if tail && len > MAX_FILE {
        let _ = file.seek(SeekFrom::Start(len - MAX_FILE));
    }
    let mut bytes = Vec::new();
    match file.take(MAX_FILE).read_to_end(&mut bytes) {
        Ok(_) => Entry::File(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) => Entry::Unreadable(e.to_string()),
    }
}

fn list(dir: &Path) -> Entry {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            Entry::Dir(names)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Entry::Missing,
        Err(e) => Entry::Unreadable(e.to_string()),
    }
}

fn link(root: &Root, path: &str) -> Entry {
    match root.resolve(path) {
        Ok(real) => match std::fs::read_link(&real) {
            Ok(t) => Entry::Link(t.display().to_string()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Entry::Missing,
            Err(e) => Entry::Unreadable(e.to_string()),
        },
        Err(why) => Entry::Unreadable(why),
    }
}

/// Capture the node under `options.root`: files, listings, links, the audit's environment and
/// (when the root is `/`) the table's commands.
pub fn capture(options: &Options, env: impl Iterator<Item = (String, String)>) -> std::io::Result<Snapshot> {
    let root = Root::new(&options.root)?;
    let mut snap = Snapshot { env: env.filter(|(k, _)| wanted_env(k)).collect(), ..Snapshot::default() };
    let put = |snap: &mut Snapshot, path: String, entry: Entry| {
        snap.files.insert(path, entry);
    };
    for f in FILES {
        let tail = f.starts_with("/var/log/");
        put(&mut snap, f.to_string(), read_entry(&root, f, tail));
    }
    for d in DIRS {
        let mut entry = read_entry(&root, d, false);
        if let Entry::Dir(names) = &mut entry {
            if d.starts_with("/usr/") {
                names.retain(|n| LIB_NAMES.iter().any(|l| n.starts_with(l)));
            } else if *d == "/dev" {
                names.retain(|n| n.starts_with("nvidia"));
            }
        }
        put(&mut snap, d.to_string(), entry);
    }
    // dpkg's database, cut to the stanzas of the packages the checks ask about.
    if let Entry::File(text) = read_entry(&root, "/var/lib/dpkg/status", false) {
        let kept: Vec<&str> = text
            .split("\n\n")
            .filter(|s| {
                s.lines().next().and_then(|l| l.strip_prefix("Package: ")).is_some_and(|p| {
                    ["nvidia", "libnvidia", "cuda-drivers", "datacenter-gpu-manager", "libnccl"]
                        .iter()
                        .any(|w| p.starts_with(w))
                })
            })
            .collect();
        put(&mut snap, "/var/lib/dpkg/status".into(), Entry::File(kept.join("\n\n")));
    }
    // Each NVIDIA or Mellanox PCI function: its identity, links, error counters, IOMMU group.
    let devices = snap.dir(PCI).found().map(<[String]>::to_vec).unwrap_or_default();
    for d in &devices {
        let base = format!("{PCI}/{d}");
        let vendor = read_entry(&root, &format!("{base}/vendor"), false);
        let wanted = matches!(&vendor, Entry::File(v) if ["0x10de", "0x15b3"].contains(&v.trim()));
        put(&mut snap, format!("{base}/vendor"), vendor);
        if !wanted {
            continue;
        }
        for name in [
            "class",
            "current_link_speed",
            "max_link_speed",
            "current_link_width",
            "max_link_width",
            "numa_node",
            "aer_dev_fatal",
            "aer_dev_nonfatal",
            "aer_dev_correctable",
        ] {
            put(&mut snap, format!("{base}/{name}"), read_entry(&root, &format!("{base}/{name}"), false));
        }
        let group = link(&root, &format!("{base}/iommu_group"));
        if let Entry::Link(target) = &group
            && let Some(n) = target.rsplit('/').next()
        {
            let t = format!("/sys/kernel/iommu_groups/{n}/type");
            put(&mut snap, t.clone(), read_entry(&root, &t, false));
        }
        put(&mut snap, format!("{base}/iommu_group"), group);
    }
    // RDMA devices: ports, link layer, GIDs and their netdevs' MTU.
    for dev in snap.dir("/sys/class/infiniband").found().map(<[String]>::to_vec).unwrap_or_default() {
        let base = format!("/sys/class/infiniband/{dev}");
        let ports_dir = format!("{base}/ports");
        let ports = read_entry(&root, &ports_dir, false);
        let names = if let Entry::Dir(n) = &ports { n.clone() } else { Vec::new() };
        put(&mut snap, ports_dir.clone(), ports);
        for p in names {
            for name in ["state", "phys_state", "rate", "link_layer"] {
                let path = format!("{ports_dir}/{p}/{name}");
                put(&mut snap, path.clone(), read_entry(&root, &path, false));
            }
            for i in 0..8 {
                let path = format!("{ports_dir}/{p}/gid_attrs/types/{i}");
                put(&mut snap, path.clone(), read_entry(&root, &path, false));
            }
        }
        let net = format!("{base}/device/net");
        put(&mut snap, net.clone(), read_entry(&root, &net, false));
    }
    for n in snap.dir("/sys/class/net").found().map(<[String]>::to_vec).unwrap_or_default() {
        let path = format!("/sys/class/net/{n}/mtu");
        put(&mut snap, path.clone(), read_entry(&root, &path, false));
    }
    // The device nodes' numbers, for the /dev/char links.
    for n in snap.dir("/dev").found().map(<[String]>::to_vec).unwrap_or_default() {
        if let Ok(real) = root.resolve(&format!("/dev/{n}"))
            && let Ok(meta) = std::fs::metadata(&real)
        {
            use std::os::unix::fs::MetadataExt;
            let rdev = meta.rdev();
            let (major, minor) = (libc::major(rdev), libc::minor(rdev));
            put(&mut snap, format!("stat:/dev/{n}"), Entry::File(format!("{major}:{minor}")));
        }
    }
    // Library and Python directories the environment names.
    for dir in library_dirs(&snap) {
        let entry = read_entry(&root, &dir, false);
        if let Entry::Dir(names) = &entry {
            for n in names.iter().filter(|n| n.starts_with("python3")) {
                let sp = format!("{dir}/{n}/site-packages");
                put(&mut snap, sp.clone(), read_entry(&root, &sp, false));
            }
        }
        put(&mut snap, dir, entry);
    }
    // Free space of the shared-memory and staging filesystems.
    for path in ["/dev/shm", "/tmp", "/run"] {
        if let Ok(real) = root.resolve(path)
            && let Some(line) = statvfs(&real)
        {
            put(&mut snap, format!("statvfs:{path}"), Entry::File(line));
        }
    }
    meta(&mut snap, &root, options);
    if root.is_system() {
        run_commands(&mut snap, options.timeout);
    } else {
        for c in COMMANDS {
            snap.commands
                .insert(c.key.into(), Ran::NotRun(format!("not run against --root {}", root.base.display())));
        }
    }
    Ok(snap)
}

/// The directories of `LD_LIBRARY_PATH`, and the Python environments' `lib` directories.
fn library_dirs(snap: &Snapshot) -> Vec<String> {
    let mut dirs: Vec<String> = snap
        .env("LD_LIBRARY_PATH")
        .map(|p| p.split(':').filter(|d| d.starts_with('/')).map(str::to_string).collect())
        .unwrap_or_default();
    for key in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(p) = snap.env(key) {
            dirs.push(format!("{}/lib", p.trim_end_matches('/')));
        }
    }
    if let Some(home) = snap.env("HOME") {
        dirs.push(format!("{}/.local/lib", home.trim_end_matches('/')));
    }
    dirs.sort();
    dirs.dedup();
    dirs.retain(|d| !d.contains("/../"));
    dirs
}

fn statvfs(path: &Path) -> Option<String> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: `c` is a valid NUL-terminated path and `s` a zeroed statvfs that the call fills.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    let block = s.f_frsize as u64;
    Some(format!("total={} free={}", s.f_blocks as u64 * block, s.f_bavail as u64 * block))
}

fn meta(snap: &mut Snapshot, root: &Root, options: &Options) {
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    snap.meta.insert("uid".into(), uid.to_string());
    snap.meta.insert("root".into(), root.base.display().to_string());
    snap.meta.insert("source".into(), "live".into());
    snap.meta.insert("timeout".into(), options.timeout.as_secs().to_string());
    if let Entry::File(h) = read_entry(root, "/proc/sys/kernel/hostname", false) {
        snap.meta.insert("host".into(), h.trim().to_string());
    }
    if let Some(k) = snap.value("/proc/sys/kernel/osrelease").found() {
        let k = k.to_string();
        snap.meta.insert("kernel".into(), k);
    }
}

fn run_commands(snap: &mut Snapshot, timeout: Duration) {
    let context = super::context::Context::of(snap);
    type Job = (&'static str, Option<std::thread::JoinHandle<Ran>>, Option<Ran>);
    let jobs: Vec<Job> = COMMANDS
        .iter()
        .map(|c| {
            let skip = match c.when {
                When::Always => None,
                When::Gpus if context.gpus.is_empty() => Some("no NVIDIA GPU on the PCI bus"),
                When::NvSwitch if !context.nvswitch => Some("no NVSwitch on the PCI bus"),
                _ => None,
            };
            match skip {
                Some(why) => (c.key, None, Some(Ran::NotRun(why.into()))),
                None => {
                    let key = c.key;
                    let handle = std::thread::Builder::new()
                        .name("incidex-probe".into())
                        .spawn(move || run_command(key, timeout))
                        .ok();
                    let failed = handle.is_none().then(|| Ran::Failed("no thread could be started".into()));
                    (key, handle, failed)
                }
            }
        })
        .collect();
    for (key, handle, ready) in jobs {
        let ran = match (handle, ready) {
            (Some(h), _) => h.join().unwrap_or_else(|_| Ran::Failed("the probe thread panicked".into())),
            (None, Some(r)) => r,
            (None, None) => Ran::Failed("not started".into()),
        };
        snap.commands.insert(key.to_string(), ran);
    }
}

/// Run one command of [`COMMANDS`] (any other key is refused): no shell, no standard input, a
/// cleared environment, killed at `timeout`.
pub fn run_command(key: &str, timeout: Duration) -> Ran {
    if !COMMANDS.iter().any(|c| c.key == key) {
        return Ran::Failed(format!("`{key}` is not in the probe's table"));
    }
    let mut words = key.split(' ');
    let program = words.next().unwrap_or_default();
    let Some(path) = BIN_DIRS.iter().map(|d| Path::new(d).join(program)).find(|p| p.is_file()) else {
        return Ran::NotFound;
    };
    let started = Instant::now();
    let child = Command::new(&path)
        .args(words)
        .env_clear()
        .env("PATH", "/usr/bin:/bin:/usr/sbin:/sbin")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Ran::Failed(e.to_string()),
    };
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(p) = pipe {
                let _ = p.take(MAX_FILE).read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let out = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let err = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                let stdout = out.join().unwrap_or_default();
                let stderr = err.join().unwrap_or_default();
                return Ran::Exited {
                    code: status.code().unwrap_or(-1),
                    stdout,
                    stderr,
                    millis: started.elapsed().as_millis() as u64,
                };
            }
            Ok(None) if started.elapsed() >= timeout => {
                // The one signal the audit sends: to its own child, which ran past its time.
                let _ = child.kill();
                let _ = child.wait();
                return Ran::TimedOut { secs: timeout.as_secs() };
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Ran::Failed(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_the_root_never_leave_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("etc/slurm")).unwrap();
        std::fs::write(root.join("etc/slurm/slurm.conf"), "ClusterName=x\n").unwrap();
        std::os::unix::fs::symlink("/etc/slurm", root.join("slurm-abs")).unwrap();
        std::os::unix::fs::symlink("../../../../../../../../etc", root.join("etc/up")).unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::os::unix::fs::symlink("../../etc/slurm/slurm.conf", root.join("a/b/conf")).unwrap();
        let r = Root::new(root).unwrap();
        assert_eq!(read_entry(&r, "/etc/slurm/slurm.conf", false), Entry::File("ClusterName=x\n".into()));
        // An absolute link is taken inside the root, as the host would see it.
        assert_eq!(read_entry(&r, "/slurm-abs/slurm.conf", false), Entry::File("ClusterName=x\n".into()));
        // A relative link inside the root is followed.
        assert_eq!(read_entry(&r, "/a/b/conf", false), Entry::File("ClusterName=x\n".into()));
        // `..` and links that climb out are refused, never read from the real /etc.
        assert!(
            matches!(read_entry(&r, "/etc/../etc/passwd", false), Entry::Unreadable(w) if w.contains("refused"))
        );
        assert!(
            matches!(read_entry(&r, "/etc/up/passwd", false), Entry::Unreadable(w) if w.contains("refused"))
        );
        assert!(matches!(read_entry(&r, "/etc/up", false), Entry::Unreadable(w) if w.contains("refused")));
        assert_eq!(read_entry(&r, "/no/such", false), Entry::Missing);
        assert!(matches!(read_entry(&r, "/etc/slurm", false), Entry::Dir(n) if n == ["slurm.conf"]));
    }

    #[test]
    fn a_command_outside_the_table_is_refused_and_a_capture_of_another_root_runs_none() {
        assert!(
            matches!(run_command("rm -rf /", Duration::from_secs(1)), Ran::Failed(w) if w.contains("not in the probe's table"))
        );
        let dir = tempfile::tempdir().unwrap();
        let snap = capture(
            &Options { root: dir.path().into(), timeout: Duration::from_secs(1) },
            std::iter::empty(),
        )
        .unwrap();
        assert!(snap.commands.values().all(|r| matches!(r, Ran::NotRun(_))));
        assert_eq!(snap.file("/proc/cmdline"), super::super::snapshot::Look::Missing);
    }
}
