"""Warnings people ask about: lines torch.distributed prints that alarm but stop nothing (a variable's old name, a
process group left open at exit, a private collective, an address family the host lacks).

These rules (`on="warnings"`) are read by verdict.warnings_alone only, from the whole log's text, where nothing else
decided (engine.explain_stream: no rule, signature, stall or fact the log states) and no line of the log says that
something failed; their words are no trigger of the region collector. The same lines are printed at the end of
failed runs too (a program that dies exits without destroying its process group), and there the error is the
failure. Each cause says it is a warning, and a reading of warnings alone leaves the exit status 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from xladoctor.explain.records import Failure
from xladoctor.explain.rules import Lead, Reader, rule

_C10D = "https://github.com/pytorch/pytorch/blob/main/torch/csrc/distributed/c10d/"
NOT_A_FAILURE = "A warning, not a failure"


def _warning(family: str, pattern: str, *, source: str, confidence: float = 0.6) -> Callable[[Reader], Reader]:
    """A rule of this module: read only in a log of warnings alone."""
    return rule(family, pattern, source=source, confidence=confidence, on="warnings")


@_warning(
    "api-version-skew",
    r"Environment variable (?P<old>[A-Z][A-Z0-9_]{2,60}) is deprecated; use (?P<new>[A-Z][A-Z0-9_]{2,60}) instead",
    source=f"{_C10D}Utils.hpp (getCvarString, getCvarInt, getCvarBool: each variable's old names warn); "
    "https://github.com/pytorch/pytorch/pull/114077 (the NCCL process group's variables take the TORCH_ prefix, "
    "PyTorch 2.2); https://github.com/ray-project/ray/issues/47286",
)
def variable_renamed(found: re.Match[str], failure: Failure) -> Lead:
    old, new = found.group("old"), found.group("new")
    return Lead(
        f"{NOT_A_FAILURE}: torch reads {old} under its new name {new} now, and warns that something set the old "
        f"one. Code written for an older torch sets {old}: set {new} instead and unset {old}. If your own scripts "
        "and job files do not set it, a library or launcher you run does (a trainer, a cluster framework): a newer "
        "release of it sets the new name.",
        {"variable": new, "old": old},
        next=(f"env | grep -E '^(TORCH_)?{old.removeprefix('TORCH_')}='", "python -m pip list 2>/dev/null"),
    )


@_warning(
    "user-code-error",
    r"destroy_process_group\(\) was not called before program exit"
    r"|process group has NOT been destroyed before (?:it is being destructed|we destruct)",
    source=f"{_C10D}ProcessGroupNCCL.cpp (the destructor's warning, PyTorch 2.4 and later); "
    "https://pytorch.org/docs/stable/distributed.html#shutdown; https://github.com/pytorch/examples/pull/1387",
)
def process_group_left_open(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"{NOT_A_FAILURE}: the program ended with its torch.distributed process group still open. Call "
        "torch.distributed.destroy_process_group() at the program's end, after its last collective (in your script, "
        "or in the library that set the group up). The warning is printed after a failed run too: when the run "
        "failed, the error that stopped it is above this line.",
        {"fix": "torch.distributed.destroy_process_group()"},
        verdict="not-environment",
        next=(
            "grep -rn 'destroy_process_group' --include='*.py' .  # where your code tears the group down, if it does",
        ),
    )


@_warning(
    "api-version-skew",
    # older releases' words (a UserWarning), and newer ones' (a @deprecated FutureWarning, the names between backticks)
    r"`?torch\.distributed\.(?P<old>_\w{1,60})`? is a private function and will be deprecated\. "
    r"Please use `?torch\.distributed\.(?P<new>\w{1,60})`? instead",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py (_all_gather_base, "
    "_reduce_scatter_base: the private collectives warn); https://github.com/Lightning-AI/pytorch-lightning/issues/19091",
)
def private_collective(found: re.Match[str], failure: Failure) -> Lead:
    old, new = found.group("old"), found.group("new")
    return Lead(
        f"{NOT_A_FAILURE}: code written for an older torch calls torch.distributed.{old}, which torch keeps for now "
        f"and will remove; its public successor is torch.distributed.{new}. The code that calls it is most often a "
        "library's (DeepSpeed's communication layer, an older trainer): upgrade that library, or change the call in "
        "your own code.",
        {"function": f"torch.distributed.{old}", "use": f"torch.distributed.{new}"},
        next=(f"grep -rn '{old}' --include='*.py' .  # and in the site-packages of the libraries you run",),
    )


@_warning(
    "bad-configuration",
    r"TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, this environment variable is thus deprecated",
    source=f"{_C10D}ProcessGroupNCCL.cpp (avoidRecordStreams_ on by default); "
    "https://github.com/pytorch/torchtitan/pull/1088",
)
def setting_now_the_default(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"{NOT_A_FAILURE}: TORCH_NCCL_AVOID_RECORD_STREAMS asks for what this torch does by default. Unset it (or "
        "stop the job file or library that sets it from setting it on this torch).",
        {"variable": "TORCH_NCCL_AVOID_RECORD_STREAMS"},
        next=("env | grep ^TORCH_NCCL_AVOID_RECORD_STREAMS",),
    )


@_warning(
    "framework-internal-error",
    r"master_addr is only used for static rdzv_backend and when rdzv_endpoint is not specified",
    source="https://github.com/pytorch/pytorch/blob/main/torch/distributed/run.py; "
    "https://github.com/pytorch/pytorch/issues/111085 (printed on every rendezvous launch, as master_addr always "
    "has a default); https://github.com/pytorch/pytorch/pull/114335",
)
def rendezvous_master_addr(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"{NOT_A_FAILURE}: torchrun's own note, which some releases print on every launch with a rendezvous "
        "backend, whether or not --master_addr was given. Harmless; only if you did pass --master_addr expecting it "
        "to be used: with --rdzv_backend=c10d the address that counts is --rdzv_endpoint's.",
        {"option": "--rdzv_endpoint"},
        verdict="framework-bug",
        next=("python -m pip show torch 2>/dev/null | grep -i '^version'",),
    )


@_warning(
    "framework-internal-error",
    r"The server socket cannot be initialized on \[::\]:(?P<port>\d{1,5}) "
    r"\(errno: 97 - Address family not supported by protocol\)",
    source=f"{_C10D}socket.cpp (the listener tries each address family getaddrinfo gives and logs each one that "
    "fails); https://github.com/pytorch/pytorch/issues/128998",
    confidence=0.9,
)
def ipv6_listener_refused(found: re.Match[str], failure: Failure) -> Lead:
    return Lead(
        f"{NOT_A_FAILURE}: torch.distributed's store tried to listen on IPv6 ([::]:{found.group('port')}) on a host "
        "with IPv6 off, logged it, and went on with IPv4. Harmless when the run goes on; only when no address "
        "family works does the store fail, with an error of its own.",
        {"port": found.group("port")},
        verdict="framework-bug",
        next=("cat /proc/sys/net/ipv6/conf/all/disable_ipv6  # 1: IPv6 is off on this host",),
    )
