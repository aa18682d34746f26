#!/bin/sh
# report-screenshot.sh: see the HTML report as a user does. Builds the engine,
# writes the report of the example eval run (testdata/report/screenshot/),
# opens it from a file URL in Debian's headless Chromium and saves a PNG.
#
#   scripts/report-screenshot.sh [out.png] [width] [height]
#
# The default out.png is report-screenshot.png in the directory it is run
# from, 1100×1500: the tracked docs/report.png is replaced only when named
# (scripts/report-screenshot.sh docs/report.png).
#
# Installs the chromium package with apt-get when it is missing (needs root
# and a package mirror; nothing else is fetched). Not part of .ci/run.
set -eu
out=${1:-$(pwd)/report-screenshot.png}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
cd "$(dirname "$0")/.."
width=${2:-1100}
height=${3:-1500}

if ! command -v chromium >/dev/null 2>&1; then
	echo "report-screenshot: installing chromium with apt-get" >&2
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-dejavu-core
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/attest-engine" .
# Exit status 1 is a run with failures, which the example has on purpose.
"$tmp/attest-engine" eval --trace testdata/report/screenshot/traces.ndjson \
	--assertions testdata/report/screenshot/assertions.json \
	--format html --output "$tmp/report.html" || [ $? -eq 1 ]

mkdir -p "$(dirname "$out")"
# --no-sandbox: Chromium's sandbox needs user namespaces, which containers
# and CI runners often lack; the page is our own file and runs no network.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$tmp/profile" --window-size="$width,$height" \
	--screenshot="$out" "file://$tmp/report.html" 2>"$tmp/chromium.log" || {
	cat "$tmp/chromium.log" >&2
	exit 1
}
[ -s "$out" ] || { echo "report-screenshot: chromium wrote no screenshot" >&2; cat "$tmp/chromium.log" >&2; exit 1; }
echo "report-screenshot: wrote $out ($(wc -c <"$out") bytes)" >&2
