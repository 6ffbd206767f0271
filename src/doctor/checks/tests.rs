//! Every check on a good, a bad and an unreadable snapshot, built here from the lines of real
//! captures (mountinfo, nvidia-smi -q, kernel log lines from the cases and the research).

use super::*;
use crate::doctor::{
    State,
    context::Context,
    snapshot::{Entry, Ran, Snapshot},
};

/// A snapshot of a bare-metal GPU node with `gpus` NVIDIA GPUs, and these files on top.
fn node(gpus: usize, files: &[(&str, &str)]) -> Snapshot {
    let mut s = Snapshot::default();
    s.meta.insert("uid".into(), "0".into());
    s.meta.insert("host".into(), "n17".into());
    let addrs: Vec<String> = (0..gpus).map(|i| format!("0000:{:02x}:00.0", 0x17 + i)).collect();
    s.files.insert("/sys/bus/pci/devices".into(), Entry::Dir(addrs.clone()));
    for a in &addrs {
        s.files.insert(format!("/sys/bus/pci/devices/{a}/vendor"), Entry::File("0x10de\n".into()));
        s.files.insert(format!("/sys/bus/pci/devices/{a}/class"), Entry::File("0x030200\n".into()));
    }
    for (p, t) in files {
        let entry = if let Some(names) = t.strip_prefix("DIR:") {
            Entry::Dir(names.split(' ').filter(|n| !n.is_empty()).map(str::to_string).collect())
        } else if let Some(target) = t.strip_prefix("LINK:") {
            Entry::Link(target.into())
        } else if *t == "MISSING" {
            Entry::Missing
        } else if let Some(why) = t.strip_prefix("UNREADABLE:") {
            Entry::Unreadable(why.into())
        } else {
            Entry::File(t.to_string())
        };
        s.files.insert(p.to_string(), entry);
    }
    s
}

fn with_cmd(mut s: Snapshot, key: &str, out: &str) -> Snapshot {
    s.commands
        .insert(key.into(), Ran::Exited { code: 0, stdout: out.into(), stderr: String::new(), millis: 5 });
    s
}

fn with_env(mut s: Snapshot, key: &str, v: &str) -> Snapshot {
    s.env.insert(key.into(), v.into());
    s
}

fn state(id: &str, s: &Snapshot) -> State {
    outcome(id, s).state()
}

fn outcome(id: &str, s: &Snapshot) -> Outcome {
    let rules = Rules::bundled();
    let ctx = Context::of(s);
    let check = all().into_iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no check {id}"));
    (check.run)(&Input { snap: s, ctx: &ctx, rules: &rules })
}

const SHM_64M: &str =
    "1 0 0:1 / /dev/shm rw,nosuid,nodev,noexec,relatime - tmpfs shm rw,size=65536k,inode64\n";
const SHM_16G: &str = "1 0 0:1 / /dev/shm rw,nosuid,nodev - tmpfs tmpfs rw,size=16777216k\n";

#[test]
fn shm_size() {
    let mut pod = node(1, &[(MOUNTINFO, SHM_64M)]);
    pod.env.insert("KUBERNETES_SERVICE_HOST".into(), "10.0.0.1".into());
    assert_eq!(state("shm.size", &pod), State::Crit, "64 MiB in a pod with GPUs");
    assert_eq!(state("shm.size", &node(0, &[(MOUNTINFO, SHM_64M)])), State::Warn);
    assert_eq!(state("shm.size", &node(1, &[(MOUNTINFO, SHM_16G)])), State::Pass);
    assert_eq!(state("shm.size", &node(1, &[(MOUNTINFO, "UNREADABLE:Permission denied")])), State::Unknown);
    assert_eq!(state("shm.size", &node(1, &[])), State::Unknown, "not captured is never pass");
}

#[test]
fn shm_leftovers() {
    let full = node(0, &[("/dev/shm", "DIR:torch_99 nccl-abc"), ("statvfs:/dev/shm", "total=1000 free=100")]);
    assert_eq!(state("shm.leftovers", &full), State::Warn);
    assert_eq!(
        state(
            "shm.leftovers",
            &node(0, &[("/dev/shm", "DIR:torch_99"), ("statvfs:/dev/shm", "total=1000 free=1000")])
        ),
        State::Info
    );
    assert_eq!(state("shm.leftovers", &node(0, &[("/dev/shm", "DIR:")])), State::Pass);
    assert_eq!(
        state("shm.leftovers", &node(0, &[("/dev/shm", "UNREADABLE:Permission denied")])),
        State::Unknown
    );
}

