#!/bin/bash
# Kubernetes Node Problem Detector custom plugin: `xladoctor check --format npd` on the node itself. xladoctor, the
# GPU driver and the ML stack live on the host, not in NPD's image, so the check runs in the host's namespaces
# (nsenter into PID 1's; the DaemonSet sets hostPID and privileged). Arguments go to `xladoctor check`.
#
# NPD's plugin protocol (kubernetes/node-problem-detector pkg/custompluginmonitor/types/types.go @146a394f: OK 0,
# NonOK 1, Unknown 2; plugin/plugin.go @011b9e6a): exit 0 healthy, 1 a problem, anything else unknown; only stdout
# becomes the condition's message, trimmed and cut to max_output_length bytes (80 unless the config says otherwise).
# NPD's image carries bash and util-linux's nsenter (its Dockerfile @0012798b: `clean-install util-linux bash`).
set -u
readonly OK=0 NONOK=1 UNKNOWN=2
XLADOCTOR="${XLADOCTOR:-/usr/local/bin/xladoctor}"
enter=(nsenter --target 1 --mount --uts --ipc --net --pid --)
if [[ "${XLADOCTOR_NPD_IN_HOST:-yes}" == "no" ]]; then  # xladoctor installed in this container (or a test)
    enter=()
fi

if ((${#enter[@]})) && ! "${enter[@]}" true 2>/dev/null; then
    echo "cannot enter the node's namespaces: the pod needs hostPID: true and privileged"
    exit "$UNKNOWN"
fi
if ! "${enter[@]}" test -x "$XLADOCTOR"; then
    echo "xladoctor is not installed on this node at $XLADOCTOR"
    exit "$UNKNOWN"
fi
errors="$(mktemp)" || exit "$UNKNOWN"
trap 'rm -f -- "$errors"' EXIT
line="$("${enter[@]}" "$XLADOCTOR" check --format npd "$@" 2>"$errors")"
status=$?
case "$status" in
    "$OK" | "$NONOK")
        printf '%s\n' "${line%%$'\n'*}"
        exit "$status"
        ;;
    *)
        why="$(head -n 1 -- "$errors")"
        echo "xladoctor could not check this node (exit $status)${why:+: $why}"
        exit "$UNKNOWN"
        ;;
esac
