"""One way of reading a host fact and how it went: shared by the driver and the GPU health probes' facts."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ProbeAttempt:
    """One way of reading the driver (nvml, proc, nvidia-smi) and how it went."""

    method: str
    ok: bool
    error: str | None = None
    path: str | None = None
    timed_out: bool = False  # the tool did not answer within its bound (a wedged driver)
    duration_s: float | None = None
