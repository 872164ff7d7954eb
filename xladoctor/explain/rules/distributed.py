"""Many processes: NCCL's results and its "Last error:" (shared memory, sockets, InfiniBand, two ranks on one GPU),
torch.distributed's rendezvous and store, Gloo, watchdog timeouts, a rank the kernel killed."""

from __future__ import annotations

import re
from dataclasses import replace

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, rule, yours
from xladoctor.explain.rules.cuda import FAMILY_OF as CUDA_FAMILIES
from xladoctor.explain.rules.cuda import NOT_SUPPORTED
from xladoctor.fix import export
from xladoctor.matrix.failures import code_saying
from xladoctor.sanitize import scrubbed_head

NCCL_TROUBLESHOOTING = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html"
NCCL_DEBUG = "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET,ENV python ...  # NCCL says which step failed and why"
COLLECTIVE = "xladoctor collective  # one real all_reduce across the job's nodes, with the cause of what fails"


def _shm(detail: str) -> Lead:
    return Lead(
        "Shared memory (/dev/shm) is too small for NCCL's buffers or the DataLoader's workers: a container's /dev/shm "
        f"is 64 MB unless it is started with a larger one ({scrubbed_head(detail.strip(), 160)}). Start it with "
        "--shm-size=16g (or --ipc=host; Kubernetes: an emptyDir with medium: Memory on /dev/shm).",
        {"path": "/dev/shm", "option": "--shm-size"},
        next=("df -h /dev/shm",),
    )


def _from_last_error(detail: str) -> tuple[str, Lead] | None:
    """NCCL's "Last error:" line (or a WARN line) read for its family."""
    lowered = detail.lower()
    # NCCL's shm segments are files in /dev/shm, grown with posix_fallocate: its SYSCHECK says "Call to posix_fallocate
    # failed : No space left on device" without the path (include/shm.h:28 of NCCL 2.9; NVIDIA/nccl#290 and #525,
    # the maintainer: /dev/shm is full)
    if "/dev/shm" in detail or "shared memory" in lowered or "posix_fallocate" in lowered:
        return "nccl-shm", _shm(detail)
    if "duplicate gpu detected" in lowered or "multiple ranks are using the same gpu" in lowered:
        return "nccl-duplicate-gpu", Lead(
            "Two ranks of the job use the same GPU (Duplicate GPU detected): each process must select its own device "
            "(torch.cuda.set_device(local_rank) before init_process_group, or device_id=), and CUDA_VISIBLE_DEVICES "
            "must not hide the others.",
            {"device": "GPU", "fix": "torch.cuda.set_device(local_rank)"},
            verdict="not-environment",
        )
    if "address already in use" in lowered:
        return "nccl-address-in-use", _address_in_use(detail)
    own = _nccl_own_words(detail, lowered)
    if own is not None:
        return own
    if re.search(r"\bibv_|net/ib|\bib\b|infiniband|mlx5|roce|gid index|gpudirect|gdr", lowered):
        return "nccl-infiniband", Lead(
            f"NCCL's InfiniBand/RoCE transport failed ({scrubbed_head(detail.strip(), 160)}): the verbs devices, their "
            "ports or the GID index are not usable from here (a container without the RDMA devices, a down port). "
            "Check the fabric, or run without it: NCCL_IB_DISABLE=1 falls back to sockets.",
            {"variable": "NCCL_IB_DISABLE"},
            export("NCCL_IB_DISABLE", "1", note="only to confirm the cause: sockets are much slower than InfiniBand"),
            next=("ibv_devinfo", NCCL_DEBUG),
        )
    if re.search(
        r"connection refused|no route to host|network is unreachable|connection reset|timed? ?out|socket|connect",
        lowered,
    ):
        return "nccl-network", _network(detail)
    if "cuda failure" in lowered or "cuda error" in lowered:
        said = re.search(r"Cuda failure (?:\d+ )?'(?P<s>[^']+)'|CUDA error:? (?P<t>[^\n]+)", detail)
        text = (said.group("s") or said.group("t")) if said else ""
        code = code_saying(text) if text else None
        if code is not None:
            return _cuda_failure(code.name, code.string or text)
    return None


# NCCL's checks of the arguments of a call (src/misc/argcheck.cc, enqueue.cc): the caller's buffers and ranks, not
# the machine. "%s : %s allocated on device %d mismatchs with NCCL device %d" is NCCL's own spelling.
_WRONG_DEVICE = re.compile(
    r"(?P<op>\w+) : (?P<what>\w+) allocated on device (?P<dev>\d+) mismatchs with NCCL device (?P<nccl>\d+)"
)
_BAD_ROOT = re.compile(r"(?P<op>\w+) : invalid root (?P<root>-?\d+) \(root should be in the 0\.\.(?P<last>\d+) range\)")
_SELF_UNMATCHED = re.compile(r"Trying to (?:send|recv) to self without a matching (?:recv|send)")


def _nccl_call_refused(detail: str) -> tuple[str, Lead] | None:
    """A collective or point-to-point call NCCL refused for its arguments: the calling code's mistake."""
    if (wrong := _WRONG_DEVICE.search(detail)) is not None:
        dev, nccl = wrong.group("dev"), wrong.group("nccl")
        return "user-code-error", Lead(
            f"NCCL's {wrong.group('op')} was given a buffer ({wrong.group('what')}) on GPU {dev}, but this rank's "
            f"communicator runs on GPU {nccl}: the rank made its tensors on another device than the one it set for "
            "its process group (most often every rank on cuda:0, or the device set after the tensors were made). "
            "Set the rank's device first (torch.cuda.set_device(local_rank), or init_process_group(device_id=...)) "
            "and make the tensors on it.",
            {"device": f"GPU {dev}", "nccl_device": f"GPU {nccl}", "fix": "torch.cuda.set_device(local_rank)"},
            verdict="not-environment",
            next=("TORCH_DISTRIBUTED_DEBUG=DETAIL python ...  # which collective, from which line",),
        )
    if (root := _BAD_ROOT.search(detail)) is not None:
        return "user-code-error", Lead(
            f"NCCL's {root.group('op')} was given root rank {root.group('root')}, but the communicator has ranks 0 "
            f"to {root.group('last')}: the src/dst of a broadcast, reduce or gather names a rank outside the group "
            "(a global rank passed to a subgroup's call, or a world size smaller than the code expects).",
            {"what": "root rank", "root": root.group("root")},
            verdict="not-environment",
        )
    if _SELF_UNMATCHED.search(detail):
        return "user-code-error", Lead(
            f"{scrubbed_head(detail.strip(), 160)}: a rank sent to (or received from) itself without the matching "
            "receive (or send) in the same group of calls. Pair them (both inside one batch_isend_irecv / group), or "
            "skip the self transfer.",
            {"what": "send/recv to self"},
            verdict="not-environment",
        )
    return None


# NCCL's bootstrap root gathers one message from every rank (src/bootstrap.cc): two processes claiming one rank, or
# processes launched with different world sizes, are the launch's settings, not the network.
_RANK_TWICE = re.compile(r"Bootstrap Root : rank (?P<rank>\d+) of (?P<n>\d+) ranks has already checked in")
_SIZES_DIFFER = re.compile(r"Bootstrap Root : mismatch in info from procs, nranks (?P<a>\d+) vs (?P<b>\d+)")


def _nccl_launch_mismatch(detail: str) -> tuple[str, Lead] | None:
    if (twice := _RANK_TWICE.search(detail)) is not None:
        return "bad-configuration", Lead(
            f"Two processes joined NCCL's bootstrap as rank {twice.group('rank')} of {twice.group('n')}: the launch "
            "gave two processes the same RANK (a launcher started twice on one node, a per-node rank used as the "
            "global one, a fixed RANK in a script), or two jobs share one rendezvous (the same MASTER_ADDR:MASTER_PORT "
            "or NCCL_COMM_ID). Give each process its own global rank, and each job its own port.",
            {"variable": "RANK", "port": "MASTER_PORT"},
            next=("env | grep -E '^(RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT|NCCL_COMM_ID)='",),
        )
    if (sizes := _SIZES_DIFFER.search(detail)) is not None:
        return "bad-configuration", Lead(
            f"The processes that joined NCCL's bootstrap disagree on the job's size ({sizes.group('a')} ranks against "
            f"{sizes.group('b')}): the nodes were launched with different settings (WORLD_SIZE, --nnodes, "
            "--nproc-per-node), or two jobs share one rendezvous address. Launch every node with the same sizes, and "
            "each job on its own port.",
            {"variable": "WORLD_SIZE", "port": "MASTER_PORT"},
            next=("env | grep -E '^(RANK|LOCAL_RANK|WORLD_SIZE|MASTER_ADDR|MASTER_PORT)='",),
        )
    return None


