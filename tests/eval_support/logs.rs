//! Whole job logs for the triage evaluation, generated at test time: a realistic noisy log of
//! ten thousand lines or more (a torchrun banner, NCCL start-up lines from every rank, Python
//! warnings, step lines, progress bars, checkpoint saves, a `dmesg`, kubectl and controller output)
//! with one real failure buried at a chosen place, after which the job goes on logging as real
//! jobs do (other ranks, the launcher, the scheduler cleaning up).
//!
//! Every failure is written as the programs print it (PyTorch, NCCL, the NVIDIA driver, the
//! kernel, Slurm, Kubernetes, Docker, the Hugging Face libraries), never copied from a case's
//! text, and each names the cases a person would want to read for it.

// Shared by the eval test, the triage bench and the budget example; each uses a part.
#![allow(dead_code)]

/// A failure and the cases that answer it.
pub struct Scenario {
    /// A short name for reports.
    pub name: &'static str,
    /// The lines the failure prints (`{rank}`, `{pid}`, `{host}` are filled in).
    pub lines: &'static [&'static str],
    /// How many ranks print it (1: only one process).
    pub ranks: u32,
    /// Cases that answer it; a hit is any of them.
    pub expect: &'static [&'static str],
    /// Filters ("Kind: Value") a person reading the failure lines would accept besides the
    /// values the expected cases carry: only what the lines themselves show (the training
    /// process died: *Training job failure*; Slurm killed the tasks: *Job scheduler*; an Xid
    /// names the GPU: *GPU*). Written from the failure, not from what incidex suggests.
    pub accept: &'static [&'static str],
    /// What kind of job the noise comes from.
    pub job: Job,
}

/// The job around the failure, which decides the noise.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Job {
    /// torchrun on Slurm, 8 nodes × 8 GPUs, with a dmesg appended by the epilog.
    Slurm,
    /// A PyTorchJob on Kubernetes, with kubectl and controller output.
    Kubernetes,
    /// A single node in Docker.
    Docker,
}

