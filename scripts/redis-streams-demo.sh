#!/usr/bin/env bash
# redis-streams-demo.sh: three `attest-engine watch` consumers share a Redis Streams consumer group; one is
# killed (SIGKILL) mid-stream and its pending entries are reclaimed with XAUTOCLAIM by the others. The
# de-duplicated results must equal a single run's, nothing lost.
#
#   scripts/redis-streams-demo.sh [TRACES]        (default 3000; run from the repository root)
#
# Installs redis-server from Debian's packages when it is missing (apt-get, as root or through sudo), runs
# its own redis-server on 127.0.0.1 (no persistence) and stops it at the end. Not part of .ci/run.
set -euo pipefail

if [[ "${1:-}" == consume ]]; then
	# consume NAME DELAY: one consumer, run by the script itself in its own process group.
	name=$2 delay=$3
	batch=0
	while :; do
		# New entries first; when there are none, reclaim entries another consumer read and never
		# acknowledged for 2 s (XAUTOCLAIM); when there are none of those either and nothing is pending,
		# the stream is done.
		out=$($CLI XREADGROUP GROUP watchers "$name" COUNT 50 STREAMS traces '>')
		if [[ -z "$out" ]]; then
			out=$($CLI XAUTOCLAIM traces watchers "$name" 2000 0-0 COUNT 50)
			if ! grep -qx trace <<<"$out"; then
				pending=$($CLI XPENDING traces watchers | head -1)
				[[ "$pending" == 0 ]] && exit 0
				sleep 0.2
				continue
			fi
			echo "$name reclaimed $(grep -cx trace <<<"$out") entries" >&2
		fi
		batch=$((batch + 1))
		# redis-cli prints an entry as five lines: its id, "trace_id", the trace id, "trace", the trace.
		awk '{ l[NR] = $0 } NR > 4 && l[NR-1] == "trace" && l[NR-3] == "trace_id" { print }' <<<"$out" >"$WORK/$name.in"
		ids=$(awk '{ l[NR] = $0 } NR > 4 && l[NR-1] == "trace" && l[NR-3] == "trace_id" { print l[NR-4] }' <<<"$out")
		"$ENGINE" watch --suite "$SUITE" --in "$WORK/$name.in" --deterministic --log-level warn >"$WORK/results/$name-$batch.tmp"
		mv "$WORK/results/$name-$batch.tmp" "$WORK/results/$name-$batch.jsonl" # results are durable before the ack
		# A slow consumer: killed here, its results are written but its entries still pending (the
		# at-least-once window), so they are evaluated again after XAUTOCLAIM and de-duplicated.
		sleep "$delay"
		$CLI XACK traces watchers $ids >/dev/null
	done
fi

n=${1:-3000}
cd "$(dirname "$0")/.."
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
	sudo=""
	[[ $(id -u) == 0 ]] || sudo=sudo
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
fi

WORK=$(mktemp -d)
PORT=${REDIS_PORT:-6391}
export WORK ENGINE="$WORK/attest-engine" SUITE="testdata/watch/suite.json" CLI="redis-cli -h 127.0.0.1 -p $PORT"
mkdir "$WORK/results"
redis_pid=""
consumers=()
cleanup() {
	for pid in "${consumers[@]}"; do kill -9 -- "-$pid" 2>/dev/null || true; done
	[[ -n "$redis_pid" ]] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

CGO_ENABLED=0 go build -o "$ENGINE" .
redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no --protected-mode yes >"$WORK/redis.log" 2>&1 &
redis_pid=$!
for _ in $(seq 50); do $CLI PING >/dev/null 2>&1 && break; sleep 0.1; done

# The traces: Attest NDJSON, one per stream entry, each entry keyed by its trace id.
awk -v n="$n" 'BEGIN {
	for (i = 0; i < n; i++) {
		msg = (i % 5 == 0) ? "Sorry, I cannot help." : "Your refund RFD-" i " has been processed."
		printf "{\"schema_version\":1,\"trace_id\":\"trc_%d\",\"agent_id\":\"refund-agent\",\"steps\":[{\"type\":\"tool_call\",\"name\":\"lookup_order\"},{\"type\":\"tool_call\",\"name\":\"process_refund\"}],\"output\":{\"message\":\"%s\"},\"metadata\":{\"latency_ms\":%d}}\n", i, msg, 1000 + (i * 37) % 9000
	}
}' >"$WORK/traces.jsonl"
# XADD through redis-cli --pipe (the Redis protocol written by awk).
awk '{ id = $0; sub(/^.*"trace_id":"/, "", id); sub(/".*$/, "", id)
	printf "*7\r\n$4\r\nXADD\r\n$6\r\ntraces\r\n$1\r\n*\r\n$8\r\ntrace_id\r\n$%d\r\n%s\r\n$5\r\ntrace\r\n$%d\r\n%s\r\n", length(id), id, length($0), $0 }' \
	"$WORK/traces.jsonl" | $CLI --pipe >/dev/null