def _nccl_own_words(detail: str, lowered: str) -> tuple[str, Lead] | None:
    """NCCL's WARN texts that name their cause (src/init.cc, bootstrap.cc, transport/net_socket.cc, mnnvl.cc,
    transport/nvls.cc, graph/paths.cc, transport.cc, include/alloc.h, plugin/net.cc), read before the words they
    share with network failures ("socket", "connect")."""
    said = scrubbed_head(detail.strip(), 200)
    called = _nccl_call_refused(detail) or _nccl_launch_mismatch(detail)
    if called is not None:
        return called
    if "mismatched nccl version" in lowered or "nccl version mismatch with remote peer" in lowered:
        return "version-mismatch", Lead(
            f"The ranks run different NCCL releases ({said}): every node must load the same NCCL (the same torch "
            "build, or the same nvidia-nccl wheel) for the ranks to talk.",
            {"library": "NCCL", "package": "nvidia-nccl"},
            next=("python -c 'import torch; print(torch.cuda.nccl.version())'  # on every node",),
        )
    if any(w in lowered for w in ("nccl library is too old", "not backwards compatible", "too old version of nccl")):
        return "cuda-library-mismatch", Lead(
            f"The NCCL library loaded is not the one the program was built with ({said}): an older libnccl comes "
            "first on the loader's path (LD_LIBRARY_PATH, a system NCCL before the nvidia-nccl wheel). Load the NCCL "
            "it was built for.",
            {"library": "NCCL", "package": "nvidia-nccl"},
            next=("echo $LD_LIBRARY_PATH", "python -m pip list 2>/dev/null | grep -i nccl"),
        )
    if "message truncated" in lowered:
        return "user-code-error", Lead(
            f"One rank sent NCCL more bytes than its peer expected ({said}): the ranks called a collective with "
            "different sizes (or different collectives), or run with different NCCL settings (NCCL_PROTO, "
            "NCCL_ALGO) or releases. Every rank must call the same collectives with the same shapes.",
            {"what": "collective sizes", "variable": "NCCL_PROTO"},
            verdict="not-environment",
            next=("TORCH_DISTRIBUTED_DEBUG=DETAIL python ...  # torch checks that the ranks' collectives match",),
        )
    if "mnnvl" in lowered and "imex" in lowered:
        return "bad-configuration", Lead(
            f"Multi-node NVLink is present but not working ({said}): the IMEX service or its channels "
            "(/dev/nvidia-caps-imex-channels) are not set up on this node. Fix the IMEX configuration, or set "
            "NCCL_MNNVL_ENABLE=0 to go without it.",
            {"variable": "NCCL_MNNVL_ENABLE"},
            export("NCCL_MNNVL_ENABLE", "0", note="only until IMEX works: cross-node NVLink is then not used"),
            next=("nvidia-imex-ctl -N",),
        )
    if "nvlink sharp" in lowered or ("nvls" in lowered and "fabric manager" in lowered):
        return "bad-configuration", Lead(
            f"NCCL could not use NVLink SHARP multicast ({said}): the Fabric Manager or the NVSwitches are not set "
            "up or not running. Fix the Fabric Manager (systemctl status nvidia-fabricmanager), or set "
            "NCCL_NVLS_ENABLE=0.",
            {"variable": "NCCL_NVLS_ENABLE"},
            export("NCCL_NVLS_ENABLE", "0", note="until the Fabric Manager works: NVLS is then not used"),
            next=("systemctl status nvidia-fabricmanager", "nvidia-smi -q | grep -i -A2 fabric"),
        )
    if "p2p is disabled between nvlink connected gpus" in lowered:
        return "bad-configuration", Lead(
            f"Peer-to-peer access is off between GPUs that NVLink connects ({said}): a hardware or driver fault, "
            "or a VM that does not pass P2P through. Have the machine checked (nvidia-smi nvlink -s), or set "
            "NCCL_IGNORE_DISABLED_P2P=1 to go on without it.",
            {"variable": "NCCL_IGNORE_DISABLED_P2P"},
            next=("nvidia-smi nvlink -s", "nvidia-smi topo -m"),
        )
    if "no transport found for rank" in lowered or "invalid nccl_comm_id" in lowered:
        variable = "NCCL_COMM_ID" if "nccl_comm_id" in lowered else "NCCL_P2P_DISABLE"
        return "bad-configuration", Lead(
            f"NCCL's settings leave it no way to reach a peer ({said}): with NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and "
            "no network transport together, or a malformed NCCL_COMM_ID, nothing connects the two ranks. Unset "
            "what disables the transports, or give NCCL_COMM_ID as host:port.",
            {"variable": variable},
            next=("env | grep ^NCCL_", NCCL_DEBUG),
        )
    if re.search(r"mixed local (?:net|collnet) device counts", lowered):  # init.cc: the nodes' NIC counts differ
        return "bad-configuration", Lead(
            f"The nodes do not see the same number of network devices ({said}): one node lacks NICs the others have "
            "(an RDMA device not passed into its container, a port down, NCCL_IB_HCA set differently). Give every "
            "node the same NICs; NCCL_IGNORE_NET_MISMATCH=1 goes on regardless, on the slowest node's terms.",
            {"variable": "NCCL_IGNORE_NET_MISMATCH"},
            next=("ibv_devinfo -l  # on every node", "env | grep ^NCCL_"),
        )
    if "failed to initialize any net plugin" in lowered:
        # plugin/net.cc: none of the plugins NCCL_NET_PLUGIN names, nor the built-in IB and Socket transports,
        # started for the network NCCL_NET asks for
        return "bad-configuration", Lead(
            f"NCCL found no network transport it could start ({said}): NCCL_NET asks for a network this node does not "
            "have (NCCL_NET=IB without InfiniBand devices), the plugin NCCL_NET_PLUGIN names cannot be loaded, or "
            "NCCL_SOCKET_IFNAME matches no interface. Unset or correct them.",
            {"variable": "NCCL_NET"},
            next=("env | grep ^NCCL_", "ip -brief addr", NCCL_DEBUG),
        )
    if (device := re.search(r"invalid device (?P<dev>\d+) \(totalndev=(?P<n>\d+)\)", lowered)) is not None:
        return "bad-configuration", Lead(  # init.cc: a device index past the GPUs this process sees
            f"NCCL was asked for GPU {device.group('dev')}, and this process sees {device.group('n')} "
            "(CUDA_VISIBLE_DEVICES, or the GPUs the container or scheduler gave it): more ranks per node than "
            "visible GPUs, or a device index set from the global rank instead of the local one.",
            {"variable": "CUDA_VISIBLE_DEVICES", "fix": "torch.cuda.set_device(local_rank)"},
            next=("nvidia-smi -L", "env | grep -E '^(CUDA_VISIBLE_DEVICES|LOCAL_RANK|RANK)='"),
        )
    if re.search(r"invalid rank requested : \d+/\d+|rank \d+ exceeds ndev=\d+", lowered):
        return "bad-configuration", Lead(  # init.cc: a rank number at or past the job's size
            f"A process asked NCCL for a rank the job does not have ({said}): its RANK is not below WORLD_SIZE (the "
            "ranks are numbered from 0), or the nodes were launched with different sizes.",
            {"variable": "RANK", "size": "WORLD_SIZE"},
            next=("env | grep -E '^(RANK|LOCAL_RANK|WORLD_SIZE)='",),
        )
    if re.search(r"xml (?:topology|graph) has wrong version|xml parse|could not open xml graph file", lowered):
        # graph/xml.cc: the topology file (NCCL_TOPO_FILE, or the cloud VM's default) or graph file (NCCL_GRAPH_FILE)
        variable = "NCCL_GRAPH_FILE" if "graph" in lowered else "NCCL_TOPO_FILE"
        return "bad-configuration", Lead(
            f"NCCL could not use a topology (or graph) file ({said}): a path this node does not have, one written for "
            "another NCCL release, or not well-formed XML. Check the file NCCL_TOPO_FILE (or NCCL_GRAPH_FILE) names, "
            "or, when neither is set, the one NCCL reads by default (/var/run/nvidia-topologyd/virtualTopology.xml, "
            "on some cloud VMs); unset the variable for NCCL's own detection.",
            {"variable": variable},
            next=("env | grep -E '^NCCL_(TOPO|GRAPH)_FILE='",),
        )
    if driver := re.search(r"requires cuda driver (?P<need>\d+\.\d+) or later \(found (?P<found>[\d.]+)\)", lowered):
        return "cuda-driver-too-old", Lead(  # enqueue.cc: a feature of a newer driver's CUDA
            f"This NCCL feature needs a driver for CUDA {driver.group('need')} or newer, and the driver here supports "
            f"CUDA {driver.group('found')}: update the NVIDIA driver, or do without the feature.",
            {"driver": "NVIDIA driver", "needs": f"CUDA {driver.group('need')}"},
            next=("nvidia-smi  # the driver version and the newest CUDA it supports",),
        )
    if "no valid <ipv4_or_hostname>:<port> pair found" in lowered or "no valid [ipv6]:port pair found" in lowered:
        # misc/socket.cc reads NCCL_COMM_ID (and a host:port the bootstrap is given) as <host>:<port>
        return "bad-configuration", Lead(
            f"NCCL could not read a host:port address ({said}): NCCL_COMM_ID (or the address given to the bootstrap) "
            "is not <host>:<port> ([address]:port for IPv6). Correct it or unset it.",
            {"variable": "NCCL_COMM_ID"},
            next=("env | grep ^NCCL_COMM_ID",),
        )
    if "verify nccl_oob_net_ifname" in lowered:
        # bootstrap.cc: NCCL_OOB_NET_IFNAME names (or excludes) the interfaces its bootstrap may use, and none is left
        return "nccl-network", Lead(
            f"NCCL's bootstrap found no network interface the setting allows ({said}): NCCL_OOB_NET_IFNAME (and "
            "NCCL_SOCKET_IFNAME) name an interface this node does not have. Name one it has (ip -brief addr), the "
            "same on every node, or unset it.",
            {"variable": "NCCL_OOB_NET_IFNAME"},
            next=("ip -brief addr", "env | grep -E '^NCCL_(OOB_NET|SOCKET)_IFNAME='"),
        )
    if "fp8 reduction support begins with sm90" in lowered:  # enqueue.cc: FP8 reductions need Hopper or newer
        return "gpu-arch-unsupported", Lead(
            f"NCCL reduces FP8 data only on Hopper (sm_90) and newer GPUs ({said}): this GPU is older. Reduce in "
            "bf16 or fp16 here (cast before the collective), or run on a Hopper-class GPU.",
            {"arch": "sm_90", "dtype": "fp8"},
            next=("nvidia-smi --query-gpu=name,compute_cap --format=csv",),
        )
    if re.search(r"failed to cuda (?:malloc|calloc|host alloc)", lowered):
        return "out-of-memory", Lead(
            f"NCCL could not allocate its buffers on the GPU ({said}): the GPU's memory is taken (the model, another "
            "process). Free memory before the first collective, or make NCCL's buffers smaller (NCCL_BUFFSIZE).",
            {"variable": "NCCL_BUFFSIZE"},
            verdict="not-environment",
            next=("nvidia-smi",),
        )
    return None


# The CUDA errors NCCL reports in its "Last error:" / WARN line: read by cuda.py's table of families, plus the one
# only NCCL meets (peer access between two GPUs, which the topology refuses).
def _cuda_failure(name: str, said: str) -> tuple[str, Lead] | None:
    if name == "cudaErrorPeerAccessUnsupported":
        return "bad-configuration", Lead(
            f"NCCL could not enable peer-to-peer access between two GPUs ({said}): the PCI topology does not allow it "
            "here (ACS or the IOMMU on the path, a VM or container without P2P, GPUs on different root complexes). "
            "Set NCCL_P2P_DISABLE=1 to go through host memory, and ask the machine's admin about ACS/IOMMU.",
            {"variable": "NCCL_P2P_DISABLE", "name": name},
            export("NCCL_P2P_DISABLE", "1", note="slower: NCCL copies through host memory"),
            next=("nvidia-smi topo -m  # how the GPUs are connected", NCCL_DEBUG),
        )
    if name in NOT_SUPPORTED:
        # NCCL shares its buffers between the ranks of a node through CUDA's cuMem API (NCCL_CUMEM_ENABLE; on by
        # default in newer releases) or legacy CUDA IPC, which containers without the host's IPC namespace, WSL and
        # virtual GPUs may refuse (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html)
        return "bad-configuration", Lead(
            f"NCCL's GPU memory sharing between the ranks of this node is not supported here ({said}): the cuMem "
            "API or CUDA IPC is refused (a container started without --ipc=host, WSL, a virtual GPU, an older "
            "driver). Set NCCL_CUMEM_ENABLE=0 (NCCL then shares memory the legacy way); if it still fails, "
            "NCCL_P2P_DISABLE=1 goes through host memory.",
            {"variable": "NCCL_CUMEM_ENABLE", "name": name},
            export("NCCL_CUMEM_ENABLE", "0", note="NCCL's legacy IPC instead of cuMem"),
            next=("nvidia-smi topo -m  # how the GPUs are connected", NCCL_DEBUG),
        )
    if name == "cudaErrorInvalidResourceHandle":  # a stream or event of another device than the current one
        return "framework-internal-error", Lead(
            f"NCCL was handed a CUDA stream or event of another device than the one current on this rank ({said}). "
            "In torch.distributed this is most often a collective with no tensor to say its device (barrier) run "
            "before the rank chose its GPU: torch 2.3 with NCCL older than 2.13 fails so (pytorch#130414). Call "
            "torch.cuda.set_device(local_rank) before init_process_group (or pass device_id=), and report it if it "
            "still fails.",
            {"name": name, "fix": "torch.cuda.set_device(local_rank)"},
            verdict="framework-bug",
            next=("python -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())'", NCCL_DEBUG),
        )
    family = CUDA_FAMILIES.get(name)
    if family is None:
        return None  # a code whose family the table does not know: NCCL's own result code is what is left
    if family == "gpu-arch-unsupported":  # NCCL's kernels have no code for this GPU (a kernel image or symbol missing)
        return family, Lead(
            f"NCCL stopped on a CUDA error ({said}, {name}): its kernels have no code for this GPU's architecture. The "
            "NCCL loaded is a build for an older CUDA than this GPU needs (the one bundled with an older torch: "
            "Blackwell sm_100/sm_120 needs a CUDA 12.8+ build), or was compiled with an NVCC_GENCODE that leaves this "
            "GPU out. Install the torch (or nvidia-nccl) build for this GPU's CUDA, or rebuild NCCL with its "
            "architecture.",
            {"name": name, "library": "NCCL", "package": "nvidia-nccl"},
            next=(
                "nvidia-smi --query-gpu=name,compute_cap --format=csv",
                "python -c 'import torch; print(torch.__version__, torch.version.cuda, torch.cuda.nccl.version())'",
            ),
        )
    verdict = {"out-of-memory": "not-environment", "cuda-illegal-access": "unknown"}.get(family)
    return family, Lead(f"NCCL stopped on a CUDA error: {said} ({name}).", {"name": name}, verdict=verdict)