#[test]
fn tmpfs_staging() {
    let tmp = "1 0 0:1 / / rw - ext4 /dev/sda1 rw\n2 1 0:2 / /tmp rw - tmpfs tmpfs rw,size=2097152k\n";
    assert_eq!(state("tmpfs.staging", &node(0, &[(MOUNTINFO, tmp)])), State::Warn);
    assert_eq!(
        state("tmpfs.staging", &node(0, &[(MOUNTINFO, "1 0 0:1 / / rw - ext4 /dev/sda1 rw\n")])),
        State::Pass
    );
    assert_eq!(state("tmpfs.staging", &node(0, &[])), State::Unknown);
}

#[test]
fn cache_on_netfs() {
    let nfs = "1 0 0:1 / / rw - ext4 /dev/sda1 rw\n2 1 0:2 / /home rw - nfs4 fs:/home rw,vers=4.2\n";
    let s = with_env(node(0, &[(MOUNTINFO, nfs)]), "HOME", "/home/ana");
    assert_eq!(state("cache.on.netfs", &s), State::Warn);
    let local = with_env(s.clone(), "TRITON_CACHE_DIR", "/tmp/triton");
    let local = with_env(local, "HF_HOME", "/tmp/hf");
    assert_eq!(state("cache.on.netfs", &local), State::Pass);
    assert_eq!(state("cache.on.netfs", &node(0, &[])), State::Unknown);
}

const VERSION_525: &str =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  525.85.12  Sat Jan 28 02:10:06 UTC 2023\n";

#[test]
fn driver_mismatch() {
    let bad = node(
        1,
        &[
            ("/proc/driver/nvidia/version", VERSION_525),
            ("/usr/lib/x86_64-linux-gnu", "DIR:libnvidia-ml.so.1 libnvidia-ml.so.535.129.03"),
        ],
    );
    assert_eq!(state("driver.mismatch", &bad), State::Crit);
    let good = node(
        1,
        &[
            ("/proc/driver/nvidia/version", VERSION_525),
            ("/usr/lib/x86_64-linux-gnu", "DIR:libnvidia-ml.so.525.85.12"),
        ],
    );
    assert_eq!(state("driver.mismatch", &good), State::Pass);
    assert_eq!(
        state("driver.mismatch", &node(1, &[("/proc/driver/nvidia/version", "MISSING")])),
        State::Unknown
    );
}

#[test]
fn driver_not_loaded() {
    assert_eq!(
        state(
            "driver.not.loaded",
            &node(
                2,
                &[("/proc/driver/nvidia/version", "MISSING"), ("/sys/module/nvidia/version", "MISSING")]
            )
        ),
        State::Crit
    );
    assert_eq!(
        state("driver.not.loaded", &node(2, &[("/proc/driver/nvidia/version", VERSION_525)])),
        State::Pass
    );
    assert_eq!(state("driver.not.loaded", &node(2, &[])), State::Unknown);
}

#[test]
fn os_auto_upgrade() {
    let on = "APT::Periodic::Update-Package-Lists \"1\";\nAPT::Periodic::Unattended-Upgrade \"1\";\n";
    let status = "Package: nvidia-driver-535\nStatus: install ok installed\nVersion: 535.129.03-0ubuntu1\n";
    assert_eq!(
        state(
            "os.auto.upgrade",
            &node(1, &[("/etc/apt/apt.conf.d/20auto-upgrades", on), ("/var/lib/dpkg/status", status)])
        ),
        State::Warn
    );
    let held = "Package: nvidia-driver-535\nStatus: hold ok installed\n";
    assert_eq!(
        state(
            "os.auto.upgrade",
            &node(1, &[("/etc/apt/apt.conf.d/20auto-upgrades", on), ("/var/lib/dpkg/status", held)])
        ),
        State::Pass
    );
    assert_eq!(
        state(
            "os.auto.upgrade",
            &node(1, &[("/etc/apt/apt.conf.d/20auto-upgrades", "UNREADABLE:Permission denied")])
        ),
        State::Unknown
    );
}

const SMI_GSP: &str = "==============NVSMI LOG==============\n\nDriver Version                            : 525.85.12\n\nGPU 00000000:17:00.0\n    Product Name                          : NVIDIA A100-SXM4-80GB\n    GSP Firmware Version                  : 525.85.12\n";

#[test]
fn driver_known_bad() {
    let bad = with_cmd(node(1, &[("/proc/driver/nvidia/version", VERSION_525)]), SMI_Q, SMI_GSP);
    assert_eq!(state("driver.known.bad", &bad), State::Warn);
    let no_gsp = with_cmd(
        node(1, &[("/proc/driver/nvidia/version", VERSION_525)]),
        SMI_Q,
        &SMI_GSP.replace(
            "GSP Firmware Version                  : 525.85.12",
            "GSP Firmware Version                  : N/A",
        ),
    );
    assert_eq!(state("driver.known.bad", &no_gsp), State::Pass, "the rule needs GSP on");
    let fixed = with_cmd(
        node(1, &[("/proc/driver/nvidia/version", &VERSION_525.replace("525.85.12", "525.105.17"))]),
        SMI_Q,
        SMI_GSP,
    );
    assert_eq!(state("driver.known.bad", &fixed), State::Pass);
    assert_eq!(state("driver.known.bad", &node(1, &[])), State::Unknown);
}

