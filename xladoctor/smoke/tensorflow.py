"""TensorFlow's XLA, proven rather than assumed: autoclustering, jit_compile, and the XLA_CPU device.

What the three TF_XLA_FLAGS switches do is read off the installed TensorFlow by running it:
- --tf_xla_auto_jit=2 turns autoclustering on, but on the CPU TensorFlow clusters nothing unless
  --tf_xla_cpu_global_jit is also set (its one-time warning "Not using XLA:CPU for cluster"); the test
  shows this by compiling again with that flag added.
- --tf_xla_enable_xla_devices registers the XLA_CPU/XLA_GPU devices, which TensorFlow 2.4+ no longer
  registers by default and logs as deprecated when asked to. Without them, an op placed on
  /device:XLA_CPU:0 is silently moved to CPU:0 by soft placement; jit_compile and autoclustering do not
  need them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from xladoctor.facts.flags import flag_name, named, tokens_without
from xladoctor.findings import Status
from xladoctor.fix import set_or_unset
from xladoctor.smoke.context import SmokeContext
from xladoctor.smoke.model import SmokeResult

TF_RELEASE_2_4 = "https://github.com/tensorflow/tensorflow/releases/tag/v2.4.0"
TF_XLA_AUTOCLUSTERING = "https://openxla.org/xla/tf2xla#auto-clustering"
TF_JIT_FLAGS = "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/jit/flags.cc"


def _without(flags: str, names: Iterable[str]) -> list[str]:
    return tokens_without(flags, named(names))


def _auto_jit_on(flags: str) -> bool:
    values = [t.split("=", 1)[1] if "=" in t else "" for t in flags.split() if flag_name(t) == "tf_xla_auto_jit"]
    return bool(values) and values[-1] in ("1", "2", "fusible")


def _parts(records: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(r.get("part")): r for r in records if r.get("kind") == "result"}


def _with_dump(ctx: SmokeContext, flags: list[str], folder: str) -> tuple[dict[str, str | None], str]:
    dump = str(ctx.scratch / folder)
    xla_flags = " ".join([*ctx.facts.env.get("XLA_FLAGS", "").split(), f"--xla_dump_to={dump}"])
    return {"TF_XLA_FLAGS": " ".join(flags), "XLA_FLAGS": xla_flags}, dump


def tensorflow_autocluster(ctx: SmokeContext) -> list[SmokeResult]:
    user = ctx.facts.env.get("TF_XLA_FLAGS", "").strip()
    asked = _auto_jit_on(user)
    cpu_only = not (ctx.facts.system is not None and ctx.facts.system.gpus)
    if asked:
        flags = user.split()
    else:  # the user's own flags say nothing about autoclustering: use what this machine needs for it
        flags = [*_without(user, ["tf_xla_auto_jit", "tf_xla_cpu_global_jit"]), "--tf_xla_auto_jit=2"]
        flags += ["--tf_xla_cpu_global_jit"] if cpu_only else []
    env, dump = _with_dump(ctx, flags, "dump-a")
    run = ctx.run("tf_autocluster", env=env, args={"dump_dir": dump})
    parts = _parts(run.records)
    if "autocluster" not in parts or "jit_compile" not in parts:
        return ctx.results("tensorflow", run)  # crashed or refused to start: classify that
    seconds = run.result.duration_s / 2
    results = [_jit_result(parts["jit_compile"], seconds, ctx)]
    auto = parts["autocluster"]
    if auto.get("ok"):
        where = f"with your TF_XLA_FLAGS={user!r}" if asked else f"with TF_XLA_FLAGS={' '.join(flags)!r}"
        verified = f"XLA compiled autoclustered {', '.join(m.split('__')[0] for m in auto['modules'])} {where}"
        if not asked:
            verified += "; your TF_XLA_FLAGS does not turn autoclustering on"
            verified += (
                " (on the CPU it needs --tf_xla_cpu_global_jit as well as --tf_xla_auto_jit)" if cpu_only else ""
            )
        results.append(SmokeResult("tensorflow", Status.OK, auto.get("device"), seconds, verified=verified))
        return results
    if not auto.get("ran"):
        return results + [r for r in ctx.results("tensorflow", run) if r.status is not Status.OK]
    results.append(_why_no_cluster(ctx, user, flags, asked, auto, seconds))
    return results


def _jit_result(record: dict[str, Any], seconds: float, ctx: SmokeContext) -> SmokeResult:
    if record.get("ok"):
        return SmokeResult(
            "tensorflow",
            Status.OK,
            record.get("device"),
            seconds,
            verified="tf.function(jit_compile=True) was compiled by XLA and matches NumPy",
        )
    cause = record.get("error") or "tf.function(jit_compile=True) ran but XLA compiled no module"
    return SmokeResult("tensorflow", Status.FAIL, record.get("device"), seconds, cause=str(cause))


def _why_no_cluster(
    ctx: SmokeContext, user: str, flags: list[str], asked: bool, auto: dict[str, Any], seconds: float
) -> SmokeResult:
    """Autoclustering compiled nothing: on the CPU, prove whether --tf_xla_cpu_global_jit is what is missing."""
    device = str(auto.get("device"))
    if "CPU" not in device or any(flag_name(t) == "tf_xla_cpu_global_jit" for t in flags):
        return SmokeResult(
            "tensorflow",
            Status.FAIL,
            device,
            seconds,
            cause=f"the function ran, but XLA compiled no cluster with TF_XLA_FLAGS={' '.join(flags)!r}",
            refs=(TF_XLA_AUTOCLUSTERING,),
        )
    retry_flags = [*flags, "--tf_xla_cpu_global_jit"]
    env, dump = _with_dump(ctx, retry_flags, "dump-b")
    retry = _parts(ctx.run("tf_autocluster", env=env, args={"dump_dir": dump}).records).get("autocluster", {})
    fixed = " ".join(retry_flags)
    if not retry.get("ok"):
        return SmokeResult(
            "tensorflow",
            Status.FAIL,
            device,
            seconds,
            cause="autoclustering compiled nothing on the CPU, even with --tf_xla_cpu_global_jit added",
            refs=(TF_XLA_AUTOCLUSTERING,),
        )
    proof = (
        "on the CPU, --tf_xla_auto_jit alone clusters nothing (TensorFlow's one-time warning 'Not using XLA:CPU "
        "for cluster'); XLA:CPU autoclustering also needs --tf_xla_cpu_global_jit. Proven here: with it added, "
        f"XLA compiled {', '.join(m.split('__')[0] for m in retry.get('modules', []))}"
    )
    if asked:
        return SmokeResult(
            "tensorflow",
            Status.FAIL,
            device,
            seconds,
            cause=f"TF_XLA_FLAGS={user!r} asks for autoclustering, but {proof}",
            fix=set_or_unset("TF_XLA_FLAGS", retry_flags),
            refs=(TF_XLA_AUTOCLUSTERING, TF_JIT_FLAGS),
        )
    return SmokeResult(
        "tensorflow",
        Status.OK,
        device,
        seconds,
        verified=f"XLA autoclustering works here with TF_XLA_FLAGS={fixed!r}: {proof}",
    )


def tensorflow_xla_devices(ctx: SmokeContext) -> list[SmokeResult]:
    """Run TensorFlow twice, without and with --tf_xla_enable_xla_devices, and report what each registers."""
    user = ctx.facts.env.get("TF_XLA_FLAGS", "").strip()
    base = _without(user, ["tf_xla_enable_xla_devices"])
    seen: dict[str, dict[str, Any]] = {}
    deprecation = None
    seconds = 0.0
    for label, flags in (("without", base), ("with", [*base, "--tf_xla_enable_xla_devices"])):
        run = ctx.run("tf_xla_devices", env={"TF_XLA_FLAGS": " ".join(flags), "TF_CPP_MIN_LOG_LEVEL": "0"})
        seconds += run.result.duration_s
        records = [r for r in run.records if r.get("kind") == "result"]
        if not records:
            return ctx.results("tf-xla-devices", run)
        seen[label] = records[0]
        if label == "with":
            deprecation = next(
                (ln.split("] ", 1)[-1] for ln in run.result.stderr.splitlines() if "deprecated" in ln and "XLA" in ln),
                None,
            )
    off, on = seen["without"], seen["with"]
    summary = (
        f"XLA_CPU is {'registered' if off['xla_cpu_registered'] else 'not registered'} without "
        f"--tf_xla_enable_xla_devices (an op placed on /device:XLA_CPU:0 ran on {_device_tail(off)}), and "
        f"{'registered' if on['xla_cpu_registered'] else 'still not registered'} with it (ran on {_device_tail(on)})"
    )
    metrics = {"without": off, "with": on, "deprecation": deprecation}
    user_sets = any(flag_name(t) == "tf_xla_enable_xla_devices" for t in user.split())
    if user_sets and (deprecation or not on["xla_cpu_registered"]):
        why = deprecation or "this TensorFlow no longer registers XLA_CPU for it"
        return [
            SmokeResult(
                "tf-xla-devices",
                Status.WARN,
                off.get("device"),
                seconds,
                verified=summary,
                cause=f"TF_XLA_FLAGS sets --tf_xla_enable_xla_devices: {why}. Only code that places ops on "
                "/device:XLA_CPU:0 needs it; jit_compile=True and autoclustering work without it",
                metrics=metrics,
                fix=set_or_unset("TF_XLA_FLAGS", _without(user, ["tf_xla_enable_xla_devices"])),
                refs=(TF_RELEASE_2_4,),
            )
        ]
    note = "; only code that places ops on /device:XLA_CPU:0 needs the flag"
    return [
        SmokeResult("tf-xla-devices", Status.OK, off.get("device"), seconds, verified=summary + note, metrics=metrics)
    ]


def _device_tail(record: dict[str, Any]) -> str:
    placed = record.get("placed_on") or f"nothing ({record.get('placement_error')})"
    return str(placed).rsplit("/", 1)[-1]
