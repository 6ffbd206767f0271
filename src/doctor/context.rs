//! Where the audit runs, worked out first from the snapshot, so that each check knows whether it
//! applies: in a container or a pod, a VM or bare metal, with NVIDIA GPUs, NVSwitches or
//! InfiniBand on the bus, under Slurm or Kubernetes, and so a login node, a compute node, a pod
//! or a workstation.

use serde::Serialize;

use super::snapshot::{Look, Snapshot};

/// The PCI devices directory.
pub const PCI: &str = "/sys/bus/pci/devices";

/// What kind of machine this is, for the checks that apply to one kind only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    /// A Slurm node with no GPU and no job: where users submit.
    LoginNode,
    /// A node with GPUs that runs jobs.
    ComputeNode,
    /// A Kubernetes pod.
    Pod,
    /// Anything else (a workstation, a VM with no scheduler).
    Workstation,
}

/// An NVIDIA PCI function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PciDevice {
    /// Its address (`0000:17:00.0`).
    pub address: String,
    /// Its class (`0x030200`).
    pub class: String,
}

/// The context of one audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Context {
    /// What kind of machine.
    pub role: Role,
    /// In a container (Docker, Podman, a pod).
    pub container: bool,
    /// In a Kubernetes pod.
    pub pod: bool,
    /// The hypervisor, when this is a VM guest.
    pub vm: Option<String>,
    /// The NVIDIA GPUs (display and 3D controllers) on the PCI bus.
    pub gpus: Vec<PciDevice>,
    /// Whether NVSwitches are on the bus.
    pub nvswitch: bool,
    /// RDMA devices (`/sys/class/infiniband`).
    pub rdma: Vec<String>,
    /// Whether Slurm is configured here (a `slurm.conf`) or the audit runs in a Slurm job.
    pub slurm: bool,
    /// Whether a kubelet runs here, or the audit runs in a pod.
    pub kubernetes: bool,
    /// Whether the audit ran as root.
    pub root: bool,
}

impl Context {
    /// The context of `snap`.
    pub fn of(snap: &Snapshot) -> Context {
        let mut gpus = Vec::new();
        let mut nvswitch = false;
        if let Look::Found(devices) = snap.dir(PCI) {
            for d in devices {
                let vendor = snap.value(&format!("{PCI}/{d}/vendor")).found().unwrap_or("");
                let class = snap.value(&format!("{PCI}/{d}/class")).found().unwrap_or("");
                if vendor != "0x10de" {
                    continue;
                }
                if class.starts_with("0x0300") || class.starts_with("0x0302") {
                    gpus.push(PciDevice { address: d.clone(), class: class.to_string() });
                } else if class.starts_with("0x0680") {
                    nvswitch = true;
                }
            }
        }
        let pod = snap.env("KUBERNETES_SERVICE_HOST").is_some()
            || snap.exists("/var/run/secrets/kubernetes.io/serviceaccount") == Some(true);
        let cgroup = snap.file("/proc/1/cgroup").found().unwrap_or("");
        let container = pod
            || snap.exists("/.dockerenv") == Some(true)
            || snap.exists("/run/.containerenv") == Some(true)
            || ["docker", "kubepods", "containerd", "libpod"].iter().any(|w| cgroup.contains(w));
        let vm = vm_of(snap);
        let rdma = snap.dir("/sys/class/infiniband").found().map(<[String]>::to_vec).unwrap_or_default();
        let slurm = snap.file("/etc/slurm/slurm.conf").found().is_some()
            || snap.file("/etc/slurm-llnl/slurm.conf").found().is_some()
            || snap.env("SLURM_JOB_ID").is_some()
            || snap.env("SLURM_CONF").is_some();
        let kubernetes = pod || snap.file("/var/lib/kubelet/config.yaml").found().is_some();
        let role = if pod {
            Role::Pod
        } else if !gpus.is_empty() {
            Role::ComputeNode
        } else if slurm {
            Role::LoginNode
        } else {
            Role::Workstation
        };
        Context { role, container, pod, vm, gpus, nvswitch, rdma, slurm, kubernetes, root: snap.is_root() }
    }

    /// Whether this is bare metal (not a VM guest, as far as the snapshot tells).
    pub fn bare_metal(&self) -> bool {
        self.vm.is_none()
    }
}

fn vm_of(snap: &Snapshot) -> Option<String> {
    if let Look::Found(t) = snap.value("/sys/hypervisor/type")
        && !t.is_empty()
    {
        return Some(t.to_string());
    }
    let vendor = snap.value("/sys/class/dmi/id/sys_vendor").found().unwrap_or("");
    let product = snap.value("/sys/class/dmi/id/product_name").found().unwrap_or("");
    for (needle, name) in [
        ("QEMU", "kvm"),
        ("KVM", "kvm"),
        ("Amazon EC2", "aws"),
        ("Google Compute Engine", "gce"),
        ("Microsoft Corporation", "hyper-v"),
        ("VMware", "vmware"),
        ("Xen", "xen"),
        ("OpenStack", "openstack"),
    ] {
        if vendor.contains(needle) || product.contains(needle) {
            // EC2 metal instances report Amazon too: a `.metal` product is bare metal.
            if product.contains("metal") {
                return None;
            }
            return Some(name.to_string());
        }
    }
    let cpuinfo = snap.file("/proc/cpuinfo").found().unwrap_or("");
    let flags = cpuinfo.lines().find(|l| l.starts_with("flags")).unwrap_or("");
    flags.split_whitespace().any(|f| f == "hypervisor").then(|| "unknown hypervisor".to_string())
}