/// A small deterministic generator (xorshift), so every run writes the same logs.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    /// The next number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// The failures: one log each.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "dataloader bus error",
        job: Job::Docker,
        ranks: 1,
        lines: &[
            "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).",
            "Traceback (most recent call last):",
            "  File \"/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py\", line 1133, in _try_get_data",
            "    data = self._data_queue.get(timeout=timeout)",
            "  File \"/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/signal_handling.py\", line 66, in handler",
            "    _error_if_any_worker_fails()",
            "RuntimeError: DataLoader worker (pid {pid}) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
        ],
        expect: &["2018-02-pytorch-dataloader-bus-error-small-docker-shm"],
        accept: &[],
    },
    Scenario {
        name: "NCCL init out of memory",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "{host}:{pid}:{pid} [{rank}] include/alloc.h:124 NCCL WARN Cuda failure 'out of memory'",
            "{host}:{pid}:{pid} [{rank}] NCCL INFO init.cc:1331 -> 1",
            "Traceback (most recent call last):",
            "  File \"/workspace/train.py\", line 88, in <module>",
            "    dist.barrier()",
            "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5",
            "ncclUnhandledCudaError: Call to CUDA function failed.",
            "Last error:",
            "Cuda failure 'out of memory'",
        ],
        expect: &[
            "2021-10-nccl-oom-in-one-init-thread-deadlocks-group-init",
            "2023-11-jax-toolbox-nccl-nvls-communicator-init-oom",
            "2020-11-jax-nccl-oom-2080ti-preallocation-unhandled-system-error",
            "2025-12-slime-nccl-calloc-oom-torch-cache-holds-memory",
        ],
        accept: &[],
    },
    Scenario {
        name: "Lustre short write on checkpoint",
        job: Job::Slurm,
        ranks: 4,
        lines: &[
            "[rank{rank}]: Traceback (most recent call last):",
            "[rank{rank}]:   File \"/opt/conda/lib/python3.11/site-packages/torch/distributed/checkpoint/filesystem.py\", line 343, in _write_files_from_queue",
            "[rank{rank}]:     stream.write(data)",
            "[rank{rank}]: OSError: [Errno 14] Bad address",
            "[rank{rank}]: RuntimeError: short write: wrote 1879048192 of 2147479552 bytes to /lustre/fs1/ckpt/step_24000/__{rank}_0.distcp",
        ],
        expect: &[
            "2026-09-mlite-dcp-checkpoint-lustre-short-write-efault",
            "2022-11-metaseq-nfs-checkpoint-save-errno-14-bad-address",
        ],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "GPU fell off the bus",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "[1823443.551201] NVRM: GPU at PCI:0000:b3:00: GPU-8f3c2a1e-77b0-4c1d-9a0e-1f2d3c4b5a69",
            "[1823443.551207] NVRM: Xid (PCI:0000:b3:00): 79, pid={pid}, name=python, GPU has fallen off the bus.",
            "[1823443.551210] NVRM: GPU 0000:b3:00.0: GPU has fallen off the bus.",
            "[rank{rank}]: RuntimeError: CUDA error: unspecified launch failure",
        ],
        expect: &[
            "2026-07-rtx-5080-random-xid-79-fault-follows-card",
            "2024-01-returnn-training-hang-pcie-aer-timeouts-gpu-unreachable",
            "2026-08-rtx-pro-6000-pcie-link-speed-flapping-locked-at-gen2",
        ],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "row remap failure",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "[992811.104455] NVRM: Xid (PCI:0000:4d:00): 64, pid='<unknown>', name=<unknown>, Row Remapper Error: New row marked for remapping, reset gpu to activate.",
            "[992811.104460] NVRM: Xid (PCI:0000:4d:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x0000000000a1c3e0) marked for remapping, reset gpu to activate.",
            "[rank{rank}]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
        ],
        expect: &[
            "2023-05-idefics-80b-xid-64-node-back-in-pool-divergence",
            "2021-11-opt-175b-40-restarts-ecc-errors-no-buffer-nodes",
        ],
        accept: &[],
    },
    Scenario {
        name: "NCCL watchdog timeout",
        job: Job::Slurm,
        ranks: 64,
        lines: &[
            "[rank{rank}]:[E ProcessGroupNCCL.cpp:563] [Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600047 milliseconds before timing out.",
            "[rank{rank}]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank {rank}] Timeout at NCCL work: 88213, last enqueued NCCL work: 88213, last completed NCCL work: 88212.",
            "[rank{rank}]:[E ProcessGroupNCCL.cpp:577] [Rank {rank}] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
        ],
        expect: &[
            "2020-10-pytorch-ddp-nccl-hangs-async-error-handling-watchdog",
            "2023-05-pytorch-nccl-watchdog-stuck-after-rank-death",
            "2026-05-autocast-rank0-only-save-checkpoint-watchdog-timeout",
            "2021-01-pytorch-ddp-oom-one-rank-others-stuck-blocking-wait-slow",
            "2026-08-bergson-ekfac-rank0-eigendecomposition-watchdog-timeout",
            "2026-05-goodfire-144gpu-first-checkpoint-rank0-assembly-new-group-timeout",
        ],
        accept: &[],
    },
    Scenario {
        name: "OOM gathering the full state dict to save",
        job: Job::Slurm,
        ranks: 8,
        lines: &[
            "[rank{rank}]: Traceback (most recent call last):",
            "[rank{rank}]:   File \"/opt/conda/lib/python3.10/site-packages/torch/distributed/fsdp/_state_dict_utils.py\", line 309, in _full_post_state_dict_hook",
            "[rank{rank}]:     state_dict[fqn] = state_dict[fqn].clone()",
            "[rank{rank}]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 5.86 GiB. GPU {rank} has a total capacity of 79.15 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 78.12 GiB memory in use.",
        ],
        expect: &["2023-03-fsdp-full-state-dict-save-cuda-oom-after-training"],
        accept: &[],
    },
    Scenario {
        name: "host OOM killer on data loader workers",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "[ 5512.882013] python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0",
            "[ 5512.882190] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/uid_1000/job_81234,task=pt_data_worker,pid={pid},uid=1000",
            "[ 5512.882233] Memory cgroup out of memory: Killed process {pid} (pt_data_worker) total-vm:61239812kB, anon-rss:48127340kB, file-rss:0kB, shmem-rss:0kB",
            "slurmstepd: error: Detected 1 oom_kill event in StepId=81234.0. Some of the step tasks have been OOM Killed.",
            "RuntimeError: DataLoader worker (pid(s) {pid}) exited unexpectedly",
        ],
        expect: &[
            "2018-03-pytorch-dataloader-workers-copy-on-access-ram-growth",
            "2024-04-pytorch-2-1-dataloader-workers-4x-host-memory-oomkilled",
            "2021-08-referit3d-dataloader-shared-dict-ram-growth",
            "2021-07-pytorch-persistent-workers-ram-jump-between-epochs",
        ],
        accept: &[],
    },
    Scenario {
        name: "pod OOMKilled, exit 137",
        job: Job::Kubernetes,
        ranks: 1,
        lines: &[
            "pytorchjob-llm-worker-3   0/1     OOMKilled   2 (40s ago)   51m",
            "    State:          Terminated",
            "      Reason:       OOMKilled",
            "      Exit Code:    137",
            "  Warning  BackOff    12s (x4 over 2m)   kubelet  Back-off restarting failed container pytorch in pod pytorchjob-llm-worker-3_ml(5f2c)",
        ],
        expect: &[
            "2024-04-pytorch-2-1-dataloader-workers-4x-host-memory-oomkilled",
            "2018-03-pytorch-dataloader-workers-copy-on-access-ram-growth",
            "2024-07-cloudwatch-addon-dcgm-exporter-250mi-oom-p4d",
            "2023-07-hf-fsdp-every-rank-loads-full-model-cpu-ram-oom",
        ],
        accept: &[],
    },
    Scenario {
        name: "stale file handle in the Triton cache",
        job: Job::Slurm,
        ranks: 2,
        lines: &[
            "[rank{rank}]: Traceback (most recent call last):",
            "[rank{rank}]:   File \"/usr/lib/python3/dist-packages/triton/runtime/cache.py\", line 123, in put",
            "[rank{rank}]:     os.replace(temp_path, filepath)",
            "[rank{rank}]: OSError: [Errno 116] Stale file handle: '/home/user/.triton/cache/7c1f0e/matmul_kernel.cubin'",
        ],
        expect: &[
            "2026-04-prime-rl-triton-cache-nfs-stale-file-handle-watchdog-hang",
            "2026-05-opendatahub-multinode-triton-cache-nfs-pvc-stale-file-handle",
            "2024-03-deepspeed-triton-autotune-cache-nfs-hang-at-exit",
        ],
        accept: &[],
    },
    Scenario {
        name: "S3 SlowDown while reading shards",
        job: Job::Kubernetes,
        ranks: 1,
        lines: &[
            "botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the GetObject operation (reached max retries: 4): Please reduce your request rate.",
            "ERROR:datatrove:Failed to read s3://commoncrawl/crawl-data/CC-MAIN-2024-10/segments/1707947473347.0/warc/part-00412.warc.gz",
        ],
        expect: &["2024-11-datatrove-commoncrawl-s3-slowdown-shared-bucket"],
        accept: &[],
    },
    Scenario {
        name: "Hub 5xx while streaming",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "huggingface_hub.utils._errors.HfHubHTTPError: 502 Server Error: Bad Gateway for url: https://huggingface.co/datasets/allenai/c4/resolve/1588ec4/en/c4-train.00871-of-01024.json.gz",
            "Traceback (most recent call last):",
            "  File \"/opt/venv/lib/python3.10/site-packages/datasets/iterable_dataset.py\", line 1384, in __iter__",
            "    for key, example in ex_iterable:",
            "aiohttp.client_exceptions.ClientResponseError: 502, message='Bad Gateway', url='https://huggingface.co/datasets/allenai/c4/resolve/main/en/c4-train.00871-of-01024.json.gz'",
        ],
        expect: &["2023-11-hf-datasets-streaming-hub-errors-kill-training-runs"],
        accept: &[],
    },
    Scenario {
        name: "EFA cannot register memory",
        job: Job::Slurm,
        ranks: 16,
        lines: &[
            "{host}:{pid}:{pid} [{rank}] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)",
            "{host}:{pid}:{pid} [{rank}] nccl_net_ofi_rdma_regMr:1216 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument",
            "{host}:{pid}:{pid} [{rank}] NCCL INFO transport/net.cc:827 -> 2",
            "[rank{rank}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3",
        ],
        expect: &["2024-09-nccl-2-19-old-efa-libfabric-unable-to-register-memory"],
        accept: &[],
    },
    Scenario {
        name: "RoCE completion error 12",
        job: Job::Slurm,
        ranks: 8,
        lines: &[
            "{host}:{pid}:{pid} [{rank}] transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer 10.12.0.{rank} with error 12, opcode 0, len 0, vendor err 129 (Recv) localGid ::ffff:10.12.0.7 remoteGid ::ffff:10.12.0.{rank}",
            "{host}:{pid}:{pid} [{rank}] NCCL INFO transport/net.cc:1134 -> 6",
            "[rank{rank}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, NCCL version 2.18.5",
        ],
        expect: &[
            "2022-07-nccl-roce-error-12-at-start-default-gid-not-routable-across-switches",
            "2020-11-nccl-roce-gid-table-change-training-hang",
        ],
        accept: &[],
    },
    Scenario {
        name: "rendezvous host name does not resolve",
        job: Job::Kubernetes,
        ranks: 4,
        lines: &[
            "[W socket.cpp:663] [c10d] The client socket has failed to connect to [llm-master-0.llm.ml.svc]:29500 (errno: 22 - Invalid argument).",
            "torch.distributed.DistNetworkError: The client socket has failed to connect to any network address of (llm-master-0.llm.ml.svc, 29500). The client socket has timed out after 900s while trying to connect to (llm-master-0.llm.ml.svc, 29500).",
            "[E socket.cpp:957] [c10d] The client socket has timed out after 900s while trying to connect to (llm-master-0.llm.ml.svc, 29500).",
            "socket.gaierror: [Errno -2] Name or service not known",
        ],
        expect: &[
            "2022-03-pytorch-tcpstore-k8s-dns-not-yet-resolvable-fatal",
            "2025-04-torchrun-c10d-rendezvous-unresolvable-getfqdn-hang",
            "2024-11-torchelastic-dynamic-rendezvous-tcpstore-wrong-host-timeout",
        ],
        accept: &[],
    },
    Scenario {
        name: "driver and library version mismatch",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "Failed to initialize NVML: Driver/library version mismatch",
            "NVML library version: 550.90",
            "[rank{rank}]: RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display driver / cuda driver combination",
        ],
        expect: &[
            "2021-04-slurm-gpu-node-unattended-upgrade-nvml-version-mismatch",
            "2026-02-vllm-image-cuda-compat-ldconfig-error-803-newer-driver",
        ],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "container needs a newer driver",
        job: Job::Docker,
        ranks: 1,
        lines: &[
            "ERROR: This container was built for NVIDIA Driver Release 560.28 or later, but",
            "       version 535.183.01 was detected and compatibility mode is UNAVAILABLE.",
            "RuntimeError: The NVIDIA driver on your system is too old (found version 12020). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx",
            "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version",
        ],
        expect: &[
            "2019-10-nvidia-ssd-container-cuda-driver-insufficient-error-35",
            "2024-11-horde-worker-container-cuda-12-4-error-804-old-host-driver",
            "2026-07-viame-vertex-ai-compat-first-ld-library-path-driver-mismatch",
        ],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "containers lose their GPUs",
        job: Job::Kubernetes,
        ranks: 1,
        lines: &[
            "Failed to initialize NVML: Unknown Error",
            "[rank{rank}]: RuntimeError: CUDA error: no CUDA-capable device is detected",
            "  Warning  Unhealthy  3m (x12 over 1h)  kubelet  Liveness probe failed: nvidia-smi exited with 255",
        ],
        expect: &["2023-02-containers-lose-gpus-nvml-unknown-error-systemd-reload"],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "docker cannot select the GPU driver",
        job: Job::Docker,
        ranks: 1,
        lines: &[
            "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
            "ERRO[0000] error waiting for container: context canceled",
        ],
        expect: &["2022-05-docker-gpus-all-could-not-select-device-driver-toolkit-missing"],
        accept: &[],
    },
    Scenario {
        name: "pyxis image import fills /run",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "pyxis: importing docker image: nvcr.io#nvidia/pytorch:24.05-py3",
            "slurmstepd: error: pyxis: child {pid} failed with error code: 1",
            "slurmstepd: error: pyxis: failed to import docker image",
            "slurmstepd: error: pyxis: printing enroot log file:",
            "slurmstepd: error: pyxis:     Write failed because No space left on device",
            "slurmstepd: error: pyxis:     FATAL ERROR: Failed to write to output filesystem",
            "slurmstepd: error: spank: required plugin spank_pyxis.so: task_init() failed with rc=-1",
        ],
        expect: &["2021-03-pyxis-squashfs-fills-run-tmpfs-large-image"],
        accept: &[],
    },
    Scenario {
        name: "node drained, kill task failed",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "slurmstepd: error: *** JOB 81234 STEPD TERMINATED ON gpu-a17 AT 2026-11-30T03:12:44 DUE TO JOB NOT ENDING WITH SIGNALS ***",
            "srun: error: gpu-a17: task 3: Killed",
            "$ sinfo -R",
            "REASON               USER      TIMESTAMP           NODELIST",
            "Kill task failed     slurm     2026-11-30T03:12:44 gpu-a17",
        ],
        expect: &[
            "2019-11-slurm-unkillablesteptimeout-60s-drains-nodes-kill-task-failed",
            "2024-02-hyperpod-nodes-drain-pyxis-epilog-enroot-permission",
        ],
        accept: &[],
    },
    Scenario {
        name: "nested srun waits for busy nodes",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "srun: Job 81234 step creation temporarily disabled, retrying (Requested nodes are busy)",
            "srun: Job 81234 step creation still disabled, retrying (Requested nodes are busy)",
        ],
        expect: &["2025-04-slurm-srun-step-creation-disabled-requested-nodes-busy"],
        accept: &[],
    },
    Scenario {
        name: "torch 2.6 weights_only load",
        job: Job::Slurm,
        ranks: 8,
        lines: &[
            "[rank{rank}]: _pickle.UnpicklingError: Weights only load failed. This file can still be loaded, to do so you have two options, do those steps only if you trust the source of the checkpoint.",
            "[rank{rank}]: \t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but it can result in arbitrary code execution.",
            "[rank{rank}]: \tWeightsUnpickler error: Unsupported global: GLOBAL argparse.Namespace was not an allowed global by default.",
        ],
        expect: &[
            "2025-02-megatron-torch-2-6-weights-only-checkpoint-load-fails",
            "2024-11-transformers-trainer-resume-fails-torch-2-6-rng-state-safe-globals",
        ],
        accept: &[],
    },
    Scenario {
        name: "compiled model keys on resume",
        job: Job::Docker,
        ranks: 1,
        lines: &[
            "RuntimeError: Error(s) in loading state_dict for GPT:",
            "\tMissing key(s) in state_dict: \"transformer.wte.weight\", \"transformer.wpe.weight\", \"transformer.h.0.ln_1.weight\".",
            "\tUnexpected key(s) in state_dict: \"_orig_mod.transformer.wte.weight\", \"_orig_mod.transformer.wpe.weight\", \"_orig_mod.transformer.h.0.ln_1.weight\".",
        ],
        expect: &["2023-05-torch-compile-orig-mod-prefix-checkpoint-keys-resume-fails"],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "truncated checkpoint on resume",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "Restoring states from the checkpoint path at /scratch/run7/checkpoints/last.ckpt",
            "Traceback (most recent call last):",
            "  File \"/opt/conda/lib/python3.9/site-packages/torch/serialization.py\", line 1028, in load",
            "    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)",
            "RuntimeError: unexpected EOF, expected 5124913 more bytes. The file might be corrupted.",
        ],
        expect: &[
            "2020-01-lightning-non-atomic-checkpoint-truncated-unexpected-eof",
            "2026-07-speculators-truncated-checkpoint-resume-needs-manual-delete",
        ],
        accept: &[],
    },
    Scenario {
        name: "PCIe AER timeouts",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "[88123.100221] pcieport 0000:80:01.1: AER: Uncorrected (Non-Fatal) error received: 0000:81:00.0",
            "[88123.100230] nvidia 0000:81:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer, (Requester ID)",
            "[88123.100233] nvidia 0000:81:00.0: AER:   device [10de:2330] error status/mask=00004000/00000000",
            "[88123.100236] nvidia 0000:81:00.0: AER:    [14] CmpltTO                (First)",
            "Unable to determine the device handle for GPU0000:81:00.0: Unknown Error",
        ],
        expect: &["2024-01-returnn-training-hang-pcie-aer-timeouts-gpu-unreachable"],
        accept: &[],
    },
    Scenario {
        name: "NVLS invalid argument after fabric manager restart",
        job: Job::Slurm,
        ranks: 8,
        lines: &[
            "{host}:{pid}:{pid} [{rank}] transport/nvls.cc:158 NCCL WARN Cuda failure 1 'invalid argument'",
            "{host}:{pid}:{pid} [{rank}] NCCL INFO transport/nvls.cc:360 -> 1",
            "[rank{rank}]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2027, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5",
        ],
        expect: &[
            "2024-10-nccl-nvls-invalid-argument-after-fabric-manager-restart",
            "2025-01-h200-repeated-fabric-manager-failures-nccl-errors",
        ],
        accept: &[],
    },
    Scenario {
        name: "kubelet refuses GPU pods",
        job: Job::Kubernetes,
        ranks: 1,
        lines: &[
            "pytorchjob-llm-worker-5   0/1     UnexpectedAdmissionError   0          14s",
            "  Warning  UnexpectedAdmissionError  14s  kubelet  Allocate failed due to requested number of devices unavailable for nvidia.com/gpu. Requested: 8, Available: 0, which is unexpected",
        ],
        expect: &["2025-02-kubelet-stale-device-allocation-unexpectedadmissionerror-gpu"],
        accept: &[],
    },
    Scenario {
        name: "KV cache too small for the context",
        job: Job::Kubernetes,
        ranks: 1,
        lines: &[
            "INFO 03-11 09:14:02 gpu_executor.py:83] # GPU blocks: 1911, # CPU blocks: 2048",
            "ERROR 03-11 09:14:02 engine.py:364] ValueError: The model's max seq len (32768) is larger than the maximum number of tokens that can be stored in KV cache (30576). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
        ],
        expect: &["2024-04-qwen1-5-vllm-32k-max-seq-len-exceeds-kv-cache"],
        accept: &[],
    },
    Scenario {
        name: "NCCL shared memory in a container",
        job: Job::Docker,
        ranks: 2,
        lines: &[
            "{host}:{pid}:{pid} [{rank}] include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device",
            "{host}:{pid}:{pid} [{rank}] NCCL INFO include/shm.h:41 -> 2",
            "{host}:{pid}:{pid} [{rank}] include/shm.h:48 NCCL WARN Error while creating shared memory segment nccl-shm-recv-7f1c2a (size 9637888)",
            "RuntimeError: NCCL error in: /opt/pytorch/pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8",
        ],
        expect: &[
            "2020-06-nccl-2-7-docker-default-shm-posix-fallocate-failed",
            "2026-04-pytorch-ci-k8s-runner-pods-nccl-shm-no-space",
        ],
        accept: &[],
    },
    Scenario {
        name: "cuBLAS cannot start",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "Traceback (most recent call last):",
            "  File \"/opt/venv/lib/python3.10/site-packages/lm_eval/models/huggingface.py\", line 1108, in _model_call",
            "    return self.model(inps).logits",
            "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling `cublasCreate(handle)`",
        ],
        expect: &["2024-04-lm-eval-cublas-not-initialized-masks-gpu-oom"],
        accept: &["Symptom: Training job failure"],
    },
    Scenario {
        name: "GSP RPC timeouts",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "[ 412.991337] NVRM: Xid (PCI:0000:0f:00): 119, pid=2212, name=nvidia-smi, Timeout after 6s of waiting for RPC response from GPU3 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x4).",
            "[ 418.991502] NVRM: GPU3 GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data 0x0000000020801348 0x0000000000000004.",
            "[ 418.991510] NVRM: rm_init_adapter failed, device minor number 3",
        ],
        expect: &["2023-03-azure-hpc-gsp-rpc-timeout-xid-119-nhc-hangs-drains-nodes"],
        accept: &["Component: GPU"],
    },
    Scenario {
        name: "Lustre full: checkpoint ENOSPC",
        job: Job::Slurm,
        ranks: 1,
        lines: &[
            "[rank{rank}]: OSError: [Errno 28] No space left on device: '/fsx/checkpoints/llama-70b/step_12000/model-00011-of-00030.safetensors'",
            "[rank{rank}]: torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys([{rank}])",
        ],
        expect: &[
            "2026-08-fsx-lustre-90pct-full-enospc-checkpoint-save-per-ost",
            "2024-01-ibm-fms-fsdp-lustre-full-checkpoints-failed-over-winter-break",
        ],
        accept: &[],
    },
    // Added with the learned facet model (issue 30), before its thresholds were set: failures
    // that name the situation in the program's own words, not the taxonomy's.
    Scenario {
        name: "torch_dist save, then the OOM killer on several nodes",
        job: Job::Slurm,
        ranks: 4,
        lines: &[
            "saving checkpoint at iteration    2000 to /lustre/fs1/ckpt/glm in torch_dist format",
            "slurmstepd: error: Detected 1 oom_kill event in StepId=4471203.0. Some of the step tasks have been OOM Killed.",
            "srun: error: {host}: task {rank}: Out Of Memory",
        ],
        expect: &["2026-07-megatron-glm-744b-first-torch-dist-save-host-oom-gb300"],
        accept: &["Component: Job scheduler"],
    },
    Scenario {
        name: "device plugin marks a GPU unhealthy",
        job: Job::Kubernetes,
        ranks: 1,
        lines: &[
            "I1130 03:12:41.372019       1 health.go:150] XidCriticalError: Xid=94 on Device=GPU-5b0c7e12-9a4d-4f7e-8c1b-2d3e4f5a6b7c; marking device as unhealthy.",
            "I1130 03:12:41.372101       1 server.go:276] 'nvidia.com/gpu' device marked unhealthy: GPU-5b0c7e12-9a4d-4f7e-8c1b-2d3e4f5a6b7c",
            "Capacity:    nvidia.com/gpu: 8",
            "Allocatable: nvidia.com/gpu: 7",
        ],
        expect: &["2024-10-device-plugin-gpu-stays-unhealthy-after-xid-allocatable-7"],
        accept: &[],
    },
];