#[test]
fn cuda_compat_shadow() {
    let bad = with_env(
        node(
            1,
            &[
                ("/proc/driver/nvidia/version", &VERSION_525.replace("525.85.12", "570.86.15")),
                ("/usr/local/cuda/compat", "DIR:libcuda.so.1 libcuda.so.550.54.15"),
            ],
        ),
        "LD_LIBRARY_PATH",
        "/usr/local/cuda/compat:/usr/lib",
    );
    assert_eq!(state("cuda.compat.shadow", &bad), State::Warn);
    let newer = with_env(
        node(
            1,
            &[
                ("/proc/driver/nvidia/version", VERSION_525),
                ("/usr/local/cuda/compat", "DIR:libcuda.so.550.54.15"),
            ],
        ),
        "LD_LIBRARY_PATH",
        "/usr/local/cuda/compat",
    );
    assert_eq!(state("cuda.compat.shadow", &newer), State::Pass);
    let unread = with_env(
        node(1, &[("/usr/local/cuda/compat", "DIR:libcuda.so.550.54.15")]),
        "LD_LIBRARY_PATH",
        "/usr/local/cuda/compat",
    );
    assert_eq!(state("cuda.compat.shadow", &unread), State::Unknown);
}

#[test]
fn ld_path_shadow() {
    let files = [
        ("/opt/cudnn/lib", "DIR:libcudnn.so.8"),
        (
            "/venv/lib/python3.11/site-packages",
            "DIR:nvidia_cudnn_cu12-9.1.0.70.dist-info torch-2.3.0.dist-info",
        ),
    ];
    let bad = with_env(node(0, &files), "LD_LIBRARY_PATH", "/opt/cudnn/lib");
    assert_eq!(state("ld.path.shadow", &bad), State::Warn);
    assert_eq!(state("ld.path.shadow", &node(0, &files)), State::Pass);
    let other =
        with_env(node(0, &[("/opt/cudnn/lib", "DIR:libcudnn.so.8")]), "LD_LIBRARY_PATH", "/opt/cudnn/lib");
    assert_eq!(state("ld.path.shadow", &other), State::Pass, "no wheel ships its own cuDNN");
}

#[test]
fn nccl_stack_version() {
    let sp = "/venv/lib/python3.11/site-packages";
    let bad = node(0, &[(sp, "DIR:nvidia_nccl_cu12-2.19.3.dist-info")]);
    assert_eq!(state("nccl.stack.version", &bad), State::Warn);
    assert_eq!(
        state("nccl.stack.version", &with_env(bad, "NCCL_CUMEM_ENABLE", "0")),
        State::Pass,
        "cuMem off is the cases' fix"
    );
    assert_eq!(
        state("nccl.stack.version", &node(0, &[("/usr/lib/x86_64-linux-gnu", "DIR:libnccl.so.2.25.1")])),
        State::Warn
    );
    assert_eq!(
        state("nccl.stack.version", &node(0, &[(sp, "DIR:nvidia_nccl_cu12-2.21.5.dist-info")])),
        State::Pass
    );
    assert_eq!(state("nccl.stack.version", &node(0, &[])), State::NotApplicable);
}

#[test]
fn pypkg_known_bad() {
    let sp = "/venv/lib/python3.11/site-packages";
    assert_eq!(state("pypkg.known.bad", &node(0, &[(sp, "DIR:torch-2.1.2+cu121.dist-info")])), State::Info);
    assert_eq!(
        state("pypkg.known.bad", &node(0, &[(sp, "DIR:huggingface_hub-1.1.0.dist-info")])),
        State::Info
    );
    assert_eq!(
        state("pypkg.known.bad", &node(0, &[(sp, "DIR:torch-2.4.1.dist-info safetensors-0.7.0.dist-info")])),
        State::Pass
    );
    assert_eq!(state("pypkg.known.bad", &node(0, &[])), State::NotApplicable);
}

const XID_LOG: &str = "2024-05-01T10:00:00+0000 n17 kernel: NVRM: Xid (PCI:0000:17:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n\
2024-05-01T10:00:01+0000 n17 kernel: NVRM: Xid (PCI:0000:17:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.\n\
2024-05-01T10:01:00+0000 n17 kernel: NVRM: Xid (PCI:0000:18:00): 13, Graphics SM Warp Exception on (GPC 0, TPC 0)\n";

