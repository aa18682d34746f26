#!/usr/bin/env bash
# otel-kill.sh: the official OpenTelemetry Go SDK (otlptracehttp: binary protobuf, gzip, its own retries
# of 429/502/503/504) exports traces to `attest-engine watch --listen --state-dir`, which is killed with
# SIGKILL at seeded moments during the export and started again each time; then every span answered 200
# must be judged in its trace's verdict that counts (the line no later line supersedes), equal to a clean
# run's, and the history must count what a clean run counts.
#
#   scripts/otel-kill.sh [TRACES [KILLS [SEED]]]     (default 3000 50 1; run from the repository root)
#
# The SDK lives in its own module (scripts/otelkill, its own go.mod): the engine's module stays
# standard-library only. It downloads the SDK through the Go module proxy on first use. Not part of
# .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
traces=${1:-3000} kills=${2:-50} seed=${3:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -o "$work/attest-engine" .
(cd scripts/otelkill && go build -o "$work/otelkill" .)
"$work/otelkill" -engine "$work/attest-engine" -traces "$traces" -kills "$kills" -seed "$seed" -work "$work"