$CLI XGROUP CREATE traces watchers 0 >/dev/null
echo "stream: $($CLI XLEN traces) entries; consumer group 'watchers'"

# Three consumers, each in its own process group; c2 is slow and gets killed between writing and acking.
for c in c1:0.05 c2:0.5 c3:0.05; do
	setsid "$0" consume "${c%%:*}" "${c##*:}" &
	consumers+=($!)
done
while (($(ls "$WORK/results" | grep -c '^c2-.*\.jsonl$' || true) < 2)); do sleep 0.05; done
sleep 0.2 # c2 has written its second batch's results and not acknowledged them
kill -9 -- "-${consumers[1]}"
wait "${consumers[1]}" 2>/dev/null || true
echo "killed c2 (SIGKILL) after it wrote $(ls "$WORK/results" | grep -c '^c2-.*\.jsonl$') batches of results, the last not acknowledged; entries pending for c2: $($CLI XPENDING traces watchers - + 1000 c2 | grep -cx c2)"
for _ in $(seq 1200); do # at most 2 minutes
	kill -0 "${consumers[0]}" 2>/dev/null || kill -0 "${consumers[2]}" 2>/dev/null || break
	sleep 0.1
done
if kill -0 "${consumers[0]}" 2>/dev/null || kill -0 "${consumers[2]}" 2>/dev/null; then
	echo "FAIL: the consumers did not finish within 2 minutes; pending: $($CLI XPENDING traces watchers | head -1)" >&2
	exit 1
fi

# Check: de-duplicated results equal a single run over all traces, nothing lost.
"$ENGINE" watch --suite "$SUITE" --in "$WORK/traces.jsonl" --deterministic --log-level warn | sort >"$WORK/single.jsonl"
cat "$WORK"/results/*.jsonl | sort >"$WORK/all.jsonl"
# One line per result_id (the first seen).
awk -F'"result_id":"' '{ split($2, a, "\""); if (!seen[a[1]]++) print }' "$WORK/all.jsonl" | sort >"$WORK/dedup.jsonl"
echo "results: $(wc -l <"$WORK/all.jsonl") lines written, $(($(wc -l <"$WORK/all.jsonl") - $(wc -l <"$WORK/dedup.jsonl"))) duplicates (re-delivered after the kill), $(wc -l <"$WORK/dedup.jsonl") unique; single run: $(wc -l <"$WORK/single.jsonl")"
echo "per consumer (batches): $(ls "$WORK/results" | sed 's/-.*//' | sort | uniq -c | tr -s ' \n' ' ')"
if cmp -s "$WORK/dedup.jsonl" "$WORK/single.jsonl"; then
	echo "OK: the de-duplicated results equal the single run; every trace evaluated ($($CLI XPENDING traces watchers | head -1) pending)"
else
	echo "FAIL: the results differ from the single run" >&2
	diff "$WORK/single.jsonl" "$WORK/dedup.jsonl" | head >&2
	exit 1
fi
