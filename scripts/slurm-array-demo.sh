#!/usr/bin/env bash
# slurm-array-demo.sh: the Slurm array job of docs/watch.md ("Beyond one machine"), run for real on a one-node
# cluster: one task is cancelled mid-run (scancel) and requeued (scontrol requeue), the shards' state dirs are
# merged, and the result lines (by result_id) and the merged history (counts, windows, alerts) must equal a
# single run's.
#
#   scripts/slurm-array-demo.sh [TRACES...]        (default 20000 1000000; run from the repository root, as root)
#
# Installs Debian's slurm-wlm and munge when missing (apt-get), writes a one-node slurm.conf under
# /etc/slurm (kept aside and put back at the end if one was there), starts munged, slurmctld and slurmd, and
# stops them at the end (KEEP_WORK=1 keeps the work dir, logs included). The job script is taken from
# docs/watch.md as printed there. Not part of .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $(id -u) == 0 ]] || { echo "run as root: it installs packages and starts the Slurm daemons" >&2; exit 2; }
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(20000 1000000)

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

WORK=$(mktemp -d /tmp/slurm-demo.XXXXXX)
chmod 755 "$WORK"
node=$(hostname -s)
pids=()
conf_saved=""
cleanup() {
	scancel --quiet --user root 2>/dev/null || true
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
	if [[ -n "$conf_saved" ]]; then mv "$conf_saved" /etc/slurm/slurm.conf; else rm -f /etc/slurm/slurm.conf; fi
	[[ -n "${KEEP_WORK:-}" ]] || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# munge: the node authenticates to itself with the key the package made.
[[ -s /etc/munge/munge.key ]] || mungekey --create --force
mkdir -p /run/munge && chown munge:munge /run/munge
if ! munge -n >/dev/null 2>&1; then
	runuser -u munge -- /usr/sbin/munged --foreground >"$WORK/munged.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
fi

# One node: this machine, with its cores and memory; no cgroups (a container has none to give).
mem=$(awk '/MemTotal/ { print int($2 / 1024) - 512 }' /proc/meminfo)
if [[ -e /etc/slurm/slurm.conf ]]; then conf_saved=$WORK/slurm.conf.saved; cp /etc/slurm/slurm.conf "$conf_saved"; fi
mkdir -p "$WORK/spool/ctld" "$WORK/spool/d"
cat >/etc/slurm/slurm.conf <<EOF
ClusterName=attest-demo
SlurmctldHost=$node
SlurmUser=root
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
StateSaveLocation=$WORK/spool/ctld
SlurmdSpoolDir=$WORK/spool/d
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
MpiDefault=none
SchedulerType=sched/backfill
NodeName=$node CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=demo Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i >"$WORK/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D >"$WORK/slurmd.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	[[ $(sinfo -h -N -o %t 2>/dev/null) == idle ]] && break
	sleep 0.2
done
[[ $(sinfo -h -N -o %t) == idle ]] || { echo "the node did not come up:" >&2; tail "$WORK"/slurm*.log >&2; exit 1; }
echo "cluster: $(sinfo -h -N -o '%N %t, %c CPUs, %m MB')"

mkdir -p "$WORK/bin"
CGO_ENABLED=0 go build -o "$WORK/bin/attest-engine" .
export PATH="$WORK/bin:$PATH"

# The job script exactly as docs/watch.md prints it: the ```sh block after "**Slurm array job**"
# (fenced "sh skip": the doc test does not run it).
awk '/^\*\*Slurm array job\*\*/ { f = 1 } f && /^```(bash|sh( skip)?)$/ { p = 1; next } p && /^```$/ { exit } p { print }' docs/watch.md >"$WORK/job.sh"
grep -q '^#SBATCH --array=' "$WORK/job.sh" || { echo "no job script found in docs/watch.md" >&2; exit 1; }
shards=$(awk -F= '/^shards=/ { print $2; exit }' "$WORK/job.sh")

# The suite: a content check whose pass rate drops from 0.95 to 0.85 at 60% of the input, and a latency
# budget; the traces are Attest NDJSON, made by awk from a fixed seed.
cat >"$WORK/suite.json" <<'EOF'
{"assertions": [
  {"name": "mentions-refund", "type": "content", "spec": {"target": "output.message", "check": "contains", "value": "refund"}},
  {"name": "latency-under-5s", "type": "constraint", "spec": {"field": "metadata.latency_ms", "operator": "lte", "value": 5000}}
]}
EOF

# count FILE: lines of a file, 0 when absent.
count() { if [[ -e "$1" ]]; then wc -l <"$1"; else echo 0; fi; }

for n in "${sizes[@]}"; do
	dir=$WORK/run-$n
	mkdir -p "$dir"
	cp "$WORK/suite.json" "$dir/"
	awk -v n="$n" 'BEGIN {
		srand(20261127)
		for (i = 0; i < n; i++) {
			p = (i < 0.6 * n) ? 0.95 : 0.85
			msg = (rand() < p) ? "Your refund RFD-" i " has been processed." : "Sorry, I cannot help."
			printf "{\"schema_version\":1,\"trace_id\":\"trc_%07d\",\"agent_id\":\"refund-agent\",\"output\":{\"message\":\"%s\"},\"metadata\":{\"latency_ms\":%d}}\n", i, msg, 200 + int(rand() * 5200)
		}
	}' >"$dir/traces.jsonl"

	echo "== $n traces, $shards shards"
	cd "$dir"
	start=$SECONDS
	job=$(sbatch --parsable --output="$dir/slurm-%A_%a.out" "$WORK/job.sh")
	# Cancel task 3 once it has written some results, then requeue it: it runs again from the start.
	victim=3
	for _ in $(seq 6000); do
		[[ $(count "results/part-$victim.jsonl") -gt 100 ]] && break
		sleep 0.05
	done
	before=$(count "results/part-$victim.jsonl")
	scancel "${job}_$victim"
	for _ in $(seq 100); do
		state=$(squeue -h -j "${job}_$victim" -o %T 2>/dev/null || true)
		[[ -z "$state" || "$state" == CANCELLED || "$state" == COMPLETING ]] || { sleep 0.1; continue; }
		scontrol requeue "${job}_$victim" 2>/dev/null && break
		sleep 0.2
	done
	echo "task $victim: cancelled after writing $before result lines, then requeued"
	# Slurm holds a requeued job for about two minutes (its BeginTime): start it as soon as it can.
	for _ in $(seq 50); do
		[[ $(squeue -h -j "${job}_$victim" -o %r 2>/dev/null) == BeginTime ]] && break
		sleep 0.1
	done
	scontrol update jobid="${job}_$victim" starttime=now 2>/dev/null || true
	while [[ -n $(squeue -h -j "$job" 2>/dev/null) ]]; do sleep 0.5; done
	array_s=$((SECONDS - start))
	for f in slurm-*.out; do
		if grep -q '"level":"ERROR"' "$f"; then echo "errors in $f:" >&2; cat "$f" >&2; exit 1; fi
	done
	rm -rf merged && attest-engine merge merged state/part-* >/dev/null
	start=$SECONDS
	attest-engine watch --suite suite.json --in traces.jsonl --deterministic --state-dir single --out single.jsonl 2>/dev/null
	single_s=$((SECONDS - start))
	cd - >/dev/null

	# Result lines, by result_id: every id once, and the lines byte for byte the single run's.
	cat "$dir"/results/part-*.jsonl >"$dir/all.jsonl"
	dups=$(jq -r .result_id "$dir/all.jsonl" | sort | uniq -d | wc -l)
	if cmp -s <(sort "$dir/all.jsonl") <(sort "$dir/single.jsonl"); then lines_ok=yes; else lines_ok=NO; fi
	# The merged history: every assertion's summaries (counts, windows, latest result, results dropped by
	# the window bound) and the alerts a report replays from them, against the single run's.
	if cmp -s <(jq -S .keys "$dir/merged/summaries.json") <(jq -S .keys "$dir/single/summaries.json"); then hist_ok=yes; else hist_ok=NO; fi
	for d in merged single; do
		attest-engine report --state-dir "$dir/$d" --html "$dir/$d.html" --deterministic
		grep -o '<li><pre>[^<]*</pre></li>' "$dir/$d.html" >"$dir/$d.alerts" || true
	done
	if cmp -s "$dir/merged.alerts" "$dir/single.alerts"; then alerts_ok=yes; else alerts_ok=NO; fi
	shard_alerts=$(cat "$dir"/state/part-*/alerts.ndjson 2>/dev/null | wc -l)
	echo "result lines: $(count "$dir/all.jsonl") from $shards shards, $dups result_ids twice; single run: $(count "$dir/single.jsonl"); identical: $lines_ok"
	echo "history: $(jq '[.keys[] | .windows[] | .passes + .fails + .errors + .skipped] | add' "$dir/merged/summaries.json") results in $(jq '[.keys[] | .windows | length] | add' "$dir/merged/summaries.json") windows merged, $(jq '[.keys[] | .windows[] | .passes + .fails + .errors + .skipped] | add' "$dir/single/summaries.json") in $(jq '[.keys[] | .windows | length] | add' "$dir/single/summaries.json") single ($(jq '[.keys[] | .dropped // 0] | add' "$dir/single/summaries.json") dropped by the window bound); summaries identical: $hist_ok"
	echo "alerts: merged history $(count "$dir/merged.alerts"), single run $(count "$dir/single.alerts") (live $(count "$dir/single/alerts.ndjson")); identical: $alerts_ok; the shards' own live alerts: $shard_alerts"
	echo "time: array job ${array_s} s (one node, $(nproc) cores, tasks of 2 CPUs), single run ${single_s} s"
	[[ $lines_ok == yes && $dups == 0 && $hist_ok == yes && $alerts_ok == yes ]] || { echo "FAIL: the merged shards differ from the single run" >&2; exit 1; }
done
echo "OK: at every size the shards' result lines and merged history equal the single run's"
