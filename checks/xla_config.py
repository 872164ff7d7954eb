"""Area `xla-config`: environment settings that decide whether XLA runs at all, judged against the install.

TensorFlow reads TF_XLA_FLAGS at its first XLA use and ends the process on a name it does not know
(xla/parse_flags_from_env.cc: "Unknown flag in TF_XLA_FLAGS: --name"). Which names it knows is read from
the installed TensorFlow's own libraries, where each registered flag is a string literal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from xladoctor.diagnosis.inputs import needs
from xladoctor.diagnosis.registry import area
from xladoctor.diagnosis.variables import EVERY_VARIABLE
from xladoctor.facts.builds import tensorflow_build
from xladoctor.facts.flags import named, tokens_without
from xladoctor.facts.model import Distribution, Distributions
from xladoctor.facts.prerequisites import Prerequisite, env_set
from xladoctor.facts.stack import COMPONENTS
from xladoctor.findings import Outcome, Skip, Status
from xladoctor.fix import Fix, set_or_unset, unset

check = area("xla-config")


def set_without(variable: str, value: str, drop: Callable[[str], bool]) -> Fix:
    """The fix that keeps a flags variable's other tokens (or unsets it when none are left)."""
    return set_or_unset(variable, tokens_without(value, drop))


PARSE_FLAGS = "https://github.com/openxla/xla/blob/main/xla/parse_flags_from_env.cc"
TF_FLAGS = "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/jit/flags.cc"


@check(
    "tf-xla-flags-unknown",
    "TF_XLA_FLAGS against the installed TensorFlow",
    requires=(needs("python"), needs("tensorflow"), env_set("TF_XLA_FLAGS")),
    env=("TF_XLA_FLAGS",),
)
def tf_xla_flags_unknown(tensorflow: Distribution, env: Mapping[str, str]) -> Iterator[Outcome]:
    tf = tensorflow
    value = env["TF_XLA_FLAGS"]
    recorded = (tf.known_flags or {}).get("TF_XLA_FLAGS")
    known = dict(recorded or {})
    evidence = {"TF_XLA_FLAGS": value, "tensorflow": f"{tf.name} {tf.version}", "known": known}
    if recorded is None:
        raise Skip(f"the flags {tf.name} {tf.version} registers could not be read", evidence)
    unknown = [name for name, ok in known.items() if not ok]
    if unknown:
        fix = set_without("TF_XLA_FLAGS", value, named(unknown))
        yield Outcome(
            Status.FAIL,
            f"TF_XLA_FLAGS has flags {tf.name} {tf.version} does not know: " + ", ".join(f"--{n}" for n in unknown),
            detail="TensorFlow ends the process at its first XLA use (jit_compile or autoclustering) with "
            f"'Unknown flag in TF_XLA_FLAGS: --{unknown[0]}...'. Flags come and go between releases.",
            evidence=evidence,
            fix=fix,
            refs=(PARSE_FLAGS, TF_FLAGS),
        )
        return
    yield Outcome(
        Status.OK,
        f"{tf.name} {tf.version} knows every TF_XLA_FLAGS flag: " + ", ".join(f"--{n}" for n in known),
        evidence=evidence,
        refs=(TF_FLAGS,),
    )


TROUBLESHOOT = "https://github.com/pytorch/xla/blob/master/docs/source/learn/troubleshoot.md#environment-variables"
# pytorch/xla troubleshoot.md: "Setting such variables will cause different degrees of performance
# degradation, so they should only be enabled for debugging."
TORCH_XLA_DEBUG_VARIABLES = (
    "XLA_IR_DEBUG",
    "XLA_HLO_DEBUG",
    "XLA_SAVE_TENSORS_FILE",
    "XLA_METRICS_FILE",
    "XLA_SYNC_WAIT",
    "XLA_USE_EAGER_DEBUG_MODE",
    "PT_XLA_DEBUG",
    "PT_XLA_DEBUG_LEVEL",
)
PERSISTENT_CACHES = (
    "torch_xla: torch_xla.runtime.initialize_cache(path); TensorFlow: "
    "--tf_xla_persistent_cache_directory in TF_XLA_FLAGS; JAX: jax_compilation_cache_dir"
)
XLA_STACK = Prerequisite(
    "xla",
    lambda f: any(f.installed(n) for n in ("torch_xla", "jax", "jaxlib")) or tensorflow_build(f)[0] is not None,
    "no XLA framework (torch_xla, TensorFlow, JAX) is installed",
    ("distributions",),
)