#[test]
fn gpu_xid() {
    let bad = with_cmd(node(2, &[]), JOURNAL, XID_LOG);
    let o = outcome("gpu.xid", &bad);
    assert_eq!(o.state(), State::Crit);
    let Outcome::Checked { findings, .. } = o else { panic!() };
    assert!(findings.iter().any(|f| f.message.contains("Xid 79 on 0000:17:00, 2×")), "{findings:?}");
    assert!(findings.iter().any(|f| f.severity == State::Info && f.message.contains("Xid 13")));
    let multi = "NVRM: The NVIDIA GPU 0000:17:00.0\nNVRM: (PCI ID: 10de:2330) installed in this system has\nNVRM: fallen off the bus and is not responding to commands.\n";
    assert_eq!(
        state("gpu.xid", &with_cmd(node(2, &[]), JOURNAL, multi)),
        State::Crit,
        "fallen off the bus with no Xid"
    );
    assert_eq!(state("gpu.xid", &with_cmd(node(2, &[]), JOURNAL, "kernel: eth0: link up\n")), State::Pass);
    let mut denied = node(
        2,
        &[("/var/log/kern.log", "UNREADABLE:Permission denied"), ("/proc/sys/kernel/dmesg_restrict", "1")],
    );
    denied.meta.insert("uid".into(), "1000".into());
    denied.commands.insert(
        JOURNAL.into(),
        Ran::Exited {
            code: 1,
            stdout: String::new(),
            stderr: "No journal files were opened due to insufficient permissions.\n".into(),
            millis: 3,
        },
    );
    let o = outcome("gpu.xid", &denied);
    assert!(
        matches!(&o, Outcome::Unknown { why, how } if why.contains("needs root") && how.contains("sudo incidex doctor --only gpu.xid")),
        "{o:?}"
    );
}

const SMI_BAD: &str = "GPU 00000000:17:00.0\n    Product Name                          : NVIDIA H100 80GB HBM3\n    ECC Errors\n        Volatile\n            SRAM Correctable              : 0\n            SRAM Uncorrectable            : 0\n            DRAM Correctable              : 4\n            DRAM Uncorrectable            : 2\n    Remapped Rows\n        Correctable Error                 : 0\n        Uncorrectable Error               : 2\n        Pending                           : Yes\n        Remapping Failure Occurred        : No\n    Clocks Event Reasons\n        Idle                              : Not Active\n        HW Slowdown                       : Active\n            HW Thermal Slowdown           : Not Active\n            HW Power Brake Slowdown       : Active\n    GPU Power Readings\n        Current Power Limit               : 500.00 W\n        Default Power Limit               : 700.00 W\n";
const SMI_GOOD: &str = "GPU 00000000:17:00.0\n    Product Name                          : NVIDIA H100 80GB HBM3\n    ECC Errors\n        Volatile\n            DRAM Uncorrectable            : 0\n    Remapped Rows\n        Pending                           : No\n        Remapping Failure Occurred        : No\n    Clocks Event Reasons\n        HW Slowdown                       : Not Active\n            HW Power Brake Slowdown       : Not Active\n    GPU Power Readings\n        Current Power Limit               : 700.00 W\n        Default Power Limit               : 700.00 W\n";

#[test]
fn gpu_memory_errors_and_throttle() {
    let bad = with_cmd(node(1, &[]), SMI_Q, SMI_BAD);
    let Outcome::Checked { findings, .. } = outcome("gpu.memory.errors", &bad) else { panic!() };
    assert!(
        findings.iter().any(|f| f.severity == State::Crit && f.message.contains("2 uncorrectable")),
        "{findings:?}"
    );
    assert!(findings.iter().any(|f| f.severity == State::Warn && f.message.contains("pending")));
    let Outcome::Checked { findings, .. } = outcome("gpu.throttle", &bad) else { panic!() };
    assert!(
        findings.iter().any(|f| f.severity == State::Crit && f.message.contains("power brake")),
        "{findings:?}"
    );
    assert!(findings.iter().any(|f| f.message.contains("capped at 500 W of its default 700 W")));
    let good = with_cmd(node(1, &[]), SMI_Q, SMI_GOOD);
    assert_eq!(state("gpu.memory.errors", &good), State::Pass);
    assert_eq!(state("gpu.throttle", &good), State::Pass);
    let mut hung = node(1, &[]);
    hung.commands.insert(SMI_Q.into(), Ran::TimedOut { secs: 10 });
    assert_eq!(state("gpu.memory.errors", &hung), State::Unknown);
    assert_eq!(state("gpu.throttle", &hung), State::Unknown);
}

