#!/bin/bash
# Slurm Prolog and Epilog: `xladoctor gate --prolog` checks this node (its GPUs, driver and the site's ML stack);
# when it fails, the node is drained with the finding as its reason and the script exits 1.
#
#   slurm.conf:  Prolog=/etc/slurm/xladoctor-prolog.sh    (and Epilog=, the same file: a job that broke the node
#                                                          keeps the next job off it)
#                PrologEpilogTimeout=60                   (above XLADOCTOR_DEADLINE)
#   settings:    xladoctor-prolog.conf beside slurm.conf (the SLURM_CONF slurmd gives every prolog: /etc/slurm/), else
#                /etc/xladoctor/slurm-prolog.conf (a configless node, whose slurm.conf is slurmd's cached copy), or
#                XLADOCTOR_SLURM_CONF when the script is run by hand (slurmd passes its prolog none of its own
#                environment but SLURM_CONF). Shell assignments read as root, so root-owned and not writable by
#                others; one file can serve several node types (`case "$SLURMD_NODENAME" in gpu*) ...; esac`), e.g.
#                  XLADOCTOR=/opt/xladoctor/bin/xladoctor     # pipx or a venv; the prolog has no search path
#                  XLADOCTOR_ARGS=(--python /opt/ml/bin/python --timeout 20)   # the stack the jobs run
#                  XLADOCTOR_DEADLINE=45                      # seconds for the whole check
#                  XLADOCTOR_ON_ERROR=pass                    # or drain: when xladoctor cannot decide
#
# Facts this relies on (Slurm "Prolog and Epilog Guide", slurm.schedmd.com/prolog_epilog.html, last modified
# 03 May 2023; and slurm-wlm 22.05.8, measured on a real slurmctld + slurmd: tests/integration/test_slurm_real.py):
# - the Prolog runs on the node as SlurmdUser (root), with SLURMD_NODENAME, SLURM_JOB_ID, SLURM_CONF and
#   SLURM_SCRIPT_CONTEXT (prolog_slurmd or epilog_slurmd) and none of slurmd's own environment (measured), and "these
#   programs do not have a search path set";
# - "If the Prolog fails (returns a non-zero exit code), this will result in the node being set to a DRAIN state and
#   the job requeued"; an Epilog that fails drains the node too;
# - the reason Slurm gives such a node is "Prolog error" whatever the script printed (its output goes to slurmd's
#   log only); a reason set with `scontrol update nodename=N state=drain reason=...` before the failing exit stays,
#   as Slurm does not rewrite the reason of a node already drained. The guide asks prologs not to call Slurm
#   commands: this one calls scontrol once, and only when the node fails.
set -u
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH

XLADOCTOR=/usr/local/bin/xladoctor
XLADOCTOR_ARGS=()
XLADOCTOR_DEADLINE=45
XLADOCTOR_ON_ERROR=pass
SCONTROL=scontrol
settings="${XLADOCTOR_SLURM_CONF:-}"
if [[ -z "$settings" && -n "${SLURM_CONF:-}" && -r "${SLURM_CONF%/*}/xladoctor-prolog.conf" ]]; then
    settings="${SLURM_CONF%/*}/xladoctor-prolog.conf"
fi
settings="${settings:-/etc/xladoctor/slurm-prolog.conf}"
if [[ -r "$settings" ]]; then
    # shellcheck source=/dev/null
    . "$settings"
fi

node="${SLURMD_NODENAME:-$(hostname -s)}"
context="${SLURM_SCRIPT_CONTEXT:-prolog}"
say() { printf 'xladoctor-prolog: %s\n' "$*" >&2; }   # stderr lands in slurmd's log

drain() {  # reason
    if "$SCONTROL" update nodename="$node" state=drain reason="$1"; then
        say "drained $node (job ${SLURM_JOB_ID:-?}, $context): $1"
    else
        say "scontrol could not drain $node; Slurm drains it as \"Prolog error\" (job ${SLURM_JOB_ID:-?}): $1"
    fi
    exit 1
}

could_not_decide() {  # why
    if [[ "$XLADOCTOR_ON_ERROR" == "drain" ]]; then
        drain "xladoctor: could not check this node: $1"
    fi
    say "could not check $node ($1); the job starts (XLADOCTOR_ON_ERROR=pass)"
    exit 0
}

if [[ ! -x "$XLADOCTOR" ]]; then
    could_not_decide "$XLADOCTOR is not an executable file"
fi
reason="$(timeout --kill-after=5 "$XLADOCTOR_DEADLINE" "$XLADOCTOR" gate --prolog "${XLADOCTOR_ARGS[@]}")"
status=$?
reason="${reason%%$'\n'*}"
unnamed="xladoctor: the node failed its checks (the report is in the slurmd log)"
case "$status" in
    0) exit 0 ;;
    1) drain "${reason:-$unnamed}" ;;
    124 | 137) could_not_decide "no verdict within ${XLADOCTOR_DEADLINE}s" ;;
    *) could_not_decide "xladoctor exited $status${reason:+: $reason}" ;;
esac