LOGGING_CC = "https://github.com/openxla/xla/blob/main/xla/tsl/platform/default/logging.cc"


def _int(value: str | None) -> int:
    """What logging.cc ParseInteger makes of a variable: its integer, or 0."""
    try:
        return int(value or "0")
    except ValueError:
        return 0


def vlog_on(torch_xla: Distribution | None, tensorflow: Distribution | None, env: Mapping[str, str]) -> bool:
    """TF_CPP_MAX_VLOG_LEVEL > 0 with INFO lines printed: TensorFlow/torch_xla's C++ runtime logs every step.

    logging.cc: VLOG(n) is on when n <= TF_CPP_MAX_VLOG_LEVEL, and is printed as INFO, which
    TF_CPP_MIN_LOG_LEVEL >= 1 drops. TensorFlow 2.21 and torch_xla 2.9 (_XLAC) read TF_CPP_MAX_VLOG_LEVEL;
    the older name TF_CPP_MIN_VLOG_LEVEL is in neither library and does nothing there.
    """
    readers = torch_xla or tensorflow
    return bool(readers) and _int(env.get("TF_CPP_MAX_VLOG_LEVEL")) > 0 and _int(env.get("TF_CPP_MIN_LOG_LEVEL")) <= 0


def _on(value: str | None) -> bool:
    return value is not None and value.strip() not in ("", "0", "false", "False")


@check(
    "xla-debug-switches",
    "XLA debug switches left on",
    requires=(XLA_STACK,),
    env=(*TORCH_XLA_DEBUG_VARIABLES, "XLA_FLAGS", "TF_CPP_MAX_VLOG_LEVEL", "TF_CPP_MIN_LOG_LEVEL"),
)
def xla_debug_switches(
    env: Mapping[str, str], torch_xla: Distribution | None, tensorflow: Distribution | None
) -> Iterator[Outcome]:
    """Debug variables slow every step; XLA dumps fill the disk and are not a compile cache."""
    on = [v for v in TORCH_XLA_DEBUG_VARIABLES if torch_xla and _on(env.get(v))]
    dump = [t for t in env.get("XLA_FLAGS", "").split() if t.startswith("--xla_dump_to")]
    vlog = ["TF_CPP_MAX_VLOG_LEVEL"] if vlog_on(torch_xla, tensorflow, env) else []
    evidence = {"set": {v: env[v] for v in on + vlog}, "xla_dump_flags": dump}
    if not on and not dump and not vlog:
        yield Outcome(Status.OK, "No XLA debug switch or dump is on", evidence=evidence)
        return
    fix = unset(*on)
    notes = []
    if on:
        notes.append(
            f"{', '.join(on)} make PyTorch/XLA record stack traces or write graphs and metrics at every "
            "step (pytorch/xla: 'different degrees of performance degradation')"
        )
    if dump:
        fix += set_without("XLA_FLAGS", env["XLA_FLAGS"], lambda t: t.startswith("--xla_dump"))
        notes.append(
            f"{dump[0]} writes every compiled module to disk; it is a debugging dump, not a compile "
            f"cache (persistent caches: {PERSISTENT_CACHES})"
        )
    if vlog:
        fix += unset("TF_CPP_MAX_VLOG_LEVEL")
        notes.append(
            f"TF_CPP_MAX_VLOG_LEVEL={env['TF_CPP_MAX_VLOG_LEVEL']} makes TensorFlow's C++ runtime (and "
            "torch_xla's, which reads the same variable) print its verbose log on every step (tensorflow-cpu "
            "2.21: 15 lines per call of a one-op tf.function at level 1, 32 at level 3)"
        )
    yield Outcome(
        Status.WARN,
        "Debug switches are on: " + ", ".join(on + [d.split("=")[0] for d in dump] + vlog),
        detail="; ".join(notes) + ".",
        evidence=evidence,
        fix=fix,
        refs=(TROUBLESHOOT,) + ((LOGGING_CC,) if vlog else ()),
    )


