"""Area `xla-config`: environment settings that decide whether XLA runs at all, judged against the install.

TensorFlow reads TF_XLA_FLAGS at its first XLA use and ends the process on a name it does not know
(xla/parse_flags_from_env.cc: "Unknown flag in TF_XLA_FLAGS: --name"). Which names it knows is read from
the installed TensorFlow's own libraries, where each registered flag is a string literal.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator

from xladoctor.builds import tensorflow_build
from xladoctor.facts import Facts
from xladoctor.findings import Fix, Outcome, Status
from xladoctor.matrix import Matrix
from xladoctor.registry import Prerequisite, check, target_probed

PARSE_FLAGS = "https://github.com/openxla/xla/blob/main/xla/parse_flags_from_env.cc"
TF_FLAGS = "https://github.com/tensorflow/tensorflow/blob/master/tensorflow/compiler/jit/flags.cc"
TF_XLA_FLAGS_SET = Prerequisite(
    "TF_XLA_FLAGS", lambda f: bool(f.env.get("TF_XLA_FLAGS", "").strip()), "TF_XLA_FLAGS is not set"
)
TF_INSTALLED = Prerequisite("tensorflow", lambda f: tensorflow_build(f)[0] is not None, "TensorFlow is not installed")


@check(
    "tf-xla-flags-unknown",
    area="xla-config",
    title="TF_XLA_FLAGS against the installed TensorFlow",
    requires=(target_probed(), TF_INSTALLED, TF_XLA_FLAGS_SET),
)
def tf_xla_flags_unknown(facts: Facts, matrix: Matrix) -> Iterator[Outcome]:
    tf, _ = tensorflow_build(facts)
    assert tf is not None
    value = facts.env["TF_XLA_FLAGS"]
    known = dict(tf.known_flags or {})
    evidence = {"TF_XLA_FLAGS": value, "tensorflow": f"{tf.name} {tf.version}", "known": known}
    if tf.known_flags is None:
        yield Outcome(Status.SKIP, f"Could not read the flags {tf.name} {tf.version} registers", evidence=evidence)
        return
    unknown = [name for name, ok in known.items() if not ok]
    if unknown:
        kept = [t for t in value.split() if t.lstrip("-").split("=", 1)[0] not in unknown]
        command = f"export TF_XLA_FLAGS={shlex.quote(' '.join(kept))}" if kept else "unset TF_XLA_FLAGS"
        yield Outcome(
            Status.FAIL,
            f"TF_XLA_FLAGS has flags {tf.name} {tf.version} does not know: " + ", ".join(f"--{n}" for n in unknown),
            detail="TensorFlow ends the process at its first XLA use (jit_compile or autoclustering) with "
            f"'Unknown flag in TF_XLA_FLAGS: --{unknown[0]}...'. Flags come and go between releases.",
            evidence=evidence,
            fix=Fix(commands=(command,)),
            refs=(PARSE_FLAGS, TF_FLAGS),
        )
        return
    yield Outcome(
        Status.OK,
        f"{tf.name} {tf.version} knows every TF_XLA_FLAGS flag: " + ", ".join(f"--{n}" for n in known),
        evidence=evidence,
        refs=(TF_FLAGS,),
    )