#[test]
fn gpu_count_and_smi_unresponsive() {
    let lost = with_cmd(
        node(2, &[("/proc/driver/nvidia/gpus", "DIR:0000:17:00.0 0000:18:00.0")]),
        "nvidia-smi -L",
        "GPU 0: NVIDIA H100 (UUID: GPU-1)\n",
    );
    assert_eq!(state("gpu.count", &lost), State::Crit);
    let all = with_cmd(
        node(2, &[("/proc/driver/nvidia/gpus", "DIR:0000:17:00.0 0000:18:00.0")]),
        "nvidia-smi -L",
        "GPU 0: A\nGPU 1: B\n",
    );
    assert_eq!(state("gpu.count", &all), State::Pass);
    assert_eq!(state("gpu.count", &node(2, &[])), State::Unknown);
    let mut hung = with_cmd(node(1, &[]), "nvidia-smi -L", "GPU 0: A\n");
    hung.commands.insert(SMI_Q.into(), Ran::TimedOut { secs: 10 });
    assert_eq!(state("smi.unresponsive", &hung), State::Crit, "a timeout is a finding");
    let ok = with_cmd(with_cmd(node(1, &[]), "nvidia-smi -L", "GPU 0: A\n"), SMI_Q, SMI_GOOD);
    assert_eq!(state("smi.unresponsive", &ok), State::Pass);
    let mut missing = node(1, &[]);
    missing.commands.insert("nvidia-smi -L".into(), Ran::NotFound);
    assert_eq!(state("smi.unresponsive", &missing), State::Unknown);
}

#[test]
fn iommu_and_acs() {
    let files = [
        ("/proc/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on\n"),
        ("/sys/bus/pci/devices/0000:17:00.0/iommu_group", "LINK:../../../kernel/iommu_groups/31"),
        ("/sys/kernel/iommu_groups/31/type", "DMA-FQ\n"),
    ];
    assert_eq!(state("iommu.translated", &node(2, &files)), State::Warn);
    assert_eq!(
        state(
            "iommu.translated",
            &node(2, &[("/proc/cmdline", "BOOT_IMAGE=/vmlinuz intel_iommu=on iommu=pt\n")])
        ),
        State::Pass
    );
    let mut vm = node(2, &files);
    vm.files.insert("/sys/hypervisor/type".into(), Entry::File("xen\n".into()));
    assert_eq!(state("iommu.translated", &vm), State::NotApplicable);
    assert_eq!(state("iommu.translated", &node(2, &[])), State::Unknown);
    let lspci = "00:01.0 PCI bridge: PLX Technology\n\tCapabilities: [148 v1] Access Control Services\n\t\tACSCap:\tSrcValid+ TransBlk+ ReqRedir+ CmpltRedir+\n\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+\n";
    assert_eq!(state("acs.enabled", &with_cmd(node(2, &[]), "lspci -vvv", lspci)), State::Warn);
    assert_eq!(
        state(
            "acs.enabled",
            &with_cmd(
                node(2, &[]),
                "lspci -vvv",
                &lspci.replace("ReqRedir+ CmpltRedir+ Up", "ReqRedir- CmpltRedir- Up")
            )
        ),
        State::Pass
    );
    let mut user = with_cmd(node(2, &[]), "lspci -vvv", "00:01.0 PCI bridge: PLX Technology\n");
    user.meta.insert("uid".into(), "1000".into());
    assert_eq!(state("acs.enabled", &user), State::Unknown, "ACS lines show only to root");
}

#[test]
fn pcie_link_and_aer() {
    let d = "/sys/bus/pci/devices/0000:17:00.0";
    let narrow =
        node(1, &[(&format!("{d}/current_link_width"), "8\n"), (&format!("{d}/max_link_width"), "16\n")]);
    assert_eq!(state("pcie.link", &narrow), State::Warn);
    let full =
        node(1, &[(&format!("{d}/current_link_width"), "16\n"), (&format!("{d}/max_link_width"), "16\n")]);
    assert_eq!(state("pcie.link", &full), State::Pass);
    assert_eq!(state("pcie.link", &node(1, &[])), State::Unknown);
    let fatal = node(1, &[(&format!("{d}/aer_dev_fatal"), "Undefined 0\nTOTAL_ERR_FATAL 3\n")]);
    assert_eq!(state("pcie.aer", &fatal), State::Crit);
    let clean = node(
        1,
        &[
            (&format!("{d}/aer_dev_fatal"), "TOTAL_ERR_FATAL 0\n"),
            (&format!("{d}/aer_dev_nonfatal"), "TOTAL_ERR_NONFATAL 0\n"),
        ],
    );
    assert_eq!(state("pcie.aer", &clean), State::Pass);
    assert_eq!(state("pcie.aer", &node(1, &[])), State::Unknown);
}

