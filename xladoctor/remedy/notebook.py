"""The plan as notebook cell lines (IPython's `!`, `%pip` and `%env`), and what to do after pasting them.

Written from the structured steps, not from shell text: a variable change must reach the kernel itself (a
`!export` or `!unset` would change a throw-away shell), and `%pip` installs into the kernel's own interpreter.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from xladoctor.facts.platform import Platform
from xladoctor.fix import Install, PrependPath, SetEnv, Step, Uninstall, UnsetEnv
from xladoctor.remedy.render import Target, render_step


def _cell(step: Step, target: Target, platform: Platform) -> str:
    if isinstance(step, UnsetEnv):
        return f"import os; os.environ.pop({step.name!r}, None)"
    if isinstance(step, SetEnv):
        return f"%env {step.name}={step.value}"
    if isinstance(step, PrependPath):
        name = repr(step.name)
        return f"import os; os.environ[{name}] = {step.directory!r} + os.pathsep + os.environ.get({name}, '')"
    command = render_step(step, target)
    own = platform.kernel_python is not None and platform.kernel_python == target.python
    if own and isinstance(step, (Install, Uninstall)) and command.startswith(target.pip() + " "):
        return "%pip " + command[len(target.pip()) + 1 :]  # %pip installs into the kernel's own interpreter
    return "!" + command


def cells(steps: Iterable[Step], target: Target, platform: Platform) -> tuple[str, ...]:
    """The plan's steps as notebook cell lines; none outside a notebook."""
    if not platform.notebook:
        return ()
    return tuple(_cell(step, target, platform) for step in steps)


def notes(commands: Sequence[str], platform: Platform, paired: bool) -> tuple[str, ...]:
    """What to know about the commands: the TPU pairing the plan added; restart the kernel in a notebook."""
    result: list[str] = []
    if paired:
        result.append(
            "torch_xla is pinned beside torch: on a TPU runtime torch only changes together with the torch_xla "
            "built for it (torch_xla X.Y imports beside torch X.Y only)"
        )
    if platform.restart and commands:
        result.append(
            f"then restart the kernel ({platform.restart}): a running kernel keeps the modules it has already "
            "imported and the variables it has set"
        )
    return tuple(result)