def _address_in_use(detail: str) -> Lead:
    port = re.search(r"(?:port|:)\s?(?P<port>\d{4,5})\b", detail)
    return Lead(
        "The rendezvous port is already taken (Address already in use): another job, or a previous run still "
        "holding it, listens on MASTER_PORT on this host. Pick a free port (torchrun --master_port, or MASTER_PORT) "
        "or stop that process.",
        {"variable": "MASTER_PORT", "port": port.group("port") if port else ""},
        next=('ss -ltnp | grep -w "${MASTER_PORT:-29500}"  # who holds it',),
    )


def _network(detail: str) -> Lead:
    return Lead(
        f"The ranks cannot reach each other over the network ({scrubbed_head(detail.strip(), 160)}): a wrong "
        "MASTER_ADDR, a firewall, or NCCL/Gloo choosing an interface the others cannot reach (docker0, a down or "
        "private one). Name the interface the nodes share: NCCL_SOCKET_IFNAME (and GLOO_SOCKET_IFNAME) =eth0 or its "
        "name here.",
        {"variable": "NCCL_SOCKET_IFNAME"},
        next=("ip -brief addr", NCCL_DEBUG, COLLECTIVE),
    )


@rule(
    "nccl-network",
    r"(?P<name>nccl\w{3,30}Error|ncclSystemError|ncclInternalError|ncclUnhandledCudaError|ncclRemoteError"
    r"|ncclInvalidUsage)[^\n]{0,300}(?:\n[^\n]{0,400}){0,3}?\n?\s*Last error:\s*\n?(?P<last>[^\n]{3,400})",
    source=NCCL_TROUBLESHOOTING,
    confidence=0.9,
)
def nccl_last_error(found: re.Match[str], failure: Failure) -> Lead | None:
    read = _from_last_error(found.group("last"))
    if read is None:
        return Lead(
            f"NCCL failed ({found.group('name')}): {scrubbed_head(found.group('last').strip(), 200)}.",
            {"name": found.group("name")},
            verdict="unknown",
            confidence=0.5,
            next=(NCCL_DEBUG, COLLECTIVE),
            family="hang-timeout" if "timeout" in found.group("last").lower() else "nccl-network",
        )
    family, lead = read
    return replace(lead, family=family)


@rule(
    "nccl-network",
    r"NCCL WARN (?P<detail>[^\n]{3,400})",
    source="https://github.com/NVIDIA/nccl/blob/master/src/include/debug.h (WARN)",
    confidence=0.85,
)
def nccl_warn(found: re.Match[str], failure: Failure) -> Lead | None:
    return _last_error_lead(found.group("detail"))


def _last_error_lead(detail: str) -> Lead | None:
    """_from_last_error's reading as a rule's lead, its family carried in the lead."""
    read = _from_last_error(detail)
    return replace(read[1], family=read[0]) if read is not None else None


# ncclGetErrorString's "default:" case: the code is not one this NCCL knows. NCCL adds result codes over releases
# (ncclRemoteError 2.13, ncclInProgress 2.14), so a code it cannot name came from another NCCL than the one naming it:
# two NCCL builds met in one process (a framework's bundled copy and the system's, or an extension built for another).
@rule(
    "cuda-library-mismatch",
    r"NCCL[^\n]{0,300}'?unknown result code'?",
    source="https://github.com/NVIDIA/nccl/blob/master/src/init.cc (ncclGetErrorString: 'default: return \"unknown "
    "result code\"'), https://github.com/NVIDIA/nccl/blob/master/src/nccl.h.in (ncclResult_t)",
    confidence=0.7,
)
def nccl_unknown_result(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "NCCL returned a result code that the NCCL asked to name it does not know: the code came from another NCCL "
        "release than the one that names it. Two NCCL builds met in one process: the one the framework was built "
        "with (torch's nvidia-nccl wheel, a container's /usr/lib copy) and the one an extension or plugin was built "
        "against. Make them one release.",
        {"library": "NCCL"},
        None,
        next=(
            'python -c "import torch; print(torch.cuda.nccl.version())"',
            "python -m pip list 2>/dev/null | grep -i nccl",
            "ldconfig -p | grep -F libnccl",
        ),
    )


@rule(
    "nccl-shm",
    r"(?:Error while (?:creating|attaching to) shared memory segment|failed to extend /dev/shm|unable to (?:allocate"
    r"|write to) shared memory|out of shared memory|(?i:bus error)[^\n]{0,80}(?:shared memory|shm))[^\n]{0,200}",
    source=NCCL_TROUBLESHOOTING + "#shared-memory",
    confidence=0.9,
)
def shared_memory(found: re.Match[str], failure: Failure) -> Lead:
    return _shm(found.group(0))


@rule(
    "nccl-shm",
    r"Caught signal 7 \(Bus error|signal 7 \(SIGBUS\)|received signal SIGBUS|Bus error \(core dumped\)"
    # faulthandler's words for it (Python's own handler: "Fatal Python error: Bus error")
    r"|Fatal Python error: Bus error",
    # a write to a /dev/shm file whose pages the tmpfs cannot back (it is full) is delivered as SIGBUS (mmap(2));
    # UCX's and PyTorch's handlers print the signal, and the native backtrace after it shows NCCL's frames
    source=NCCL_TROUBLESHOOTING + "#shared-memory; https://man7.org/linux/man-pages/man2/mmap.2.html (SIGBUS)",
    confidence=0.75,
)
def bus_error_in_nccl(found: re.Match[str], failure: Failure) -> Lead | None:
    if re.search(r"nccl", failure.haystack, re.IGNORECASE):
        return _shm(found.group(0) + " in NCCL's frames")
    # a bus error with nothing of NCCL around it: the same page that could not be backed, most often /dev/shm's
    # (DataLoader workers pass their batches through it), less often a memory-mapped file cut short under the reader
    lead = _shm(found.group(0) + ": a page of shared memory or of a memory-mapped file could not be backed")
    return replace(
        lead,
        cause=lead.cause + " If /dev/shm has room, a memory-mapped file (a dataset, a checkpoint) truncated or "
        "rewritten while it was read gives the same signal.",
        confidence=0.5,
    )


@rule(
    "nccl-shm",
    r"DataLoader worker \(pid\(?s?\)? [\d, ]{1,200}\) (?:is killed by signal: Bus error|exited unexpectedly)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/utils/data/_utils/signal_handling.py",
    confidence=0.8,
)
def dataloader_bus_error(found: re.Match[str], failure: Failure) -> Lead | None:
    if "Bus error" not in failure.haystack and "shared memory" not in failure.haystack:
        return None
    return _shm(found.group(0))


@rule(
    "nccl-address-in-use",
    r"(?:Address already in use|EADDRINUSE|errno: 98\b|failed to bind to[^\n]{0,120}(?:in use|98))",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/socket.cpp",
    confidence=0.9,
)
def address_in_use(found: re.Match[str], failure: Failure) -> Lead:
    return _address_in_use(failure.haystack)


@rule(
    "nccl-network",
    r"(?:DistNetworkError|RendezvousConnectionError|TCPStore\w* failed to connect|failed to (?:connect|recv"
    r"|send)[^\n]{0,80}(?:peer|store|rank)|Connection refused|No route to host|Connection closed by peer"
    r"|connectFullMesh failed|Socket Timeout|Bootstrap : no socket interface found|NCCL_SOCKET_IFNAME"
    r"|client socket has (?:failed to connect|timed out after [\d.]+s? while trying to connect))[^\n]{0,200}",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/elastic/rendezvous/ and "
    "https://github.com/facebookincubator/gloo",
    confidence=0.75,
)
def ranks_cannot_connect(found: re.Match[str], failure: Failure) -> Lead | None:
    # c10d's TCPStore client says "The client socket has failed to connect to [host]:port (errno: ...)" for any
    # errno (refused, timed out, no route): each is a rank that cannot reach the store's address.
    if "pip" in failure.haystack.lower() and "Connection" in found.group(0):
        return None  # a package index that cannot be reached is no rank of a job
    return _network(found.group(0))


@rule(
    "hang-timeout",
    r"Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>\w+)[^\n]{0,200}"
    r"|ProcessGroupNCCL'?s watchdog got stuck|Timed out waiting for [^\n]{0,80}collective|collective operation timeout",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
    confidence=0.85,
)
def watchdog_timeout(found: re.Match[str], failure: Failure) -> Lead:
    op, seq = found.group("op") or "", found.group("seq") or ""
    where = f" in {op} #{seq}" if op else ""
    return Lead(
        f"A collective{where} waited past its timeout: one rank never arrived (it is slower, hung in other code, "
        "died, or called another collective). The timeout names no cause: find the rank that is different.",
        {"op": op, "sequence": seq},
        verdict="unknown",
        next=(
            "xladoctor profile --stall-after 120 -- torchrun ...  # the stacks and collectives of every rank at the "
            "hang",
            "TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 torchrun ...  # the Flight Recorder's dump",
            NCCL_DEBUG,
        ),
    )