fn nvswitch(mut s: Snapshot) -> Snapshot {
    let Some(Entry::Dir(names)) = s.files.get_mut("/sys/bus/pci/devices") else { panic!() };
    names.push("0000:c0:00.0".into());
    s.files.insert("/sys/bus/pci/devices/0000:c0:00.0/vendor".into(), Entry::File("0x10de\n".into()));
    s.files.insert("/sys/bus/pci/devices/0000:c0:00.0/class".into(), Entry::File("0x068000\n".into()));
    s
}

#[test]
fn fabric_manager_and_nvlink() {
    assert_eq!(
        state(
            "fabric.manager",
            &with_cmd(nvswitch(node(8, &[])), "systemctl is-active nvidia-fabricmanager", "failed\n")
        ),
        State::Crit
    );
    assert_eq!(
        state(
            "fabric.manager",
            &with_cmd(nvswitch(node(8, &[])), "systemctl is-active nvidia-fabricmanager", "active\n")
        ),
        State::Pass
    );
    assert_eq!(state("fabric.manager", &node(8, &[])), State::NotApplicable, "no NVSwitch");
    assert_eq!(state("fabric.manager", &nvswitch(node(8, &[]))), State::Unknown);
    let links = "GPU 0: NVIDIA H100 (UUID: GPU-a)\n\t Link 0: 26.562 GB/s\n\t Link 1: 26.562 GB/s\nGPU 1: NVIDIA H100 (UUID: GPU-b)\n\t Link 0: <inactive>\n\t Link 1: <inactive>\n";
    assert_eq!(state("nvlink.state", &with_cmd(node(2, &[]), "nvidia-smi nvlink -s", links)), State::Crit);
    let up = links.replace("<inactive>", "26.562 GB/s");
    assert_eq!(state("nvlink.state", &with_cmd(node(2, &[]), "nvidia-smi nvlink -s", &up)), State::Pass);
    assert_eq!(state("nvlink.state", &node(2, &[])), State::Unknown);
}

#[test]
fn ib_port_and_rdma() {
    let base = "/sys/class/infiniband/mlx5_0/ports/1";
    let files = |state: &str, layer: &str| {
        node(
            0,
            &[
                ("/sys/class/infiniband", "DIR:mlx5_0"),
                ("/sys/class/infiniband/mlx5_0/ports", "DIR:1"),
                (&format!("{base}/state"), state),
                (&format!("{base}/link_layer"), layer),
                (&format!("{base}/rate"), "400 Gb/sec (4X NDR)\n"),
                (&format!("{base}/gid_attrs/types/3"), "RoCE v2\n"),
                (&format!("{base}/gid_attrs/types/0"), "IB/RoCE v1\n"),
            ],
        )
    };
    assert_eq!(state("ib.port", &files("1: DOWN\n", "InfiniBand\n")), State::Warn);
    assert_eq!(state("ib.port", &files("4: ACTIVE\n", "InfiniBand\n")), State::Pass);
    assert_eq!(state("ib.port", &node(0, &[])), State::NotApplicable);
    assert_eq!(
        state("rdma.netconf", &files("4: ACTIVE\n", "Ethernet\n")),
        State::Warn,
        "RoCE with no GID index"
    );
    assert_eq!(
        state("rdma.netconf", &with_env(files("4: ACTIVE\n", "Ethernet\n"), "NCCL_IB_GID_INDEX", "0")),
        State::Warn,
        "a v1 GID"
    );
    assert_eq!(
        state("rdma.netconf", &with_env(files("4: ACTIVE\n", "Ethernet\n"), "NCCL_IB_GID_INDEX", "3")),
        State::Pass
    );
}

#[test]
fn socket_ifname_and_backlog() {
    let net = [("/sys/class/net", "DIR:eth0 lo docker0")];
    assert_eq!(
        state("socket.ifname", &with_env(node(0, &net), "GLOO_SOCKET_IFNAME", "^docker0,lo")),
        State::Crit
    );
    assert_eq!(
        state("socket.ifname", &with_env(node(0, &net), "GLOO_SOCKET_IFNAME", "10.0.0.5")),
        State::Crit
    );
    assert_eq!(
        state("socket.ifname", &with_env(node(0, &net), "NCCL_SOCKET_IFNAME", "^docker0")),
        State::Warn
    );
    assert_eq!(
        state("socket.ifname", &with_env(node(0, &net), "NCCL_SOCKET_IFNAME", "ib")),
        State::Crit,
        "no interface starts with ib"
    );
    assert_eq!(
        state(
            "socket.ifname",
            &with_env(with_env(node(0, &net), "NCCL_SOCKET_IFNAME", "eth"), "GLOO_SOCKET_IFNAME", "eth0")
        ),
        State::Pass
    );
    let s = with_env(node(0, &[("/proc/sys/net/core/somaxconn", "128\n")]), "WORLD_SIZE", "512");
    assert_eq!(state("listen.backlog", &s), State::Info);
    assert_eq!(
        state(
            "listen.backlog",
            &with_env(node(0, &[("/proc/sys/net/core/somaxconn", "4096\n")]), "WORLD_SIZE", "512")
        ),
        State::Pass
    );
    assert_eq!(state("listen.backlog", &with_env(node(0, &[]), "WORLD_SIZE", "512")), State::Unknown);
}

