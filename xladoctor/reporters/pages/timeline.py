"""A process's steps as a small inline SVG chart: wall time, compiles, executions and host transfers per step, one
lane each, with the steps that recompiled marked and linked to their finding. A run longer than MAX_COLUMNS steps is
drawn in columns of several steps (their sums), and the chart says so."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xladoctor.profile.model import Step
from xladoctor.reporters.html import esc

MAX_COLUMNS = 300
WIDTH, LEFT, RIGHT, LANE, GAP, TOP, AXIS = 900.0, 118.0, 84.0, 34.0, 8.0, 6.0, 22.0


@dataclass(frozen=True)
class Lane:
    name: str
    value: Callable[[Step], float]
    unit: str = ""


LANES = (
    Lane("wall time", lambda s: s.wall_s or 0.0, " s"),
    Lane("compiles", lambda s: float(s.compiles)),
    Lane("executions", lambda s: float(s.executions)),
    Lane("host transfers", lambda s: float(s.transfers)),
)


def _number(value: float, unit: str) -> str:
    return f"{value:.3g}{unit}" if unit else f"{value:g}"


def _describe(group: Sequence[Step], recompiled: bool) -> str:
    first, last = group[0].index, group[-1].index
    where = f"step {first}" if first == last else f"steps {first}-{last}"
    walls = [s.wall_s for s in group if s.wall_s is not None]
    wall = f"{sum(walls):.3f} s" if walls else "wall time unknown"
    counts = (
        f"{sum(s.compiles for s in group)} compiles, {sum(s.executions for s in group)} executions, "
        f"{sum(s.transfers for s in group)} transfers, {sum(s.graph_breaks for s in group)} graph breaks, "
        f"{sum(s.recompiles for s in group)} recompiles"
    )
    fallbacks = sorted({op for s in group for op in s.fallbacks})
    fell = f"; CPU fallback: {', '.join(fallbacks)}" if fallbacks else ""
    return f"{where}: {wall}, {counts}{fell}" + ("; recompiled" if recompiled else "")


def timeline_svg(steps: Sequence[Step], marks: Mapping[int, str | None], label: str) -> str:
    """The chart; `marks` maps each step that recompiled to the element id of its finding (None: no finding)."""
    if not steps:
        return ""
    size = -(-len(steps) // MAX_COLUMNS)  # steps per column
    groups = [steps[i : i + size] for i in range(0, len(steps), size)]
    plot = WIDTH - LEFT - RIGHT
    column = plot / len(groups)
    height = TOP + len(LANES) * (LANE + GAP) + AXIS
    bottom = TOP + len(LANES) * (LANE + GAP) - GAP
    parts = [
        f'<svg class="timeline" viewBox="0 0 {WIDTH:g} {height:g}" role="img" '
        f'aria-label="{esc(f"timeline of {label}: {len(steps)} steps")}" xmlns="http://www.w3.org/2000/svg">'
    ]
    bands, bars, overlay = [], [], []
    for index, group in enumerate(groups):
        x = LEFT + index * column
        hit = [s.index for s in group if s.index in marks]
        cover = (
            f'<rect class="hover" x="{x:.2f}" y="{TOP:g}" width="{max(column, 1.5):.2f}" height="{bottom - TOP:g}" '
            f'fill="transparent"><title>{esc(_describe(group, bool(hit)))}</title></rect>'
        )
        if not hit:
            overlay.append(cover)
            continue
        wide = max(column, 1.5)
        bands.append(
            f'<rect class="recompiled" x="{x:.2f}" y="{TOP:g}" width="{wide:.2f}" height="{bottom - TOP:g}"/>'
            f'<rect class="tick" x="{x:.2f}" y="{bottom + 1:g}" width="{wide:.2f}" height="3"/>'
        )
        target = next((marks[i] for i in hit if marks[i]), None)
        overlay.append(f'<a href="#{esc(target)}" class="recompiled-step">{cover}</a>' if target else cover)
    for number, lane in enumerate(LANES):
        top = TOP + number * (LANE + GAP)
        values = [sum(lane.value(s) for s in g) for g in groups]
        peak = max(values) or 1.0
        parts.append(f'<rect class="lane" x="{LEFT:g}" y="{top:g}" width="{plot:g}" height="{LANE:g}"/>')
        parts.append(f'<text x="{LEFT - 6:g}" y="{top + LANE / 2 + 4:g}" text-anchor="end">{esc(lane.name)}</text>')
        parts.append(
            f'<text x="{WIDTH - RIGHT + 6:g}" y="{top + 10:g}">max {esc(_number(max(values), lane.unit))}</text>'
        )
        for index, value in enumerate(values):
            if value <= 0:
                continue
            bar = max(LANE * value / peak, 1.0)
            bars.append(
                f'<rect class="bar" x="{LEFT + index * column + column * 0.1:.2f}" y="{top + LANE - bar:.2f}" '
                f'width="{max(column * 0.8, 0.6):.2f}" height="{bar:.2f}"/>'
            )
    parts += bands + bars + overlay
    for index in sorted({0, len(groups) - 1, *range(0, len(groups), max(1, len(groups) // 6))}):
        x = LEFT + (index + 0.5) * column
        parts.append(f'<text x="{x:.1f}" y="{height - 6:g}" text-anchor="middle">{groups[index][0].index}</text>')
    parts.append(f'<text x="{LEFT - 6:g}" y="{height - 6:g}" text-anchor="end">step</text></svg>')
    per = f" Each column sums {size} steps." if size > 1 else ""
    return (
        f'<figure class="chart"><div class="scroll">{"".join(parts)}</div>'
        f'<figcaption class="muted">Per step of {esc(label)}: '
        'wall time, compiles, executions, device-to-host transfers. <span class="legend-recompiled"></span> '
        f"a step that recompiled (follow it to its finding).{per}</figcaption></figure>"
    )