/// Where the failure goes in the log, as a share of its lines: the first tenth, the middle and
/// the end, in turn.
const POSITIONS: [f64; 6] = [0.05, 0.5, 0.93, 0.2, 0.71, 0.99];

/// The log of scenario `n`, at least `min_lines` lines long.
pub fn generate(n: usize, min_lines: usize) -> String {
    let scenario = &SCENARIOS[n];
    let mut rng = Rng::new(n as u64 + 17);
    let position = POSITIONS[n % POSITIONS.len()];
    let mut lines: Vec<String> = Vec::with_capacity(min_lines + 500);
    startup(&mut lines, scenario.job, &mut rng);
    let failure_at = ((min_lines as f64) * position) as usize;
    let mut step = 1u64;
    let mut failed = false;
    while lines.len() < min_lines || !failed {
        if !failed && lines.len() >= failure_at {
            failure(&mut lines, scenario, &mut rng);
            failed = true;
            // The job goes on logging: other ranks finish their steps, the launcher cleans up.
            aftermath(&mut lines, scenario.job, &mut rng);
            continue;
        }
        noise(&mut lines, scenario.job, step, &mut rng);
        step += 1;
    }
    if scenario.job == Job::Slurm {
        dmesg(&mut lines, &mut rng);
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

fn host(rng: &mut Rng) -> String {
    format!("gpu-{}{:02}", ["a", "b", "c", "d"][rng.below(4) as usize], rng.below(32))
}

fn fill(line: &str, rank: u32, rng: &mut Rng) -> String {
    line.replace("{rank}", &rank.to_string())
        .replace("{pid}", &(20_000 + rng.below(40_000)).to_string())
        .replace("{host}", &host(rng))
}

fn startup(lines: &mut Vec<String>, job: Job, rng: &mut Rng) {
    match job {
        Job::Slurm => {
            lines.push("+ srun --label --container-image=nvcr.io#nvidia/pytorch:24.05-py3 torchrun --nnodes 8 --nproc-per-node 8 --rdzv-backend c10d --rdzv-endpoint gpu-a00:29500 train.py".into());
        }
        Job::Kubernetes => {
            lines.push("$ kubectl -n ml get pods -l training.kubeflow.org/job-name=pytorchjob-llm".into());
            lines.push("NAME                       READY   STATUS    RESTARTS   AGE".into());
            for w in 0..8 {
                lines.push(format!("pytorchjob-llm-worker-{w}   1/1     Running   0          {}m", 3 + w));
            }
            for w in 0..8 {
                lines.push(format!("  Normal   Scheduled  5m    default-scheduler  Successfully assigned ml/pytorchjob-llm-worker-{w} to {}", host(rng)));
                lines.push("  Normal   Pulled     5m    kubelet            Container image \"nvcr.io/nvidia/pytorch:24.05-py3\" already present on machine".to_string());
                lines.push("  Normal   Started    5m    kubelet            Started container pytorch".into());
            }
            lines.push("time=\"2026-11-30T01:00:02Z\" level=info msg=\"Reconciling PyTorchJob\" controller=pytorchjob job=ml/pytorchjob-llm".into());
        }
        Job::Docker => {
            lines.push(
                "$ docker run --gpus all --rm -v /data:/data trainer:latest python train.py --bf16".into(),
            );
            lines.push("=============".into());
            lines.push("== PyTorch ==".into());
            lines.push("NVIDIA Release 24.05 (build 92482212)".into());
            lines.push("PyTorch Version 2.4.0a0+07cecf4".into());
        }
    }
    lines.push("W1130 01:00:04.512000 139912 torch/distributed/run.py:757] ".into());
    lines.push("W1130 01:00:04.512000 139912 torch/distributed/run.py:757] *****************************************".into());
    lines.push("W1130 01:00:04.512000 139912 torch/distributed/run.py:757] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ".into());
    lines.push("W1130 01:00:04.512000 139912 torch/distributed/run.py:757] *****************************************".into());
    let ranks = if job == Job::Docker { 8 } else { 64 };
    for rank in 0..ranks {
        let h = host(rng);
        let pid = 10_000 + rng.below(50_000);
        let dev = rank % 8;
        lines.push(format!(
            "{h}:{pid}:{pid} [{dev}] NCCL INFO Bootstrap : Using eth0:10.12.{}.{}<0>",
            rank / 8,
            10 + rank % 8
        ));
        lines.push(format!(
            "{h}:{pid}:{pid} [{dev}] NCCL INFO NET/Plugin: Loaded net plugin NCCL RDMA Plugin v8 (v8)"
        ));
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO cudaDriverVersion 12040"));
        lines.push("NCCL version 2.21.5+cuda12.4".to_string());
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB ; OOB eth0:10.12.{}.{}<0>", rank / 8, 10 + rank % 8));
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO Using non-device net plugin version 0"));
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO Using network IB"));
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO comm 0x55d0c{:04x} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} busId {:x}000 commId 0x8b3f1e2a9c0d4e55 - Init START", rng.below(65_536), 0x18 + dev * 0x10));
        lines.push(format!(
            "{h}:{pid}:{pid} [{dev}] NCCL INFO NVLS multicast support is available on dev {dev}"
        ));
        lines.push(format!(
            "{h}:{pid}:{pid} [{dev}] NCCL INFO Setting affinity for GPU {dev} to ffffffff,00000000"
        ));
        for channel in 0..4 {
            lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO Channel {channel:02}/0 : {rank}[{dev}] -> {}[{}] via P2P/CUMEM/read", (rank + 1) % ranks, (dev + 1) % 8));
        }
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO Connected all rings"));
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO Connected all trees"));
        lines.push(format!(
            "{h}:{pid}:{pid} [{dev}] NCCL INFO NCCL_WORK_FIFO_DEPTH set by environment to 4194304."
        ));
        lines.push(format!("{h}:{pid}:{pid} [{dev}] NCCL INFO comm 0x55d0c{:04x} rank {rank} nranks {ranks} cudaDev {dev} nvmlDev {dev} busId {:x}000 commId 0x8b3f1e2a9c0d4e55 - Init COMPLETE", rng.below(65_536), 0x18 + dev * 0x10));
        if rank % 8 == 0 {
            lines.push("[W socket.cpp:464] [c10d] The server socket has failed to bind to [::]:29500 (errno: 98 - Address already in use).".to_string());
            lines.push("[W ProcessGroupNCCL.cpp:1856] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())".to_string());
        }
    }
    lines.push("/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed.".into());
    lines.push("  warnings.warn(".into());
    lines
        .push("[2026-11-30 01:00:31,118] [INFO] [config.py:997:print] DeepSpeedEngine configuration:".into());
    lines.push(
        "[2026-11-30 01:00:31,119] [INFO] [config.py:1001:print]   bfloat16_enabled ............. True"
            .into(),
    );
    lines.push(
        "[2026-11-30 01:00:31,119] [INFO] [config.py:1001:print]   zero_optimization_stage ...... 3".into(),
    );
}

fn noise(lines: &mut Vec<String>, job: Job, step: u64, rng: &mut Rng) {
    let rank = rng.below(64);
    let loss = 2.0 + (rng.below(900) as f64) / 1000.0;
    match rng.below(10) {
        0..=4 => lines.push(format!(
            "[rank{rank}]: step {step} | loss {loss:.4} | lr {:.2e} | grad_norm {:.3} | tokens/s {:.2e} | mem 61.{}GB",
            3e-4 * (1.0 - step as f64 / 1e6),
            0.5 + (rng.below(500) as f64) / 1000.0,
            1.1e6 + rng.below(200_000) as f64,
            rng.below(10)
        )),
        5 => lines.push(format!(
            "Epoch {}: {:>3}%|{:<10}| {}/1000 [{:02}:{:02}<{:02}:{:02},  1.45it/s, loss={loss:.2}, v_num=12]",
            step / 1000,
            (step % 1000) / 10,
            "█".repeat(((step % 1000) / 100) as usize),
            step % 1000,
            rng.below(60),
            rng.below(60),
            rng.below(60),
            rng.below(60)
        )),
        6 => lines.push(format!(
            " iteration {step:>8}/  500000 | consumed samples: {:>10} | elapsed time per iteration (ms): {}.{} | learning rate: 2.999E-04 | global batch size:  1024 | lm loss: {loss:.6E} | loss scale: 1.0 | grad norm: 0.{} | number of skipped iterations:   0 | number of nan iterations:   0 |",
            step * 1024,
            800 + rng.below(40),
            rng.below(10),
            rng.below(1000)
        )),
        7 => lines.push(
            "/usr/local/lib/python3.10/dist-packages/torch/_dynamo/eval_frame.py:600: FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead."
                .into(),
        ),
        8 if step % 50 == 0 => {
            lines.push(format!("[2026-11-30 02:{:02}:{:02},511] [INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: /lustre/fs1/ckpt/global_step{step}/mp_rank_00_model_states.pt", rng.below(60), rng.below(60)));
            lines.push(format!("[2026-11-30 02:{:02}:{:02},932] [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step{step} is ready now!", rng.below(60), rng.below(60)));
            lines.push(format!("  successfully saved checkpoint at iteration {step:>8} to /lustre/fs1/ckpt"));
        }
        8 => lines.push(format!("[rank{rank}]: eval step {step}: val_loss {loss:.3} ppl {:.2}", loss.exp())),
        _ => match job {
            Job::Kubernetes => lines.push(format!(
                "time=\"2026-11-30T02:{:02}:{:02}Z\" level=info msg=\"PyTorchJob ml/pytorchjob-llm is running.\" controller=pytorchjob reconcileID={:08x}",
                rng.below(60),
                rng.below(60),
                rng.below(1 << 31)
            )),
            Job::Slurm => lines.push(format!(
                "{}: [rank{rank}] throughput: {:.1} TFLOP/s/GPU | MFU {}.{}%",
                rank / 8,
                380.0 + rng.below(40) as f64,
                38 + rng.below(4),
                rng.below(10)
            )),
            Job::Docker => lines.push(format!("INFO:root:data: shard {} opened, {} samples", rng.below(4096), 10_000 + rng.below(5000))),
        },
    }
}

fn failure(lines: &mut Vec<String>, scenario: &Scenario, rng: &mut Rng) {
    let first = rng.below(64) as u32;
    for r in 0..scenario.ranks {
        let rank = (first + r) % 64;
        for line in scenario.lines {
            lines.push(fill(line, rank, rng));
        }
        // Other ranks keep printing between the failing ones.
        if r % 8 == 7 {
            noise(lines, scenario.job, 0, rng);
        }
    }
}

fn aftermath(lines: &mut Vec<String>, job: Job, rng: &mut Rng) {
    for step in 0..30 {
        noise(lines, job, 90_000 + step, rng);
    }
    let pid = 20_000 + rng.below(40_000);
    for local in 0..8 {
        lines.push(format!("W1130 03:12:40.118000 139912 torch/distributed/elastic/multiprocessing/api.py:858] Sending process {} closing signal SIGTERM", pid + local));
    }
    lines.push("E1130 03:12:41.372000 139912 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 3 (pid: 20331) of binary: /usr/bin/python".into());
    lines.push("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ".into());
    lines.push("============================================================".into());
    lines.push("train.py FAILED".into());
    lines.push("------------------------------------------------------------".into());
    lines.push("  exitcode  : 1 (pid: 20331)".into());
    lines.push("  error_file: <N/A>".into());
    lines.push(
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html".into(),
    );
    lines.push("============================================================".into());
    match job {
        Job::Slurm => {
            lines.push(format!("srun: error: {}: task 3: Exited with exit code 1", host(rng)));
            lines.push("srun: Terminating StepId=81234.0".into());
            lines.push(
                "slurmstepd: error: *** STEP 81234.0 ON gpu-a00 CANCELLED AT 2026-11-30T03:12:43 ***".into(),
            );
        }
        Job::Kubernetes => {
            lines.push("time=\"2026-11-30T03:12:45Z\" level=info msg=\"PyTorchJob ml/pytorchjob-llm is failed because 1 Worker replica(s) failed.\" controller=pytorchjob".into());
            lines.push("  Warning  BackOff    10s   kubelet  Back-off restarting failed container pytorch in pod pytorchjob-llm-worker-1_ml(8c1d)".into());
        }
        Job::Docker => lines.push("container exited with status 1".into()),
    }
}

fn dmesg(lines: &mut Vec<String>, rng: &mut Rng) {
    lines.push("===== epilog: dmesg -T | tail -n 40 =====".into());
    for i in 0..30 {
        let t = 1_000_000 + i * 17 + rng.below(9);
        lines.push(match i % 6 {
            0 => format!("[{t}.{:06}] IPv6: ADDRCONF(NETDEV_CHANGE): ib{}: link becomes ready", rng.below(999_999), i % 4),
            1 => format!("[{t}.{:06}] nvidia-nvlink: Nvlink Core is being initialized, major device number 506", rng.below(999_999)),
            2 => format!("[{t}.{:06}] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024", rng.below(999_999)),
            3 => format!("[{t}.{:06}] audit: type=1400 audit({t}.123:{}): apparmor=\"STATUS\" operation=\"profile_load\" name=\"enroot\" pid={}", rng.below(999_999), rng.below(999), rng.below(99_999)),
            4 => format!("[{t}.{:06}] mlx5_core 0000:{:02x}:00.0: mlx5_fw_tracer_init: FWTracer: Ownership granted and active", rng.below(999_999), 0x18 + i),
            _ => format!("[{t}.{:06}] systemd-journald[812]: /dev/kmsg buffer overrun, some messages lost.", rng.below(999_999)),
        });
    }
}

/// A log of at least `min_lines` lines of a healthy job's noise (no failure), for benchmarks
/// that bury one failing log in a large quiet one.
pub fn generate_quiet(min_lines: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut lines: Vec<String> = Vec::with_capacity(min_lines + 100);
    startup(&mut lines, Job::Slurm, &mut rng);
    let mut step = 1;
    while lines.len() < min_lines {
        noise(&mut lines, Job::Slurm, step, &mut rng);
        step += 1;
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}