#[test]
fn environment() {
    assert_eq!(
        state("torch.nccl.env", &with_env(node(0, &[]), "TORCH_NCCL_ASYNC_ERROR_HANDLING", "0")),
        State::Warn
    );
    assert_eq!(state("torch.nccl.env", &node(0, &[])), State::Pass);
    assert_eq!(state("torch.nccl.env", &node(1, &[])), State::Info, "a GPU node without the flight recorder");
    assert_eq!(state("env.hazards", &with_env(node(0, &[]), "CUDA_LAUNCH_BLOCKING", "1")), State::Warn);
    assert_eq!(state("env.hazards", &with_env(node(0, &[]), "NCCL_P2P_DISABLE", "1")), State::Info);
    assert_eq!(state("env.hazards", &node(0, &[])), State::Pass);
}

#[test]
fn containers() {
    let toolkit = [("/etc/docker/daemon.json", "{}\n"), ("/etc/nvidia-container-runtime/config.toml", "x\n")];
    assert_eq!(state("ctr.runtime", &node(1, &toolkit)), State::Warn);
    assert_eq!(
        state("ctr.runtime", &node(1, &[("/etc/docker/daemon.json", "{\"runtimes\": {\"nvidia\": {}}}\n")])),
        State::Pass
    );
    assert_eq!(
        state(
            "ctr.runtime",
            &node(1, &[("/etc/docker/daemon.json", "MISSING"), ("/etc/containerd/config.toml", "MISSING")])
        ),
        State::NotApplicable
    );
    let systemd = [
        ("/etc/containerd/config.toml", "SystemdCgroup = true\n"),
        ("/dev", "DIR:nvidia0 nvidiactl"),
        ("stat:/dev/nvidia0", "195:0"),
        ("stat:/dev/nvidiactl", "195:255"),
    ];
    let mut with_links = systemd.to_vec();
    with_links.push(("/dev/char", "DIR:195:0 195:255"));
    assert_eq!(state("ctr.devchar", &node(1, &systemd)), State::Warn);
    assert_eq!(state("ctr.devchar", &node(1, &with_links)), State::Pass);
    assert_eq!(
        state(
            "ctr.devchar",
            &node(
                1,
                &[
                    ("/etc/containerd/config.toml", "SystemdCgroup = true\n"),
                    ("/dev", "UNREADABLE:Permission denied")
                ]
            )
        ),
        State::Unknown
    );
    let hook = [
        ("/etc/enroot/enroot.conf", "ENROOT_RUNTIME_PATH /run/enroot\n"),
        ("/etc/enroot/hooks.d", "DIR:99-mellanox.sh"),
        ("/sys/class/infiniband_cm", "MISSING"),
    ];
    assert_eq!(state("enroot.pyxis", &node(0, &hook)), State::Warn);
    assert_eq!(
        state(
            "enroot.pyxis",
            &node(0, &[("/etc/enroot/enroot.conf", "x\n"), ("/etc/enroot/hooks.d", "DIR:")])
        ),
        State::Pass
    );
    assert_eq!(
        state(
            "enroot.pyxis",
            &node(0, &[("/etc/enroot/enroot.conf", "MISSING"), ("/etc/enroot/hooks.d", "MISSING")])
        ),
        State::NotApplicable
    );
}