# torch's monitored barrier (ProcessGroupGloo.cpp, monitoredBarrier; torch.distributed.monitored_barrier, which
# TORCH_DISTRIBUTED_DEBUG=DETAIL also runs before collectives): rank 0 waits for every other rank and names the ones
# that never came; the others name rank 0 when it is rank 0 that failed
@rule(
    "hang-timeout",
    r"Ranks? (?P<ranks>\d{1,6}(?:, ?\d{1,6}){0,50}) failed to pass monitoredBarrier in (?P<ms>\d{1,10}) ms"
    r"|Rank (?P<waiting>\d{1,6}) successfully reached monitoredBarrier, but received errors while waiting for "
    r"send/recv from rank (?P<monitor>\d{1,6})",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupGloo.cpp "
    "(monitoredBarrier); https://pytorch.org/docs/stable/distributed.html#torch.distributed.monitored_barrier",
    confidence=0.85,
)
def ranks_missed_the_monitored_barrier(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("monitor") is not None:
        monitor = found.group("monitor")
        return Lead(
            f"Rank {found.group('waiting')} reached the monitored barrier, and rank {monitor}, which checks every rank "
            f"in, reported a failure: most often another rank that never arrived (hung, slower, or dead), which rank "
            f"{monitor}'s own log names (\"Rank N failed to pass monitoredBarrier\"); else rank {monitor}'s own error. "
            "This rank's error only follows it.",
            {"monitor": monitor},
            verdict="unknown",
            next=(f"grep -n -m3 -E 'monitoredBarrier|Error|Traceback' LOG  # LOG: rank {monitor}'s own log",),
        )
    ranks = found.group("ranks")
    several = "," in ranks
    waited = int(found.group("ms")) / 1000
    return Lead(
        f"{'Ranks' if several else 'Rank'} {ranks} never reached the monitored barrier ({waited:g} s): "
        + ("those ranks are" if several else "that rank is")
        + " the one that differs: hung in other code (data loading, an earlier collective, I/O), slower, or dead. "
        + ("Their" if several else "Its")
        + " stacks at the hang say where.",
        {"rank": ranks, "timeout_s": f"{waited:g}"},
        verdict="unknown",
        next=(
            "xladoctor profile --stall-after 120 -- torchrun ...  # the stacks and collectives of every rank at the "
            "hang",
            f"py-spy dump --pid PID  # PID: rank {ranks.split(',')[0].strip()}'s process, on its node",
        ),
    )


@rule(
    "hang-timeout",
    r"(?i)Timed out initializing process group in store based barrier on rank:? ?(?P<rank>\d*)"
    r"(?:[^\n]{0,200}?world_size=(?P<world>\d+), num_workers_joined=(?P<joined>\d+))?",
    # torch/distributed/distributed_c10d.py, _store_based_barrier: every rank checks in after init_process_group
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py (_store_based_barrier)",
    confidence=0.85,
)
def store_barrier_timeout(found: re.Match[str], failure: Failure) -> Lead:
    joined, world = found.group("joined"), found.group("world")
    count = f" ({joined} of {world} ranks joined)" if joined and world else ""
    return Lead(
        f"Not every rank reached init_process_group within its timeout{count}: a rank started late (it loaded or "
        "preprocessed data first), crashed before it, or was never launched. Start the process group before slow "
        "work, or give init_process_group a longer timeout=; if a rank died, its own log says why.",
        {"rank": found.group("rank") or "", "option": "timeout"},
        verdict="unknown",
        next=("grep -n 'init_process_group' -r .  # what each rank does before it",),
    )


@rule(
    "out-of-memory",
    r"exitcode\s*:\s*-9\b|Signal 9 \(SIGKILL\) received by PID|died with <Signals\.SIGKILL: 9>|Killed`{0,3}\s*$"
    r"|sigkill_handler\] Killing subprocess|exit code 137\b|signal 9: SIGKILL|\bOOMKilled\b"
    # DeepSpeed's launcher (deepspeed/launcher/launch.py, sigkill_handler) names the child's return code
    r"|exits with return code = -9\b"
    r"|`killed`|`Killed`|\"killed\"|\"Killed\""
    # zsh's report of a job a signal killed: "[1]    14875 killed     python main.py" (after a progress bar's \r)
    r"|\[\d{1,4}\]\s{1,8}\d{1,9} killed\s{1,8}\S"
    # the shell's own line for its foreground job: zsh's "zsh: killed     python train.py", bash's "bash: line 1:
    # 12345 Killed                  python train.py"
    r"|\b(?:zsh|bash|sh): (?:line \d{1,6}: {1,4})?(?:\d{1,9} {1,4})?[Kk]illed {1,40}\S"
    r"|DataLoader worker \(pid\(?s?\)? [\d, ]{1,200}\) is killed by signal: Killed"
    # torch/multiprocessing/spawn.py (ProcessContext.join) for a process of mp.spawn the kernel killed
    r"|process \d+ terminated with signal SIGKILL",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/elastic/multiprocessing/errors/__init__.py",
    confidence=0.7,
    flags=re.MULTILINE,
)
def killed_by_kernel(found: re.Match[str], failure: Failure) -> Lead:
    # The same kill in other words: a shell's or an IDE's exit status 137 (128 + 9), Kubernetes' OOMKilled, and the
    # shell's "Killed" quoted in a report's prose.
    return Lead(
        "A process was killed with SIGKILL (exit code -9): on Linux this is almost always the kernel's OOM killer, "
        "because the host ran out of RAM (or the container hit its memory limit). Load less at once (smaller batch, "
        "fewer DataLoader workers, memory-mapped data) or give it more memory.",
        {"memory": "host", "signal": "SIGKILL"},
        verdict="not-environment",
        next=("dmesg -T | grep -i -E 'killed process|out of memory' | tail  # the OOM killer's own line",),
    )


@rule(
    "user-code-error",
    r"Expected to have finished reduction in the prior iteration before starting a new one"
    r"|Expected to mark a variable ready only once"
    r"|(?P<lightning>It looks like your LightningModule has parameters that were not used in producing the loss)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/reducer.cpp; Lightning's DDP "
    "strategy (https://github.com/Lightning-AI/pytorch-lightning/tree/master/src/lightning/pytorch/strategies)",
    confidence=0.9,
)
def ddp_unused_parameters(found: re.Match[str], failure: Failure) -> Lead:
    if found.group("lightning"):
        return Lead(
            "DDP found parameters of the LightningModule that took no part in training_step's loss: the model has "
            "branches some steps skip (or layers it never uses). Use "
            "Trainer(strategy='ddp_find_unused_parameters_true') (or DDPStrategy(find_unused_parameters=True)), or "
            "make every parameter used.",
            {"fix": "strategy='ddp_find_unused_parameters_true'"},
            verdict="not-environment",
        )
    if "only once" in found.group(0):
        return Lead(
            "DDP saw a parameter's gradient become ready twice in one step: reentrant activation checkpointing (or a "
            "module used twice) under DDP. Use gradient checkpointing with use_reentrant=False, or static_graph=True.",
            {"fix": "use_reentrant=False"},
            verdict="not-environment",
        )
    return Lead(
        "DDP found parameters that took no part in the loss on this step: the model has branches some steps skip. "
        "Pass find_unused_parameters=True to DistributedDataParallel, or make every parameter used.",
        {"fix": "find_unused_parameters=True"},
        verdict="not-environment",
    )


# DeepSpeed ZeRO 1/2 reduces each parameter's gradient once per backward (runtime/zero/stage_1_and_2.py,
# reduce_independent_p_g_buckets_and_remove_grads; stage3.py has the same assert): a second gradient in one step is a
# parameter the backward reached twice
@rule(
    "user-code-error",
    r"The parameter (?P<param>[\w.]{1,200}) has already been reduced\.\s+Gradient computed twice for this partition",
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/runtime/zero/stage_1_and_2.py "
    "(assert self.params_already_reduced[param_id] == False)",
    confidence=0.8,
)
def zero_gradient_reduced_twice(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"DeepSpeed ZeRO reduced parameter {found.group('param')}'s gradient twice in one backward: the backward "
        "reached it twice (reentrant gradient checkpointing recomputing a forward, a module or its weights used twice "
        "in the step, two losses over shared parameters in one backward). Turn gradient checkpointing off or use it "
        "with use_reentrant=False, or backward each loss separately.",
        {"parameter": found.group("param"), "option": "gradient_checkpointing", "fix": "use_reentrant=False"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    r"DistributedDataParallel device_ids and output_device arguments only work with single-device"
    r"(?:/multiple-device)? GPU modules or CPU\s+modules, but got device_ids (?P<ids>\[[^\]\n]{0,60}\])",
    source="https://github.com/pytorch/pytorch/blob/main/torch/nn/parallel/distributed.py (DistributedDataParallel."
    "__init__: device_ids only for a module on one device); settled in "
    "https://github.com/yuanzhoulvpi2017/zero_nlp/issues/115",
    confidence=0.9,
)
def ddp_given_a_spread_model(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"DistributedDataParallel was given device_ids {found.group('ids')} for a model whose parameters lie on "
        "several GPUs: the model was spread over the GPUs (device_map='auto', or model parallelism) in a process that "
        "DDP meant to hold one replica on one GPU. Load the model on the process's own GPU (device_map={'': "
        "local_rank}, or .to(f'cuda:{local_rank}')), or, for a model spread on purpose, give DDP device_ids=None.",
        {"option": "device_map", "fix": "device_map={'': local_rank}"},
        verdict="not-environment",
    )


@rule(
    "user-code-error",
    # torch 2.0's words, then torch 2.1's and later (_validate_tensors_to_flatten)
    r"`FlatParameter` requires uniform (?P<what>`requires_grad`|dtype)"
    r"|Must flatten tensors with uniform (?P<what2>`requires_grad`|dtype)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/fsdp/_flat_param.py (one flat parameter "
    "per FSDP unit: _validate_tensors_to_flatten); non-uniform requires_grad with use_orig_params=True from torch 2.1: "
    "pytorch/pytorch#98221; a 4-bit model's uint8 storage under FSDP: bnb_4bit_quant_storage "
    "(https://huggingface.co/docs/bitsandbytes/main/en/fsdp_qlora)",
    confidence=0.9,
)
def fsdp_unit_not_uniform(found: re.Match[str], failure: Failure) -> Lead:
    """FSDP (use_orig_params=False) flattens each wrapped unit's parameters into one tensor, which has one dtype and
    one requires_grad: a unit that mixes frozen and trained parameters (a LoRA/PEFT model, a frozen encoder), or two
    dtypes, is refused. How the model was wrapped, not the install."""
    if "dtype" in (found.group("what") or found.group("what2") or ""):
        if "uint8" in failure.message:
            return Lead(
                "FSDP was asked to flatten a 4-bit quantized model's weights (bitsandbytes stores them as uint8) with "
                "its other parameters: give the quantization config the dtype of the rest as its storage "
                "(BitsAndBytesConfig(..., bnb_4bit_quant_storage=torch.bfloat16), the same as torch_dtype) so that "
                "FSDP can shard the model; casting the model would break the 4-bit weights.",
                {"fix": "bnb_4bit_quant_storage", "what": "dtype"},
                verdict="not-environment",
            )
        return Lead(
            "FSDP was asked to flatten parameters of different dtypes into one unit (each wrapped unit becomes one "
            "flat tensor of one dtype): load or cast the model in one dtype before wrapping it, and give FSDP "
            "mixed_precision=MixedPrecision(...) for lower-precision compute, or wrap the odd-dtype layers as units "
            "of their own.",
            {"fix": "mixed_precision", "what": "dtype"},
            verdict="not-environment",
        )
    since = (
        "Pass use_orig_params=True to FSDP, which accepts mixed requires_grad"
        if "use_orig_params" in failure.message
        else "Pass use_orig_params=True to FSDP (it accepts mixed requires_grad from torch 2.1 on: upgrade torch "
        "first if this is 2.0)"
    )
    return Lead(
        "One FSDP unit holds both frozen (requires_grad=False) and trained parameters, which a flat parameter "
        "cannot (use_orig_params=False makes each wrapped unit one tensor with one requires_grad): a LoRA/PEFT model "
        f"or a frozen part wrapped together with trained layers. {since}, or wrap so each unit is all frozen or all "
        "trained (an auto-wrap policy that makes the frozen modules units of their own), or freeze after wrapping.",
        {"fix": "use_orig_params=True", "what": "requires_grad"},
        verdict="not-environment",
    )


@rule(
    "nccl-duplicate-gpu",
    r"Duplicate GPU detected\s?: rank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<device>\w+)",
    source="https://github.com/NVIDIA/nccl/blob/master/src/init.cc (Duplicate GPU detected)",
    confidence=0.95,
)
def duplicate_gpu(found: re.Match[str], failure: Failure) -> Lead:
    read = _from_last_error(found.group(0))
    assert read is not None
    return replace(read[1], params={**read[1].params, "ranks": f"{found.group('a')},{found.group('b')}"})


@rule(
    "nccl-network",
    r"NCCL error in: [^,\n]{1,200}, (?P<said>[^,\n]{3,200})",
    source="compat_matrix/failures/nccl-results.json (ncclGetErrorString of libnccl 2.27)",
    confidence=0.7,
)
def nccl_result(found: re.Match[str], failure: Failure) -> Lead | None:
    if re.search(r"Last error:\s*\n?[^\n]{3,}", failure.haystack):
        return None  # the "Last error:" rule reads it better (an empty one says nothing)
    return _result_read(found.group("said"))


# nccl-tests' NCCLCHECK (src/common.h): "HOST: Test NCCL failure FILE:LINE 'ncclGetErrorString / ncclGetLastError'";
# the text after " / " is NCCL's last error, when it kept one
@rule(
    "nccl-network",
    r"Test NCCL failure [^\s:]{1,200}:\d+ '(?P<said>[^'\n]{3,200}?)(?: / (?P<last>[^'\n]{0,400}))?'",
    source="https://github.com/NVIDIA/nccl-tests/blob/master/src/common.h (NCCLCHECK)",
    confidence=0.7,
)
def nccl_test_failure(found: re.Match[str], failure: Failure) -> Lead | None:
    return _last_error_or_result(found.group("last"), found.group("said"))


# XLA's NCCL status (xla/service/gpu/nccl_utils.cc, ToStatus; later xla/backends/gpu/collectives): "FILE:LINE: NCCL
# operation ncclCommInitRank(...) failed: unhandled system error. Last NCCL warning(error) log entry (may be
# unrelated) '...'", returned as INTERNAL by JAX and TensorFlow: NCCL's result and last error, not XLA's defect
@rule(
    "nccl-network",
    r"NCCL operation (?P<op>\w{1,60})\([^\n]{0,200}?\) failed: (?P<said>[^.\n]{3,200})\.?"
    r"(?: Last NCCL warning\(error\) log entry \(may be unrelated\) '(?P<last>[^'\n]{0,400})')?",
    source="https://github.com/openxla/xla/blob/main/xla/service/gpu/nccl_utils.cc (ToStatus: 'NCCL operation %s "
    "failed: %s. Last NCCL warning(error) log entry (may be unrelated) ...')",
    confidence=0.7,
)
def xla_nccl_status(found: re.Match[str], failure: Failure) -> Lead | None:
    return _last_error_or_result(found.group("last"), found.group("said"))


def _last_error_or_result(last: str | None, said: str) -> Lead | None:
    """NCCL's last error when the message kept one (an empty one says nothing), else its result string."""
    kept = (last or "").strip()
    return (_last_error_lead(kept) if len(kept) >= 3 else None) or _result_read(said)


def _result_read(said: str) -> Lead | None:
    """NCCL's result string (ncclGetErrorString) read for the family it most often means."""
    code = code_saying(said)
    if code is None or code.name == "ncclUnhandledCudaError":
        # a CUDA call inside NCCL failed, and which one decides the family (NCCL_DEBUG=WARN prints it as "Cuda
        # failure '...'"): the result alone reads as no family (pytorch#150852 was NVLS on an older driver)
        return None
    family, verdict = {
        "ncclRemoteError": ("nccl-network", "environment"),
        "ncclSystemError": ("nccl-network", "unknown"),
        "ncclInvalidUsage": ("user-code-error", "not-environment"),
        "ncclInvalidArgument": ("user-code-error", "not-environment"),
        "ncclInternalError": ("framework-internal-error", "unknown"),
    }.get(code.name, ("nccl-network", "unknown"))
    return Lead(
        f"NCCL failed: {code.string} ({code.name}). "
        + (
            "A peer died or the network between the ranks failed: check the other ranks' logs first (the first "
            "failure elsewhere is the cause), then the interfaces (NCCL_SOCKET_IFNAME)."
            if code.name == "ncclRemoteError"
            else "NCCL_DEBUG=INFO names the step that failed."
        ),
        {"name": code.name, "variable": "NCCL_SOCKET_IFNAME"},
        verdict=verdict,
        family=family,
        confidence=0.75 if code.name == "ncclRemoteError" else 0.45,
        next=(NCCL_DEBUG, COLLECTIVE),
    )


# XLA's and TensorFlow's stream executor log a GPU pair without P2P and carry on (cuda_driver.cc: "failed to enable
# peer access from ... CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "Unable to enable peer access between device ordinals")
_PEER_ACCESS_NOTED = re.compile(
    r"CUDA_ERROR_PEER_ACCESS_UNSUPPORTED|failed to enable peer access|Unable to enable peer access"
)


@rule(
    "nccl-network",
    r"Timed out after \d+ seconds waiting for clients\. (?P<joined>\d+)/(?P<world>\d+) clients joined"
    r"|RendezvousTimeoutError|peer access is not supported between (?:these )?two devices?",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/TCPStore.cpp",
    confidence=0.8,
)
def ranks_never_joined(found: re.Match[str], failure: Failure) -> Lead | None:
    said_by = failure.haystack
    if "peer access" in found.group(0) and _PEER_ACCESS_NOTED.search(said_by):
        return None  # XLA's and TensorFlow's note that they could not enable P2P: they go on without it
    if "peer access" in found.group(0) and re.search(
        r"custom[_ ]?all[_ ]?reduce|CUDART error: peer", failure.haystack, re.IGNORECASE
    ):
        # vLLM's csrc/custom_all_reduce.cuh (and SGLang's copy) checks P2P itself: NCCL is not what failed. "CUDART
        # error:" is the prefix of vLLM's and SGLang's own CUDA runtime wrapper (CudaRTLibrary.CUDART_CHECK in
        # vllm/distributed/device_communicators/cuda_wrapper.py), which their custom all-reduce opens IPC with
        return Lead(
            "The inference engine's custom all-reduce kernel needs peer-to-peer access between the GPUs, which these "
            "GPUs (or this machine: PCIe switches, IOMMU/ACS, a VM) do not give: turn the custom all-reduce off and "
            "let NCCL do it (vLLM: disable_custom_all_reduce=True or --disable-custom-all-reduce; SGLang: "
            "--disable-custom-all-reduce).",
            {"option": "disable_custom_all_reduce", "what": "custom all-reduce"},
            family="bad-configuration",
            next=("nvidia-smi topo -m  # how the GPUs connect",),
        )
    if "peer access" in found.group(0) and "nccl" not in failure.haystack.lower() and "Cuda failure" not in said_by:
        # cudaErrorPeerAccessUnsupported alone, not in NCCL's words ("Cuda failure '...'", CUDACHECK): most often
        # the program's own peer-to-peer copy or kernel (an engine's custom all-reduce, a multi-GPU runtime)
        return Lead(
            "The program asked for CUDA peer-to-peer access between GPUs that do not have it (most GeForce cards, a "
            "PCIe topology or IOMMU/ACS that refuses it, a virtual machine): turn off what needs it, most often an "
            "inference engine's custom all-reduce (vLLM and SGLang: --disable-custom-all-reduce; the TensorRT-LLM "
            "releases whose trtllm-build has it: --use_custom_all_reduce disable; NCCL itself: NCCL_P2P_DISABLE=1), "
            "or run on GPUs with P2P "
            "(NVLink).",
            {"what": "peer access", "option": "use_custom_all_reduce", "variable": "NCCL_P2P_DISABLE"},
            family="bad-configuration",
            next=("nvidia-smi topo -m  # how the GPUs connect", "nvidia-smi topo -p2p r  # which pairs have P2P"),
        )
    if "peer access" in found.group(0):
        return Lead(
            "NCCL cannot use peer-to-peer access between these GPUs (no P2P path, IOMMU or ACS in the way, a virtual "
            "machine): set NCCL_P2P_DISABLE=1 to go through host memory.",
            {"variable": "NCCL_P2P_DISABLE"},
            export("NCCL_P2P_DISABLE", "1"),
        )
    joined = f" ({found.group('joined')} of {found.group('world')} joined)" if found.group("world") else ""
    return Lead(
        f"Not every rank reached the rendezvous{joined}: the others could not connect to MASTER_ADDR:MASTER_PORT "
        "(a firewall, a wrong address or interface), or they failed before. Check the missing ranks' own logs, "
        "and the interface (NCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME).",
        {"variable": "NCCL_SOCKET_IFNAME"},
        next=(COLLECTIVE,),
    )


@rule(
    "nccl-network",
    r"(?:gai error: -?\d{1,3} - (?P<why>[^)\n]{3,80})|Temporary failure in name resolution|Name or service not known"
    r"|nodename nor servname provided)",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/socket.cpp (getaddrinfo's "
    "error, gai_strerror); https://man7.org/linux/man-pages/man3/getaddrinfo.3.html",
    confidence=0.75,
)
def host_name_not_resolved(found: re.Match[str], failure: Failure) -> Lead | None:
    """The rendezvous (c10d's store, NCCL's bootstrap) resolves host names: a host name that does not resolve (the
    machine's own, in a container or a fresh VM, or MASTER_ADDR) stops it before any rank connects."""
    haystack = failure.haystack
    if not any(w in haystack for w in ("c10d", "socket.cpp", "TCPStore", "rendezvous", "MASTER_ADDR", "NCCL", "gai ")):
        return None  # an installer or a download that could not resolve its index: not a job's rendezvous
    host = re.search(r"addresses of \((?P<host>[^,\s)]{1,120}), ?\d+\)|host(?:name)? '?(?P<host2>[\w.-]{1,120})'?",
                     haystack)  # fmt: skip
    name = (host.group("host") or host.group("host2")) if host else ""
    return Lead(
        f"The host name {name + ' ' if name else ''}does not resolve, so the rendezvous cannot find the machine: add "
        "it to /etc/hosts (127.0.0.1 for a single machine, the node's address otherwise), or set MASTER_ADDR to an "
        "IP address instead of a host name.",
        {"host": name, "file": "/etc/hosts", "variable": "MASTER_ADDR", "what": "hostname"},
        next=("hostname; getent hosts $(hostname)  # empty: the name does not resolve",),
    )


@rule(
    "nccl-network",
    r"retrieving ncclUniqueId from \[(?P<root>\d+)\] via c10d key-value store[^\n]{0,200}?got error: "
    r"(?P<why>[^\n]{3,200})",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp "
    "(broadcastUniqueNCCLID)",
    confidence=0.8,
)
def unique_id_not_received(found: re.Match[str], failure: Failure) -> Lead:
    """Every rank fetches NCCL's unique id from rank 0 through the c10d store: an error there is rank 0 (or its store)
    gone or unreachable, before any NCCL traffic."""
    why = found.group("why").strip()
    return Lead(
        f"This rank could not fetch NCCL's id from rank {found.group('root')} through the store "
        f"({scrubbed_head(why, 120)}): rank "
        f"{found.group('root')} died first (its own log has the real error), or this node cannot reach MASTER_ADDR "
        "on MASTER_PORT.",
        {"variable": "MASTER_ADDR", "rank": found.group("root"), "why": why},
        next=("grep -n -E 'Error|Traceback' rank0.log  # rank 0's own failure, when it died", COLLECTIVE),
    )


@rule(
    "nccl-shm",
    r"Signal 7 \(SIGBUS\) received by PID \d+|exitcode\s*:\s*-7\b|died with <Signals\.SIGBUS: 7>",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/elastic/multiprocessing/errors/__init__.py "
    "(a child's signal); https://man7.org/linux/man-pages/man7/signal.7.html (SIGBUS: a mapped page that cannot be "
    "backed, as a full /dev/shm)",
    confidence=0.7,
)
def rank_killed_by_sigbus(found: re.Match[str], failure: Failure) -> Lead:
    """A training process killed by SIGBUS is, nearly always, one that wrote into shared memory (/dev/shm: NCCL's
    buffers, the DataLoader's tensors) that could not grow: a container's 64 MB default."""
    return _shm("a process was killed by SIGBUS (exit code -7) writing to shared memory")


# XLA's rendezvous of the threads (one per local device) that run a collective together: it warns after a while,
# then aborts. Older releases said how long ("waiting for 10 seconds and may be stuck: participant 1 ..."); newer ones
# name what they waited for: an NCCL clique's creation ("initialize clique", "acquire clique") or a collective's call.
@rule(
    "hang-timeout",
    r"This thread has been waiting for (?P<waited>[\d.]+ ?(?:s|ms|seconds|milliseconds)) and may be stuck"
    r"(?:: (?P<what>[^\n]{3,200}))?"
    r"|This thread has been waiting for `(?P<named>[^`\n]{1,300})`\s+for (?P<seconds>\d+) seconds\s+and may\s+be "
    r"stuck|Termination timeout for `(?P<named2>[^`\n]{1,300})` of (?P<seconds2>\d+) seconds exceeded",
    source="https://github.com/openxla/xla/blob/main/xla/service/rendezvous.cc (WaitAndLogIfStuck: 'This thread has "
    "been waiting for `...` for N seconds and may be stuck. Expected N threads to join the rendezvous, but not all of "
    "them arrived on time.')",
    confidence=0.8,
)
def xla_rendezvous_stuck(found: re.Match[str], failure: Failure) -> Lead:
    """XLA's collectives meet at a rendezvous; a device or process that never arrives leaves the others waiting,
    and XLA says so. As with NCCL's watchdog, the cause is the participant that is not there."""
    named = found.group("named") or found.group("named2")
    if named is None:
        return Lead(
            f"An XLA collective has waited {found.group('waited')} for a participant that never arrived "
            f"({scrubbed_head((found.group('what') or 'a rendezvous').strip(), 120)}): one device or process is "
            "elsewhere (hung, slower, died, or running another program). Find the one that is different.",
            {"waited": found.group("waited")},
            verdict="unknown",
            next=("xladoctor profile --stall-after 120 -- python ...  # every process's stacks at the hang",),
        )
    clique = "clique" in named
    return Lead(
        f"XLA's devices waited for each other at `{scrubbed_head(named, 160)}` and not all of them came: "
        + (
            "the NCCL communicator for these GPUs was being created, and a rank or a device never finished joining "
            "it (NCCL's network or peer setup hung, or another process of the job stopped earlier). "
            if clique
            else "a device or process of the job is elsewhere (hung, crashed, or running another program or shape). "
        )
        + "The log of the participant that did not arrive, or NCCL's own (NCCL_DEBUG=INFO), says why.",
        {"what": scrubbed_head(named, 200), "waited": f"{found.group('seconds') or found.group('seconds2')} s"},
        verdict="unknown",
        next=(NCCL_DEBUG, "xladoctor profile --stall-after 120 -- python ...  # every process's stacks at the hang"),
    )


@rule(
    "nccl-network",
    r"ss1\.ss_family == ss2\.ss_family\.? (?P<a>\d+) vs (?P<b>\d+)",
    source="https://github.com/facebookincubator/gloo/blob/main/gloo/transport/tcp/device.cc (two ends of a pair must "
    "be of one address family: 2 is AF_INET, 10 AF_INET6)",
    confidence=0.85,
)
def address_families_differ(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "Gloo's two ends speak different address families (IPv4 on one rank, IPv6 on another): MASTER_ADDR (or a "
        "host name, or 0.0.0.0) resolved differently on the nodes. Give MASTER_ADDR the master's real IPv4 address, "
        "and name the interface (GLOO_SOCKET_IFNAME) on every node.",
        {"variable": "MASTER_ADDR", "families": f"{found.group('a')} vs {found.group('b')}", "what": "IPv4/IPv6"},
        next=("getent ahosts $MASTER_ADDR  # what each node resolves it to",),
    )


@rule(
    "api-version-skew",
    r"(?:unrecognized arguments|not used by the HfArgumentParser):[^\n]{0,200}?--local(?P<sep>[-_])rank",
    # torch 2.0's torch.distributed.launch passes --local-rank=N (it passed --local_rank before); torchrun passes
    # nothing and sets LOCAL_RANK. A script whose argparse knows only the other spelling refuses it.
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/launch.py (--local-rank, and the "
    "FutureWarning: read os.environ['LOCAL_RANK'])",
    confidence=0.9,
)
def local_rank_spelling(found: re.Match[str], failure: Failure) -> Lead:
    given = "--local-rank" if found.group("sep") == "-" else "--local_rank"
    other = "--local_rank" if given == "--local-rank" else "--local-rank"
    return Lead(
        f"The launcher passed {given}, and the script's argument parser knows only {other}: the script was written "
        "for another torch (torch.distributed.launch passes --local-rank since torch 2.0, --local_rank before). "
        "Launch with torchrun and read os.environ['LOCAL_RANK'], or let the parser take both spellings: "
        "parser.add_argument('--local-rank', '--local_rank', type=int, default=0).",
        {"argument": given, "expected": other, "launcher": "torch.distributed.launch", "package": "torch"},
        verdict="environment",
        next=("python -c 'import torch; print(torch.__version__)'",),
    )


@rule(
    "bad-configuration",
    r"No slot '(?P<slot>\d{1,4})' specified on host '?(?P<host>[\w.-]{1,100})'?",
    # deepspeed/launcher/runner.py parse_resource_filter: --include/--exclude named a GPU slot the host has not
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/launcher/runner.py (parse_resource_filter)",
    confidence=0.9,
)
def deepspeed_slot(found: re.Match[str], failure: Failure) -> Lead:
    slot, host = found.group("slot"), found.group("host")
    return Lead(
        f"The DeepSpeed launcher was told to use GPU {slot} on {host} (--include/--exclude, or a hostfile), and it "
        f"counts fewer GPUs there. Its slots are 0..N-1 of the GPUs it sees, so CUDA_VISIBLE_DEVICES renumbers them: "
        f"name GPUs that exist (`--include {host}:0,1`), or choose them with CUDA_VISIBLE_DEVICES or --include, not "
        "both.",
        {"slot": slot, "host": host, "option": "--include", "variable": "CUDA_VISIBLE_DEVICES"},
        next=("nvidia-smi -L", "echo $CUDA_VISIBLE_DEVICES"),
    )


@rule(
    "bad-configuration",
    r"You requested gpu: (?P<asked>\[[\d, ]{1,80}\])\s*But your machine only has: (?P<have>\[[\d, ]{0,80}\])",
    # lightning_fabric/utilities/device_parser.py (_check_unique / _sanitize_gpu_ids): the Trainer's devices list
    source="https://github.com/Lightning-AI/pytorch-lightning/blob/master/src/lightning/fabric/utilities/"
    "device_parser.py",
    confidence=0.9,
)
def lightning_devices(found: re.Match[str], failure: Failure) -> Lead:
    asked, have = found.group("asked"), found.group("have")
    return Lead(
        f"The Trainer was asked for GPUs {asked}, and this machine (as CUDA_VISIBLE_DEVICES shows it) has {have}: "
        "set devices (trainer.devices, --devices) to GPUs that exist here, e.g. devices=1 or [0].",
        {"asked": asked, "have": have, "option": "trainer.devices"},
        next=("nvidia-smi -L", "echo $CUDA_VISIBLE_DEVICES"),
    )


@rule(
    "bad-configuration",
    r"got signal: 1\b|closing signal SIGHUP",
    # torch/distributed/elastic/multiprocessing/api.py: the agent raises SignalException("Process N got signal: S")
    # on the signal it received, and passes that signal on to its workers ("Sending process N closing signal S")
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/elastic/multiprocessing/api.py "
    "(_terminate_process_handler, SignalException)",
    confidence=0.85,
)
def launcher_hung_up(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "The launcher (torchrun's agent) received SIGHUP and stopped its workers: the terminal or SSH session that "
        "started the job closed. nohup does not protect torchrun's workers from it: run the job under tmux or "
        "screen, with `setsid nohup torchrun ... &`, or through the cluster's scheduler.",
        {"signal": "SIGHUP", "option": "nohup", "tool": "tmux"},
    )


@rule(
    "bad-configuration",
    r"multiprocessing\.api\.SignalException(?:: Process \d{1,10} got signal: (?P<signal>\d{1,2}))?",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/elastic/multiprocessing/api.py "
    "(_terminate_process_handler raises SignalException on SIGTERM, SIGINT, SIGHUP, SIGQUIT)",
    confidence=0.55,
)
def launcher_signalled(found: re.Match[str], failure: Failure) -> Lead | None:
    """The agent was stopped by a signal from outside the job; which one decides where to look. SIGHUP has its own
    rule (launcher_hung_up, above)."""
    number = found.group("signal")
    if number == "1":
        return None
    if number in ("2", "3", "15"):
        name = {"2": "SIGINT", "3": "SIGQUIT", "15": "SIGTERM"}[number]
        return Lead(
            f"The launcher (torchrun's agent) received {name} from outside the job and stopped its workers: a "
            "scheduler (a time limit, a preemption, scancel, a Kubernetes eviction), Ctrl-C, or a kill. Not an error "
            "of the job itself: the scheduler's record says who sent it.",
            {"signal": name},
            verdict="unknown",
            next=(
                "sacct -j $SLURM_JOB_ID --format=JobID,State,ExitCode,Elapsed,Timelimit  # Slurm",
                "kubectl describe pod POD | grep -i -E 'reason|evict|preempt'  # Kubernetes",
            ),  # fmt: skip
        )
    return Lead(
        "The launcher (torchrun's agent) was stopped by a signal from outside the job; the log does not say which. "
        "The usual one, hours into a run started from a terminal, is SIGHUP when that terminal or SSH session "
        "closed: nohup does not protect torchrun's workers from it; run the job under tmux or screen, with "
        "`setsid nohup torchrun ... &`, or through a scheduler (whose time limits and preemptions send SIGTERM).",
        {"option": "nohup", "tool": "tmux"},
        verdict="unknown",
    )


# The variables a launcher sets for each process (torchrun, torch.distributed.launch, mpirun, srun)
_LAUNCHER_VARIABLES = re.compile(
    r"(?:RANK|WORLD_SIZE|LOCAL_RANK|LOCAL_WORLD_SIZE|GROUP_RANK|MASTER_ADDR|MASTER_PORT|OMPI_COMM_WORLD_\w+|PMI_\w+"
    r"|SLURM_\w+)"
)


@rule(
    "framework-internal-error",
    r"KeyError: '(?P<variable>[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|RANK)'",
    source="https://docs.python.org/3/library/os.html#os.environ (a missing key raises KeyError)",
    confidence=0.5,
)
def environment_variable_missing(found: re.Match[str], failure: Failure) -> Lead | None:
    """os.environ[NAME] of a variable that is not set. Who reads it decides: a launcher's variables mean the script
    was started without its launcher; the user's own read is theirs to set; a library's read without a default is
    a gap of the library (setting the variable works around it)."""
    variable = found.group("variable")
    # the caller of os.environ's __getitem__ (os.py raises the KeyError itself)
    frame = next((f for f in reversed(failure.frames) if not re.search(r"[/\\]os\.py$", f.file)), None)
    read_environment = any(re.search(r"[/\\]os\.py$", f.file) for f in failure.frames) or (
        frame is not None and ("environ" in frame.code or "getenv" in frame.code)
    )
    if frame is not None and frame.code and not read_environment:
        return None  # a dictionary of the program's own with an upper-case key, not the environment
    if not read_environment and not _LAUNCHER_VARIABLES.fullmatch(variable):
        return None  # no sign that the environment was read (a column name, a config key): nothing to say
    if _LAUNCHER_VARIABLES.fullmatch(variable):
        return Lead(
            f"{variable} is not set: the code expects the variables its launcher sets for each process (torchrun "
            "sets RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR and MASTER_PORT; srun the SLURM_ ones; mpirun OMPI_ or "
            "PMI_). Start it with that launcher, or set them.",
            {"variable": variable, "launcher": "torchrun"},
            family="bad-configuration",
            verdict="environment",
            confidence=0.75,
        )
    if frame is not None and frame.user:
        return Lead(
            f"Your code reads the environment variable {variable} (at {frame.short()}), which is not set: export "
            f"{variable}=... before running it, or read it with os.environ.get('{variable}', default).",
            {"variable": variable},
            family="bad-configuration",
            verdict="environment",
            confidence=0.7,
        )
    library = (frame.owner if frame is not None else None) or failure.library or "a library"
    return Lead(
        f"{library} reads the environment variable {variable} with os.environ[...] and it is not set: the library "
        f"has no default for it, a gap of the library worth reporting. Setting it works around it: export "
        f"{variable}='' (or the value the library's documentation gives).",
        {"variable": variable, "package": library if library != "a library" else ""},
        verdict="framework-bug",
    )


@rule(
    "hang-timeout",
    r"Task (?P<task>/job:[\w/:]{1,120}) heartbeat timeout|Barrier timed out\. Barrier_id: (?P<barrier>[\w.:/-]{1,120})",
    # XLA's coordination service (xla/tsl/distributed_runtime/coordination/coordination_service.cc), which
    # jax.distributed.initialize starts: a task that stops its heartbeats is set to ERROR; a barrier that not every
    # task reaches in time names the tasks it waited for
    source="https://github.com/openxla/xla/blob/main/xla/tsl/distributed_runtime/coordination/"
    "coordination_service.cc (heartbeat timeout, Barrier timed out)",
    confidence=0.8,
)
def jax_coordination_timeout(found: re.Match[str], failure: Failure) -> Lead:
    task, barrier = found.group("task"), found.group("barrier")
    if task:
        cause = (
            f"JAX's coordination service lost {task}: that process stopped its heartbeat timeout's worth of "
            "heartbeats (it crashed, was preempted or killed, or stalled longer than the timeout, as a very long "
            "allocation or start-up can). Its own log holds the earlier error; every other process is stopped "
            "because of it."
        )
    else:
        cause = (
            f"Not every JAX process reached the barrier {barrier} in time: the tasks it names crashed earlier, were "
            "never launched, or are still busy elsewhere. Their own logs (and that every host started its process) "
            "say which."
        )
    return Lead(
        cause,
        {"service": "jax.distributed", "task": task or "", "barrier": barrier or ""},
        verdict="unknown",
        next=("grep -n -i -E 'error|killed|preempt' LOGFILE  # each process's own log",),
    )


@rule(
    "hang-timeout",
    r"gloo/transport/tcp/[\w.]{1,40}:\d{1,6}\] Timed out waiting (?P<waited>\w{1,12}) ?ms for (?P<op>recv|send) "
    r"operation",
    # gloo's TCP transport (unbound_buffer.cc, pair.cc): a peer never sent (or took) its part of a collective
    source="https://github.com/pytorch/gloo/blob/main/gloo/transport/tcp/unbound_buffer.cc (waitRecv/waitSend)",
    confidence=0.8,
)
def gloo_timeout(found: re.Match[str], failure: Failure) -> Lead:
    op = found.group("op")
    return Lead(
        f"A gloo collective waited past its timeout for a peer to {op} its part: one rank never reached the same "
        "collective (it is slower, stuck elsewhere, died, or ran out of data first: ranks given different numbers "
        "of batches leave the others waiting at the next collective). Find the rank that is different.",
        {"op": op, "backend": "gloo"},
        verdict="unknown",
        next=(
            "xladoctor profile --stall-after 120 -- torchrun ...  # the stacks of every rank at the hang",
            "TORCH_DISTRIBUTED_DEBUG=DETAIL torchrun ...  # names a collective the ranks disagree on",
        ),
    )


@rule(
    "nccl-network",
    r"Unable to find address for:? (?P<iface>[\w.:-]{1,40})",
    # gloo/transport/tcp/device.cc (lookupAddrForIface): the interface GLOO_SOCKET_IFNAME (or TP_SOCKET_IFNAME)
    # names has no address on this host
    source="https://github.com/pytorch/gloo/blob/main/gloo/transport/tcp/device.cc (lookupAddrForIface)",
    confidence=0.9,
)
def gloo_interface_missing(found: re.Match[str], failure: Failure) -> Lead:
    iface = found.group("iface")
    return Lead(
        f"Gloo was told to use the network interface {iface} (GLOO_SOCKET_IFNAME), which has no address on this host: "
        "interface names differ between machines (eth0, ens5, enp1s0, ib0). Set GLOO_SOCKET_IFNAME (and "
        "NCCL_SOCKET_IFNAME) to an interface every node has, or leave them unset.",
        {"variable": "GLOO_SOCKET_IFNAME", "interface": iface},
        next=("ip -brief address",),
    )


@rule(
    "nccl-network",
    r"(?:Read|Write) error \[[^\]\n]{1,80}\]:\d{1,5}: (?P<why>Connection reset by peer|Connection refused|Broken pipe)"
    # the peer closed its end: gloo reads no bytes from the socket ("Connection closed by peer " + the peer's address)
    r"|(?P<closed>Connection closed by peer) \[[^\]\n]{1,80}\]:\d{1,5}",
    # gloo/transport/tcp/pair.cc: the socket to another rank closed under a collective
    source="https://github.com/pytorch/gloo/blob/main/gloo/transport/tcp/pair.cc (Read error / Write error; "
    '"Connection closed by peer")',
    confidence=0.8,  # over the connection words alone (ranks_cannot_connect): gloo's own line says the peer went
)
def gloo_peer_gone(found: re.Match[str], failure: Failure) -> Lead:
    why = found.group("why") or found.group("closed")
    return Lead(
        f"Gloo's connection to another rank closed ({why}): that rank most often died first (an "
        "exception, the OOM killer, a node lost), and its own log holds the cause; less often the network between "
        "them dropped it. Read the first failure among all ranks' logs.",
        {"variable": "GLOO_SOCKET_IFNAME"},
        verdict="unknown",
        next=(COLLECTIVE,),
    )


@rule(
    "unsupported-op",
    r"We detected accelerator (?P<accelerator>\w{1,20}) on your machine\. But we don't know which communication "
    r"backend to use for this accelerator",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py (init_process_group "
    "without backend=: the default backend of the current accelerator; mps had none before "
    "https://github.com/pytorch/pytorch/pull/149538)",
    confidence=0.85,
)
def no_default_backend_for_accelerator(found: re.Match[str], failure: Failure) -> Lead:
    """init_process_group() without backend= picks the backend registered for the machine's accelerator; torch
    releases that register none for it (mps before 2.7, a new device type) refuse rather than guess."""
    accelerator = found.group("accelerator")
    return Lead(
        f"torch.distributed has no default communication backend for {accelerator} in this release, so "
        "init_process_group() without backend= refuses: pass it yourself, init_process_group(backend='gloo') "
        f"(gloo runs the collectives on the CPU, the one {accelerator} can use here), or use a torch release that "
        "registers a default for it.",
        {"accelerator": accelerator, "backend": "gloo", "call": "init_process_group backend"},
        verdict="framework-bug",
    )


@rule(
    "nccl-infiniband",
    r"NCCL INFO NET/IB : No device found",
    source="https://github.com/NVIDIA/nccl/blob/master/src/transport/net_ib.cc (ncclIbInit: no verbs device); "
    "settled as a container without /dev/infiniband in https://github.com/pytorch/pytorch/issues/111424",
    confidence=0.45,
)
def no_infiniband_device(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "NCCL found no InfiniBand/RoCE device here and falls back to TCP sockets: on one node that is harmless, but a "
        "multi-node job on an InfiniBand cluster then crawls or stalls. In a container the RDMA devices must be "
        "passed in (--device=/dev/infiniband, the RDMA device plugin on Kubernetes, --ulimit memlock=-1), and the "
        "host's verbs library (libibverbs, the rdma-core package) must be inside it.",
        {"path": "/dev/infiniband", "variable": "NCCL_IB_HCA"},
        next=("ls /dev/infiniband  # inside the container", "ibv_devinfo", NCCL_DEBUG),
    )


@rule(
    "bad-configuration",
    r"Using RTX 4000 series doesn't support faster communication broadband via P2P or IB",
    source="https://github.com/huggingface/accelerate/blob/main/src/accelerate/state.py (PartialState: an RTX 40 "
    "series GPU without P2P/IB support and NCCL_P2P_DISABLE/NCCL_IB_DISABLE unset); settled so in "
    "https://github.com/QwenLM/Qwen-VL/issues/447",
    confidence=0.9,
)
def rtx_4000_without_p2p(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "accelerate refuses to start NCCL on RTX 40-series GPUs, which have no peer-to-peer or InfiniBand path "
        "between them, until NCCL is told not to try them: set NCCL_P2P_DISABLE=1 and NCCL_IB_DISABLE=1 before the "
        "launch (`accelerate launch` sets both itself; a deepspeed or torchrun launch does not).",
        {"variable": "NCCL_P2P_DISABLE", "also": "NCCL_IB_DISABLE"},
        export("NCCL_P2P_DISABLE", "1") + export("NCCL_IB_DISABLE", "1"),
    )


# DDP's constructor all-gathers each rank's parameter count and compares them (reducer.cpp,
# verify_params_across_processes). Two real counts that differ are models built differently on the ranks; a count of
# 0 is what a rank whose part of that all-gather never arrived leaves (a rank still loading data or a model, or a
# broken collective): a straggler, not a model.
@rule(
    "user-code-error",
    r"DDP expects same model across all ranks, but Rank (?P<rank>\d+) has (?P<mine>\d+) params, while rank "
    r"(?P<other>\d+) has inconsistent (?P<theirs>\d+) params",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/reducer.cpp "
    "(verify_params_across_processes)",
    confidence=0.9,
)
def ddp_models_differ(found: re.Match[str], failure: Failure) -> Lead:
    rank, mine, other, theirs = found.group("rank", "mine", "other", "theirs")
    if "0" in (mine, theirs):
        silent, counted = (other, mine) if theirs == "0" else (rank, theirs)
        return Lead(
            f"DDP's check of the model across ranks got no parameter count from rank {silent} (0 against {counted}): "
            "that rank had not reached the check (still loading data or the model, or stuck elsewhere), or the "
            "collective under it broke. A straggling rank, not a model that differs: find what that rank was doing.",
            {"rank": silent, "what": "parameter counts"},
            family="hang-timeout",
            verdict="unknown",
            confidence=0.7,
            next=(
                "xladoctor profile --stall-after 120 -- torchrun ...  # every rank's stack when they stop together",
                NCCL_DEBUG,
            ),
        )
    return Lead(
        f"The ranks built different models: rank {rank} has {mine} parameters and rank {other} has {theirs}. Code that "
        "builds the model by rank (a layer only rank 0 adds, a checkpoint loaded on one rank before DDP) or a config "
        "read differently per rank: build the same model on every rank before wrapping it in DDP.",
        {"rank": rank, "what": "parameter counts"},
        verdict="not-environment",
    )


# ProcessGroupNCCL checks each tensor a collective gets (check_gpu_single_tensor): a view that is not contiguous in
# memory (a transpose, a slice) is refused.
@rule(
    "user-code-error",
    r"Tensors must be contiguous",
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp",
    confidence=0.85,
)
def collective_tensor_not_contiguous(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        yours(
            failure,
            "A collective was given a tensor that is not contiguous in memory (a transposed or sliced view): call "
            ".contiguous() on it before the collective.",
        ),
        {"fix": ".contiguous()"},
        verdict="not-environment",
    )


@rule(
    "hang-timeout",
    r"NCCL communicator was aborted on rank (?P<rank>\d+)\.?"
    r"(?: *Original reason for failure was: (?P<reason>[^\n]{1,300}))?",
    # NCCLComm::getNcclComm (NCCLUtils.cpp; NCCLUtils.hpp before): a call on a communicator the watchdog (or the
    # program) aborted after an earlier failure; the reason is torch's own words for that failure, when it kept them
    source="https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/NCCLUtils.cpp "
    "(NCCLComm::getNcclComm: 'NCCL communicator was aborted on rank')",
    confidence=0.5,
)
def communicator_aborted(found: re.Match[str], failure: Failure) -> Lead:
    reason = (found.group("reason") or "").strip()
    said = f" torch kept the first failure's words: {reason}." if reason else ""
    return Lead(
        f"Rank {found.group('rank')}'s NCCL communicator had already been aborted when this call used it: a "
        "collective failed or timed out before, on this rank or another, and the watchdog then aborts every "
        f"communicator.{said} That first failure is the one to read: earlier in this log, or in the log of the rank "
        "that failed first (an exception on one rank, a rank the OOM killer stopped, a watchdog timeout).",
        {"rank": found.group("rank"), "reason": reason},
        verdict="unknown",
        next=(
            "grep -n -m1 -E 'Error|Traceback|Watchdog caught|exitcode' rank*.log  # the first failure of each rank",
            "dmesg -T | grep -i -E 'killed process|out of memory'  # a rank the kernel's OOM killer stopped",
        ),
    )


@rule(
    "accelerator-unavailable",
    r"Unable to proceed, no GPU resources available",
    source="https://github.com/deepspeedai/DeepSpeed/blob/master/deepspeed/launcher/runner.py (main: no hostfile, and "
    "get_accelerator().device_count() is 0); accelerator/real_accelerator.py (DS_ACCELERATOR; the CPU accelerator as "
    "the catch-all), mps_accelerator.py (device_count 1)",
    confidence=0.85,
)
def deepspeed_launcher_found_no_device(found: re.Match[str], failure: Failure) -> Lead:
    """The deepspeed launcher, with no hostfile, starts one process a device of the accelerator DeepSpeed detected,
    and found none."""
    return Lead(
        "The deepspeed launcher found no device to start a process on: with no hostfile it counts the devices of "
        "the accelerator DeepSpeed chose, and there were none. Recent DeepSpeed falls back to its CPU accelerator "
        "(and counts an Apple GPU as one), so the usual causes are an accelerator forced with DS_ACCELERATOR (cuda) "
        "on a machine where it sees no device (an empty CUDA_VISIBLE_DEVICES, a container started without --gpus, "
        "a CPU-only torch), or an older DeepSpeed that knew only CUDA (an Apple Silicon Mac). Check what torch and "
        "DeepSpeed see and what DS_ACCELERATOR says; without such a GPU, run the script with python instead of the "
        "launcher, or DS_ACCELERATOR=cpu.",
        {"variable": "DS_ACCELERATOR", "launcher": "deepspeed"},
        next=(
            'python -c "import torch; print(torch.__version__, torch.cuda.is_available(), torch.cuda.device_count())"',
            'echo "DS_ACCELERATOR=${DS_ACCELERATOR:-unset}"; ds_report',
        ),
    )


@rule(
    "unsupported-op",
    r"Unsloth currently does not (?:work on|support) multi GPU setups",
    source="https://github.com/unslothai/unsloth/blob/main/unsloth/models/llama.py (the Trainer's training loop "
    "refused when more than one GPU is visible); unsloth/tokenizer_utils.py",
    confidence=0.85,
)
def unsloth_single_gpu(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        "This Unsloth release trains on one GPU only and refuses when it sees more than one: expose a single GPU to "
        "the process before Unsloth is imported (CUDA_VISIBLE_DEVICES=0 python train.py, or os.environ[...] at the "
        "top of a notebook before any import). A gap of that Unsloth release, not of your install.",
        {"package": "unsloth", "variable": "CUDA_VISIBLE_DEVICES"},
        verdict="framework-bug",
    )


@rule(
    "user-code-error",
    r"(?P<task>/job:[\w-]{1,80}/replica:\d{1,6}/task:\d{1,6}|\b\d{1,6}) unexpectedly tried to connect with a different "
    r"incarnation",
    source="https://github.com/openxla/xla/blob/main/xla/tsl/distributed_runtime/coordination/coordination_service.cc "
    "(a task that registers again with a new incarnation id: the process of that task started anew)",
    confidence=0.6,
)
def jax_task_connected_twice(found: re.Match[str], failure: Failure) -> Lead:
    """JAX's coordination service knows each task by an incarnation id drawn when its process starts: the same task
    connecting with another one is a second process of that task, or the task's process started again."""
    return Lead(
        f"Task {found.group('task')} connected to JAX's coordination service a second time as a new process: "
        "jax.distributed.initialize() ran again for a task that was already connected, in another process or a "
        "restarted one. Most often it runs at import time and a worker subprocess (a data loader's workers, "
        "multiprocessing with spawn, which re-imports the main module) runs it again: call it once, under "
        "if __name__ == '__main__' (or only where multiprocessing.parent_process() is None). Otherwise two "
        "processes were given the same process_id (a launcher or Slurm step that does not number them as JAX "
        "expects), the task's process was restarted (preempted or evicted: look for SIGTERM or preemption_notifier "
        "in its log), or two jobs share one coordinator address and port (give each its own).",
        {"call": "jax.distributed.initialize", "task": found.group("task")},
        verdict="unknown",
        next=("grep -n -e preemption_notifier -e SIGTERM LOG  # a restarted task",),
    )


@rule(
    "bad-configuration",
    r"ssh: connect to host (?P<host>[\w.:-]{1,100}) port (?P<port>\d{1,5}): (?P<why>Connection timed out|Connection "
    r"refused|No route to host)|(?P<user>[\w.-]{1,60})@(?P<host2>[\w.:-]{1,100}): Permission denied \(publickey",
    source="https://www.deepspeed.ai/getting-started/#resource-configuration-multi-node (the launcher starts every "
    "host of the hostfile over passwordless ssh, through pdsh by default)",
    confidence=0.8,
)
def launcher_cannot_ssh(found: re.Match[str], failure: Failure) -> Lead:
    """A multi-node launcher (DeepSpeed's pdsh runner, a hostfile, mpirun) starts the other nodes over ssh: a host
    that cannot be reached, or that asks for a password, stops the job before any rank starts."""
    host = found.group("host") or found.group("host2")
    why = (
        "asks for a key this machine does not offer (passwordless ssh is not set up)"
        if found.group("host2")
        else f"cannot be reached on port {found.group('port')} ({found.group('why')})"
    )
    return Lead(
        f"The launcher starts each host of the job over ssh, and {host} {why}: the hostfile lists a host not "
        "reachable from here, or key-based ssh from this node to it is not set up. Every host of the hostfile must "
        f"take `ssh {host} hostname` from this node without a password (ssh-copy-id); remove the hosts the job should "
        "not use from the hostfile.",
        {"host": host, "variable": "hostfile", "what": "passwordless ssh"},
        next=(f"ssh -o BatchMode=yes {host} hostname  # must print the host's name, asking for nothing",),
    )