# The variables are those the installed torch_xla names in its own source: only the facts know them.
@check(
    "xla-env-deprecated",
    "Variables the installed torch_xla declares deprecated",
    requires=(needs("python"), needs("torch_xla")),
    env=(EVERY_VARIABLE,),
)
def xla_env_deprecated(torch_xla: Distribution, env: Mapping[str, str]) -> Iterator[Outcome]:
    xla = torch_xla
    declared = list((xla.declared_lists or {}).get("deprecated_env_vars", []))
    set_now = [v for v in declared if env.get(v)]
    evidence = {"declared_by_torch_xla": declared, "set": set_now, "torch_xla": xla.version}
    if xla.declared_lists is None:
        raise Skip(f"torch_xla {xla.version} declares no deprecated variables xladoctor could read", evidence)
    if set_now:
        yield Outcome(
            Status.WARN,
            f"torch_xla {xla.version} deprecates {', '.join(set_now)}, which is set",
            detail="torch_xla warns about it at import and may ignore it; its own source lists it in "
            "deprecated_env_vars.",
            evidence=evidence,
            fix=unset(*set_now),
        )
        return
    yield Outcome(
        Status.OK,
        f"None of the variables torch_xla {xla.version} deprecates is set ({', '.join(declared) or 'none declared'})",
        evidence=evidence,
    )


@check(
    "xla-env-ignored",
    "Variables the installed torch_xla no longer reads",
    requires=(needs("python"), needs("torch_xla")),
)
def xla_env_ignored(torch_xla: Distribution) -> Iterator[Outcome]:
    """XRT-era settings (XRT_TPU_CONFIG, GPU_NUM_DEVICES, ...) do nothing once torch_xla stopped reading them."""
    xla = torch_xla
    mentions = dict(xla.env_var_mentions or {})
    ignored = [v for v, named in mentions.items() if not named]
    evidence = {"checked": mentions, "torch_xla": xla.version}
    if ignored:
        yield Outcome(
            Status.WARN,
            f"torch_xla {xla.version} no longer reads {', '.join(ignored)}",
            detail="No file of the installed torch_xla (its Python code or its _XLAC extension) names "
            "it, so it has no effect: a leftover of the XRT runtime or of an older release. Since "
            "torch_xla 2.0 the runtime is PJRT, configured with PJRT_DEVICE.",
            evidence=evidence,
            fix=unset(*ignored),
            refs=("https://github.com/pytorch/xla/blob/master/docs/source/learn/pjrt.md",),
        )
        return
    yield Outcome(
        Status.OK,
        "No retired torch_xla variable is set"
        if not mentions
        else f"torch_xla {xla.version} still reads {', '.join(mentions)}",
        evidence=evidence,
    )


XLA_READERS = ("torch_xla", "jaxlib", *COMPONENTS["tensorflow"])


@check(
    "xla-flags-unknown",
    "XLA_FLAGS against each installed XLA",
    requires=(needs("python"), XLA_STACK, env_set("XLA_FLAGS")),
    env=("XLA_FLAGS",),
)
def xla_flags_unknown(env: Mapping[str, str], distributions: Distributions) -> Iterator[Outcome]:
    """Every framework carries its own XLA; each aborts on an XLA_FLAGS name its XLA does not register."""
    value = env["XLA_FLAGS"]
    readers = [d for d in (distributions.installed(n) for n in XLA_READERS) if d is not None]
    verdicts = {
        d.name: dict((d.known_flags or {}).get("XLA_FLAGS") or {})
        for d in readers
        if (d.known_flags or {}).get("XLA_FLAGS") is not None
    }
    evidence = {"XLA_FLAGS": value, "known": verdicts}
    if not verdicts:
        raise Skip("the XLA flags the installed frameworks register could not be read", evidence)
    unknown = sorted({n for names in verdicts.values() for n, ok in names.items() if not ok})
    if unknown:
        who = ", ".join(
            f"{d} (--{', --'.join(n for n, ok in names.items() if not ok)})"
            for d, names in verdicts.items()
            if not all(names.values())
        )
        fix = set_without("XLA_FLAGS", value, named(unknown))
        yield Outcome(
            Status.FAIL,
            f"XLA_FLAGS names flags the installed XLA does not know: {who}",
            detail="The framework aborts at its first compilation with 'Unknown flag in XLA_FLAGS: "
            f"--{unknown[0]}...' (torch_xla is killed by SIGABRT). XLA flags change between releases.",
            evidence=evidence,
            fix=fix,
            refs=(PARSE_FLAGS,),
        )
        return
    yield Outcome(Status.OK, "Every XLA_FLAGS flag is known to " + ", ".join(verdicts), evidence=evidence)
