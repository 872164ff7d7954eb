"""The fix plan: every finding's fix merged into one set of commands, in the order they are pasted.

The fixes are still structured here, so the plan sees every pin: two findings that install the same
distribution become one pin (their specifiers intersected), and a contradiction keeps the more severe
finding's pin and says so. A user never gets two commands that fight (`torch==2.9.0`, later `torch==2.13.0`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from packaging.specifiers import SpecifierSet

from xladoctor.facts.installer import Installer
from xladoctor.facts.model import Facts
from xladoctor.facts.platform import Platform, detect_platform
from xladoctor.findings import SEVERITY, Finding, Status
from xladoctor.fix import Install, Step, Uninstall
from xladoctor.matrix import Matrix, load_matrix
from xladoctor.remedy import builds, hosted, notebook
from xladoctor.remedy.pins import Pin
from xladoctor.remedy.render import Target, for_target, package_key, render_step


@dataclass(frozen=True)
class Plan:
    """One coherent set of commands that fixes every fixable finding, in order."""

    commands: tuple[str, ...]
    findings: tuple[str, ...]  # ids of the findings it addresses
    conflicts: tuple[str, ...]  # pins that could not be merged, or commands refused, explained
    installer: Installer
    platform: Platform = Platform("local", "cpu")
    notes: tuple[str, ...] = ()  # what to know or do after the commands (restart the kernel, ...)
    cells: tuple[str, ...] = ()  # the commands as notebook cell lines, when the platform is a notebook
    steps: tuple[Step, ...] = ()  # the structured steps the commands render


def merge_specifiers(current: str, new: str) -> str | None:
    """Intersect two specifiers; None when an exact pin contradicts the other side."""
    merged = SpecifierSet(current) & SpecifierSet(new)
    for spec in merged:
        if spec.operator == "==" and "*" not in spec.version:
            if not all(other.contains(spec.version, prereleases=True) for other in merged):
                return None
    return str(merged)


class _Merger:
    """Collects the steps of every fix, worst finding first."""

    def __init__(self) -> None:
        self.uninstall: list[str] = []
        self.pins: dict[str, Pin] = {}  # package key -> pin, in first-asked order
        self.other: list[Step] = []
        self.conflicts: list[str] = []

    def add(self, finding_id: str, step: Step) -> None:
        if isinstance(step, Uninstall):
            self.uninstall.extend(n for n in step.packages if n not in self.uninstall)
        elif isinstance(step, Install):
            for name, spec in step.packages:
                pin = Pin(name, spec, step.index_url, step.reinstall, step.no_deps, step.upgrade, step.find_links)
                self._pin(finding_id, pin)
        elif step not in self.other:
            self.other.append(step)

    def _pin(self, finding_id: str, pin: Pin) -> None:
        key = package_key(pin.name)
        kept = self.pins.get(key)
        if kept is None:
            self.pins[key] = pin
            return
        merged = merge_specifiers(kept.spec, pin.spec)
        if merged is None or (pin.index_url and kept.index_url and pin.index_url != kept.index_url):
            asked = f"{pin.name}{pin.spec}" + (f" from {pin.index_url}" if pin.index_url else "")
            self.conflicts.append(
                f"{finding_id} asks for {asked}, which contradicts {kept.name}{kept.spec} from a more severe "
                "finding; the plan keeps the latter"
            )
            return
        self.pins[key] = replace(
            kept,
            spec=merged,
            index_url=kept.index_url or pin.index_url,
            reinstall=kept.reinstall or pin.reinstall,
            no_deps=kept.no_deps and pin.no_deps,
            upgrade=kept.upgrade or pin.upgrade,
            find_links=kept.find_links or pin.find_links,
        )

    def install_steps(self) -> list[Install]:
        """One install step per set of options: plain installs first, then reinstalls and other indexes."""
        groups: dict[tuple[str | None, bool, bool, bool, str | None], list[Pin]] = {}
        plain = (None, False, False, False, None)
        for pin in sorted(self.pins.values(), key=lambda p: p.options != plain):
            groups.setdefault(pin.options, []).append(pin)
        return [
            Install(tuple((p.name, p.spec) for p in pins), o[0], o[4], reinstall=o[1], no_deps=o[2], upgrade=o[3])
            for o, pins in groups.items()
        ]


def build_plan(
    findings: Iterable[Finding], facts: Facts, platform: Platform | None = None, matrix: Matrix | None = None
) -> Plan:
    """Merge every fix of failing or warning findings, worst first, for the platform they are pasted on."""
    platform = platform if platform is not None else detect_platform(facts)
    actionable = [f for f in findings if f.fix is not None and f.status in (Status.FAIL, Status.WARN)]
    actionable.sort(key=lambda f: SEVERITY[f.status])
    merger = _Merger()
    for finding in actionable:
        assert finding.fix is not None
        for step in finding.fix.steps:
            merger.add(finding.id, step)
    paired = False
    matrix = matrix if matrix is not None else load_matrix()
    mismatch = hosted.unpaired(merger.pins, facts, matrix)
    if mismatch is not None:
        # pins of two findings that do not pair (torch==2.9.0 beside torch_xla==2.8.1), or torch moved beside an
        # installed torch_xla: the torch pin stays and torch_xla follows it in the same command, or torch is dropped
        merger.pins.pop("torch-xla", None)
    if mismatch is not None or hosted.guarded(platform, facts):
        had_torch = "torch" in merger.pins and "torch-xla" not in merger.pins
        refusal = hosted.pair_torch_xla(merger.pins, facts, matrix)
        said = f"{mismatch}; the plan installs the torch_xla built for that torch in the same command"
        merger.conflicts.extend([refusal] if refusal else [said] if mismatch else [])
        paired = had_torch and refusal is None
    flavour = builds.keep_flavour(merger.pins, facts, matrix)
    merger.conflicts.extend(flavour)
    unavailable = hosted.drop_unavailable_torch_xla(merger.pins, facts, matrix)
    merger.conflicts.extend([unavailable] if unavailable else [])
    target = Target(facts)
    other, refused = hosted.hosted_steps(merger.other, platform, target)
    steps: list[Step] = [Uninstall(tuple(merger.uninstall))] if merger.uninstall else []
    steps += [*merger.install_steps(), *other]
    steps = for_target(steps, target)
    commands = tuple(render_step(step, target) for step in steps)
    return Plan(
        commands,
        tuple(dict.fromkeys(f.id for f in actionable)),
        tuple([*merger.conflicts, *refused]),
        target.installer,
        platform,
        notebook.notes(commands, platform, paired),
        notebook.cells(steps, target, platform),
        tuple(steps),
    )