#[test]
fn slurm_and_kubelet() {
    let conf = |extra: &str| format!("ClusterName=c\nGresTypes=gpu\nNodeName=n17 Gres=gpu:2\n{extra}");
    let s = |extra: &str, cgroup: &str| {
        node(2, &[("/etc/slurm/slurm.conf", &conf(extra)), ("/etc/slurm/cgroup.conf", cgroup)])
    };
    assert_eq!(state("slurm.unkillable", &s("", "ConstrainDevices=yes\n")), State::Warn);
    assert_eq!(state("slurm.unkillable", &s("UnkillableStepTimeout=180\n", "")), State::Pass);
    assert_eq!(
        state("slurm.unkillable", &node(0, &[("/etc/slurm/slurm.conf", "MISSING")])),
        State::NotApplicable
    );
    assert_eq!(state("slurm.unkillable", &node(0, &[])), State::Unknown);
    assert_eq!(state("slurm.gpu.config", &s("", "ConstrainRAMSpace=yes\n")), State::Warn);
    assert_eq!(state("slurm.gpu.config", &s("", "ConstrainDevices=yes\n")), State::Pass);
    let three = node(
        3,
        &[("/etc/slurm/slurm.conf", &conf("")), ("/etc/slurm/cgroup.conf", "ConstrainDevices=yes\n")],
    );
    assert_eq!(state("slurm.gpu.config", &three), State::Warn, "GRES 2, 3 GPUs on the bus");
    assert_eq!(state("slurm.failure.handling", &s("", "")), State::Info);
    assert_eq!(
        state("slurm.failure.handling", &s("HealthCheckProgram=/usr/sbin/nhc\nKillOnBadExit=1\n", "")),
        State::Pass
    );
    let numa = |n: &str| {
        node(
            2,
            &[
                ("/var/lib/kubelet/config.yaml", "topologyManagerPolicy: single-numa-node\n"),
                ("/sys/bus/pci/devices/0000:17:00.0/numa_node", "0\n"),
                ("/sys/bus/pci/devices/0000:18:00.0/numa_node", n),
            ],
        )
    };
    assert_eq!(state("k8s.topology", &numa("1\n")), State::Warn);
    assert_eq!(state("k8s.topology", &numa("0\n")), State::Pass);
    assert_eq!(
        state("k8s.topology", &node(2, &[("/var/lib/kubelet/config.yaml", "UNREADABLE:Permission denied")])),
        State::Unknown
    );
}

#[test]
fn there_are_at_least_thirty_checks_with_unique_ids_and_every_one_cites_its_cases() {
    let checks = all();
    assert!(checks.len() >= 30, "{} checks", checks.len());
    let mut ids: Vec<&str> = checks.iter().map(|c| c.id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), checks.len());
    let problems = crate::doctor::validate_rules(
        crate::doctor::rules::BUNDLED_PATH,
        crate::doctor::rules::BUNDLED,
        &|id| {
            crate::corpus::bundled::CASES
                .iter()
                .any(|(path, _)| path.trim_start_matches("data/cases/").trim_end_matches(".toml") == id)
        },
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn container_toolkit_versions() {
    let status =
        |v: &str| format!("Package: nvidia-container-toolkit\nStatus: install ok installed\nVersion: {v}\n");
    let old = status("1.14.6-1");
    let v3 = node(
        1,
        &[("/etc/containerd/config.toml", "version = 3\n[plugins.nvidia]\n"), ("/var/lib/dpkg/status", &old)],
    );
    assert_eq!(state("ctr.runtime", &v3), State::Warn, "an old toolkit under containerd config version 3");
    let v2 = node(
        1,
        &[("/etc/containerd/config.toml", "version = 2\n[plugins.nvidia]\n"), ("/var/lib/dpkg/status", &old)],
    );
    assert_eq!(state("ctr.runtime", &v2), State::Pass);
    let compat = node(
        1,
        &[
            ("/etc/docker/daemon.json", "{\"runtimes\": {\"nvidia\": {}}}\n"),
            ("/var/lib/dpkg/status", &status("1.17.4-1")),
        ],
    );
    assert_eq!(state("ctr.runtime", &compat), State::Info);
}

#[test]
fn what_could_not_be_read_is_unknown_never_pass() {
    let denied = "UNREADABLE:Permission denied";
    assert_eq!(state("ib.port", &node(0, &[("/sys/class/infiniband", denied)])), State::Unknown);
    assert_eq!(state("rdma.netconf", &node(0, &[("/sys/class/infiniband", denied)])), State::Unknown);
    assert_eq!(
        state(
            "socket.ifname",
            &with_env(node(0, &[("/sys/class/net", denied)]), "NCCL_SOCKET_IFNAME", "eth0")
        ),
        State::Unknown
    );
    assert_eq!(
        state(
            "socket.ifname",
            &with_env(node(0, &[("/sys/class/net", denied)]), "GLOO_SOCKET_IFNAME", "^lo")
        ),
        State::Crit,
        "a bad form needs no listing"
    );
    let sp = "/venv/lib/python3.11/site-packages";
    assert_eq!(state("pypkg.known.bad", &node(0, &[(sp, denied)])), State::Unknown);
    assert_eq!(state("nccl.stack.version", &node(0, &[(sp, denied)])), State::Unknown);
    assert_eq!(
        state(
            "ctr.runtime",
            &node(1, &[("/etc/docker/daemon.json", denied), ("/etc/containerd/config.toml", "MISSING")])
        ),
        State::Unknown
    );
    assert_eq!(
        state(
            "enroot.pyxis",
            &node(0, &[("/etc/enroot/enroot.conf", denied), ("/etc/enroot/hooks.d", "DIR:")])
        ),
        State::Unknown
    );
    for id in ["slurm.unkillable", "slurm.gpu.config", "slurm.failure.handling"] {
        assert_eq!(state(id, &node(0, &[("/etc/slurm/slurm.conf", denied)])), State::Unknown, "{id}");
    }
}
