#!/bin/sh
# diff-bench.sh: `attest-engine diff` end to end on the speed goal's runs (10⁶ result pairs: two JSON
# reports of 20,000 cases × 50 assertion keys, 10 of them graded, seeded), this checkout's build beside a
# baseline's, alternating in one run; wall time, CPU and peak RSS from /usr/bin/time, written in the
# benchmark format for benchstat.
#
#   scripts/diff-bench.sh [baseline-rev] [rounds]
#
# The baseline is a git revision (default main), built from `git archive`; rounds (default 6) runs of
# each, the order alternating. The figures go to diff-bench.txt in the directory it is run from (benchstat
# -col /bin diff-bench.txt compares them; it is run when installed), and each round's JSON outputs are
# compared: the two builds must agree byte for byte. Environment: ATTEST_DIFF_SEED (1) seeds the runs,
# ATTEST_DIFF_CASES (20,000) and ATTEST_DIFF_KEYS (50) size them, ATTEST_DIFF_WATCH=1 writes watch's
# result lines instead of JSON reports, DIFF_BENCH_RUNS=dir keeps the runs there (written when missing)
# rather than in a temporary directory. Needs ~650 MB of disk for the default runs. Not part of .ci/run.
set -eu
out=$(pwd)/diff-bench.txt
cd "$(dirname "$0")/.."
rev=${1:-main}
rounds=${2:-6}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

CGO_ENABLED=0 go build -o "$tmp/new" .
mkdir "$tmp/old-src"
git archive "$rev" | tar -x -C "$tmp/old-src"
(cd "$tmp/old-src" && CGO_ENABLED=0 go build -o "$tmp/old" .)

runs=${DIFF_BENCH_RUNS:-$tmp/runs}
ext=json
[ "${ATTEST_DIFF_WATCH:-}" = 1 ] && ext=jsonl
if [ ! -f "$runs/base.$ext" ] || [ ! -f "$runs/head.$ext" ]; then
	mkdir -p "$runs"
	ATTEST_DIFF_LARGE_DIR=$runs go test -count=1 -run '^TestWriteLargeRuns$' ./rundiff >/dev/null
fi
base=$runs/base.$ext
head=$runs/head.$ext
echo "diff-bench: $(ls -l "$base" | awk '{print $5}') + $(ls -l "$head" | awk '{print $5}') bytes; baseline $rev; $rounds rounds" >&2
echo "diff-bench: load before: $(cat /proc/loadavg)" >&2

: >"$out"
echo "goos: $(go env GOOS)" >>"$out"
echo "goarch: $(go env GOARCH)" >>"$out"
echo "pkg: attest-engine/rundiff" >>"$out"
one() { # one run of build $1: a benchmark line
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$tmp/$1" diff --base "$base" --head "$head" --format json >"$tmp/$1.json" || [ $? -eq 1 ]
	# The last line: time writes "Command exited with non-zero status 1" before it (a key regressed).
	tail -n 1 "$tmp/time" | awk -v b="$1" \
		'{ printf "BenchmarkDiff/bin=%s 1 %.0f ns/op %.0f cpu-ns/op %.0f peak-RSS-B\n", b, $1*1e9, ($2+$3)*1e9, $4*1024 }' >>"$out"
}
i=0
while [ "$i" -lt "$rounds" ]; do
	if [ $((i % 2)) -eq 0 ]; then one old; one new; else one new; one old; fi
	cmp -s "$tmp/old.json" "$tmp/new.json" || { echo "diff-bench: the builds' outputs differ" >&2; exit 1; }
	i=$((i + 1))
done
echo "diff-bench: load after: $(cat /proc/loadavg)" >&2
echo "diff-bench: outputs identical in every round; figures in $out" >&2
if command -v benchstat >/dev/null 2>&1; then
	benchstat -col /bin "$out"
else
	cat "$out"
fi
