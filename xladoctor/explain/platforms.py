"""The platform a log came from, by what it shows, and the packages that have no build for some platforms.

A pasted log seldom says its operating system, but its paths and the system's own words do: /Users/ and Homebrew's
/opt/homebrew on a Mac, drive letters and WinError on Windows. Where a package publishes no build for that platform
(Triton's wheels are Linux-only; FlashAttention needs CUDA or ROCm), "install it" is no fix, and the reading says
what is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xladoctor.explain.records import Failure

# A Mac: its paths (/Users/, Homebrew's, python.org's framework build), platform strings (platform.platform():
# "macOS-14.2.1-arm64-arm-64bit"; sys.platform "darwin"), or the user naming an Apple chip
_MAC = re.compile(
    r"/Users/[^/\s]{1,100}/|/opt/homebrew/|Python\.framework/|\bmacOS[- ]\d|\bdarwin\b|arm64-arm-64bit"
    r"|\bMac ?(?:OS|Book|mini|Studio)?\s?M[1-4]\b|Apple (?:Silicon|M[1-4])",
    re.IGNORECASE,
)
# Windows: a drive letter's path, a backslashed site-packages (either doubled, as a repr() of the path prints it),
# the system's error words, its wheel tags
_WINDOWS = re.compile(
    r"\b[A-Za-z]:\\{1,2}[^\s\\]{1,100}\\|\\{1,2}site-packages\\|\[WinError \d+\]|\bwin_amd64\b",
)


def platform_of_failure(failure: Failure) -> str | None:
    """The platform a failure record shows, by its text and its frames' paths."""
    return platform_of(" ".join([failure.haystack, *(frame.file for frame in failure.frames)]))


def platform_of(text: str) -> str | None:
    """'macos' or 'windows' when the text shows one platform and not the other, else None."""
    mac, windows = _MAC.search(text) is not None, _WINDOWS.search(text) is not None
    if mac == windows:
        return None
    return "macos" if mac else "windows"


# (import name, platform) -> what to say instead of "install it", and the package to install when one command fits
# every torch (none here: triton-windows must match the torch's Triton, so the reading says how to pick it).
# Triton: PyPI's triton files are Linux wheels only (https://pypi.org/project/triton/#files); triton-windows is the
# community build for Windows (https://github.com/woct0rdho/triton-windows, https://pypi.org/project/triton-windows/).
# FlashAttention builds for CUDA and ROCm only (https://github.com/Dao-AILab/flash-attention#installation-and-features).
NO_BUILD: dict[tuple[str, str], tuple[str, str | None]] = {
    ("triton", "windows"): (
        "Triton publishes no Windows builds (its wheels are Linux-only), so `pip install triton` finds nothing on "
        "Windows. The community build triton-windows provides the module: install its release of the same minor "
        "version as the Triton the installed torch requires (torch 2.6 requires Triton 3.2, so triton-windows<3.3; "
        "its README pairs the rest), not the newest; or run without what needs Triton (torch.compile's GPU "
        "backend, Triton kernels).",
        None,
    ),
    ("triton", "macos"): (
        "Triton publishes no macOS builds (its wheels are Linux-only) and needs an NVIDIA or AMD GPU: code that "
        "needs it (Triton kernels, torch.compile's GPU backend) does not run on a Mac. Use the project's path "
        "without Triton (an option to turn its kernels off, or torch.compile off).",
        None,
    ),
    ("flash_attn", "macos"): (
        "FlashAttention builds only for NVIDIA (CUDA) and AMD (ROCm) GPUs: it cannot be installed on a Mac. Use "
        'PyTorch\'s own attention instead (transformers: attn_implementation="sdpa" or "eager"), or the '
        "project's option to run without flash-attn.",
        None,
    ),
}


@dataclass(frozen=True)
class Unbuilt:
    """A package the platform a failure shows has no build of (NO_BUILD's row for it)."""

    platform: str  # windows | macos
    said: str  # why installing it is no fix there, and what is
    instead: str | None  # the package that provides the module there, when one does

    @property
    def name(self) -> str:
        return "Windows" if self.platform == "windows" else "macOS"


def unbuilt_here(module: str, failure: Failure) -> Unbuilt | None:
    """The row of NO_BUILD for `module` on the platform the failure shows; None where it has a build (or the
    platform is not told)."""
    platform = platform_of_failure(failure)
    row = NO_BUILD.get((module, platform or ""))
    return Unbuilt(platform, *row) if row is not None and platform is not None else None
