// Package history is the memory of continuous evaluation: an append-only log
// of results in a state dir, per-window summaries that merge across shards,
// drift detection over them, and alerts.
//
// # Use
//
//	s, err := history.Open(dir, history.Options{})   // recovers dir
//	alerts, err := s.AddAll(results)                 // a trace's results, one write
//	rep, ok := s.Drift("assertion name", 50)         // query_drift's answer
//	err = s.Close()
//	thr, why, err := s.Threshold("assertion name")   // threshold: "dynamic"
//	ser, ok := s.Series("assertion name")            // windows and alerts, for charts
//	err = history.Merge(dst, src1, src2)             // combine shard dirs
//	r, err := history.OpenReadOnly(dir)              // read beside the writer (no lock)
//
// ParseLine builds a Result from a watch result line's fields, for the
// adapter between the watch command's Recorder seam and a Store.
//
// # Bounds
//
// A result's strings are at most MaxField (4096) bytes; a frame at most 64
// KiB; at most MaxKeys (1024) assertion keys are summarized (further ones
// are logged, counted by Overflow, and warned about once; a merge whose
// sources, with the destination, name more is refused before anything is
// written: TooManyKeys) and MaxWindows (8192)
// windows per assertion: a key keeps its first 1,024 window ids (its
// baseline's, unless that spans more than 20,480 traces at the default
// windows) and its latest 6,656 to 7,167 (dropped 512 at a time), and the
// results of the windows between are counted, not summarized. Which windows
// stay depends on window ids only, so merged shards hold exactly one
// process's windows however many there are. Memory
// is about 200 bytes per (assertion, window): at most ~1.6 GiB at both
// bounds, ~1.6 MiB per assertion at the default 20-trace windows once 160,000
// traces have passed. The log is bounded by MaxBytes (1 GiB) and MaxAge (30
// days); summaries.json is rewritten at each 64 MiB segment roll and at
// Close, and read back through a limit derived from the bounds: the largest
// file a store with them can write (~3.9 GiB at the defaults, every count at
// its widest), so that a store always reads what it wrote.
//
// A state dir may come from anywhere (merge sources, report), so its
// bounds apply while it is read, not after: summaries.json is decoded as a
// stream (snapdecode.go) that refuses, when the one too many comes, more
// assertions or windows than a store with the reader's bounds writes
// (DefaultMaxKeys and DefaultMaxWindows for OpenReadOnly and Merge), a
// window of fewer bytes than the 131 a store writes (so windows held take
// at most ~2.5 bytes of memory per byte of the file), a name over
// MaxField, more than MaxMerged (65,536) merged ids, a member twice, and
// any one value over 1 MiB; readers summarize at most DefaultMaxKeys
// assertions of the log; a result for a window its key does not hold,
// older than the key's newest 256 (lateWindows), is counted in the
// series' Dropped, not inserted (inserting moves every newer window); a
// merge that would list more than MaxMerged merged dirs is refused.
// TestHostileDirs opens generated hostile dirs with each reader and a
// writer within 32× the dir's bytes allocated, garbage included.
//
// The watch command hands its Recorder seam one trace's result lines at a
// time; main's adapter converts each with ParseLine and records them with
// AddAll (one write call, one fsync under SyncAlways, per trace). Result carries
// the result line's trace_id, assertion key (package resultkey: the
// history's key), label (the suite's name), type,
// status, score, timestamp (zero under --deterministic), result_id, and Seq,
// the trace's 1-based position in the input.
//
// # Log format
//
// The state dir holds segment files named by a 16-hex-digit number
// (0000000000000001.log, …), summaries.json and alerts.ndjson. Each is
// opened by name relative to the dir's descriptor, never through a link,
// and must be a regular file (with one hard link, to be written): package
// safedir. New segments are created with O_EXCL. A writer refuses a dir
// that others can write or that another user owns, and takes an advisory
// lock (flock) on the directory itself: one writer per dir, whatever is
// done to the files in it. A segment starts with the 8 bytes
// "ATHLOG\x00\x01" and holds frames:
//
//	uint32 little-endian  payload length (1..65536)
//	uint32 little-endian  CRC-32C (Castagnoli) of the payload
//	payload:
//	  byte     version (1)
//	  byte     status: 1 pass, 2 soft_fail, 3 hard_fail, 4 error, 5 skipped
//	  8 bytes  score, IEEE 754 binary64, little endian
//	  varint   timestamp, Unix nanoseconds (0: absent)
//	  uvarint  seq
//	  4 × (uvarint length, bytes): trace_id, assertion, type, result_id
//	           (UTF-8, at most MaxField bytes each)
//	  uvarint  through: the last input item holding a span the verdict judged (version 2)
//	  uvarint  spans: how many spans it judged, at most 2³²−1 (version 2)
//	  uvarint length, bytes: label, 1..MaxField bytes (version 3)
//
// Records with a label are written as version 3, others as version 2;
// version 1 records (without through and spans) are read as through 0,
// spans 0. The assertion is the result's assertion key (package
// resultkey): the SDK session's random assertion_ids never reach the log.
// Each frame is written with one write call before AddAll returns, so a
// process crash (SIGKILL included) loses no acknowledged record whatever the
// fsync policy; the policy (always, interval, never) decides what a power
// loss can take. The active segment rolls at SegmentBytes; at each roll the
// summaries are written with a checkpoint (safedir's WriteFile: a temporary
// file created with O_EXCL, synced, renamed, the dir synced, whatever the
// policy: see below),
// then sealed segments beyond MaxBytes or older than MaxAge are
// removed, oldest first and never beyond the checkpoint. The write works
// from a copy of the summaries taken under the store's lock and runs
// without it, so other callers record and query meanwhile; an older copy is
// never written over a newer one.
//
// # Recovery
//
// Open loads summaries.json and replays the log after its checkpoint. Past
// an invalid frame (short header, short payload, length out of range,
// checksum mismatch, undecodable payload) the scan resynchronises on the
// next valid frame (segscan.go): where the bad frame's claimed end is a
// valid frame or the end of the file (its header whole), there, unless
// valid frames lead from an earlier offset exactly to that end (its length
// was damaged); otherwise at the first valid frame found byte by byte. The
// run skipped is corruption: reported in Recovery.Corrupt and SkippedBytes
// and logged, left as it is, and every record after it replayed, in the
// active segment as in sealed ones. A run with no valid frame after it, at
// the end of the last segment, is a torn tail (a record a crash cut): the
// file is truncated there (Recovery.TruncatedBytes, logged), so the next
// record follows the last whole one. The checksums a scan takes beyond one
// pass over its valid frames are bounded (4× the segment and 1 MiB): past
// that the rest of the segment is left as it is, reported, and the log
// goes on in a new segment. TestFlippedByte flips a byte at 150 seeded
// offsets (HISTORY_SEED) and checks that only its record is lost. A
// segment shorter than the checkpoint (its tail lost to a power
// loss) is cut after its last whole frame and appended to there, and the
// checkpoint moved back to that end before any record is. TestCrashRecovery kills a writer with
// SIGKILL at 100 seeded moments over one dir (some during its own
// recovery, most while writing frames split in two writes so a kill can
// tear one) and checks after each that every acknowledged record is there,
// whole and in order, and that the summaries count each exactly once.
//
// A summaries file that is not whole (empty, cut short, zeros: what a power
// loss could leave when its data was not synced before its rename) does not
// fail Open: the summaries are rebuilt from every segment on disk, with a
// warning and Recovery.SummariesRebuilt, and the dir gets a new id. Results
// of segments retention had removed are then no longer summarized: hence
// every summaries write is synced, file and dir, whatever the fsync policy
// (they are few: at creation, each roll and Close; BenchmarkRollSummaries
// measures no difference beside the JSON), so that the summaries covering a
// segment are durable before it is removed. A policy decides only how many
// recent records a power loss can take, never the store. A file whole but
// wrong (another version, not the summaries' shape) is still an error, and
// so is a torn file for OpenReadOnly and Merge, which change nothing.
//
// # Verdicts
//
// A store keeps an index of its latest verdicts by (trace_id, assertion),
// or by result_id for a result without a trace id (an unreadable input
// line), bounded by Options.Verdicts (2¹⁸ results, about 100 bytes each:
// ~25 MiB), the oldest forgotten first. A result whose result_id the index
// holds for its (trace, assertion), or one that judged fewer spans than the
// verdict held (an older verdict delivered again), is refused: neither
// logged nor counted (Duplicates counts them). A result with another
// result_id supersedes the verdict held: that verdict is taken out of its
// window's summary and the new one counted in the same window, so one
// verdict per (trace, assertion) counts, the latest; a window whose
// detector already stepped over it raises no new alert for the change (as
// for any late result). A result without a result_id is always counted and
// not indexed: the server's evaluate_batch results carry none, so every
// evaluation counts, of a trace id evaluated before too (a test suite run
// again with fixed ids); a retried request_id is told by the session.
//
// The index is rebuilt at Open from the records before the checkpoint (the
// newest segments holding the bound, read in order) and then updated by the
// records replayed after it, so a restart refuses what the store held before
// it; OpenReadOnly and Merge apply the records after the checkpoint the same
// way. Prior answers the watch command's question after a restart: which
// verdict, judging which spans, does the store hold for this trace?
//
// Cost: an admission and a put per result, ~0.3 µs of CPU (BenchmarkVerdicts
// under pprof: 1.2–1.4 µs of wall time on the contended 2-core CI machine,
// 16% of it on a CPU), beside a Record of 1–20 µs there (BenchmarkRecord,
// sync=never, six runs each of the binaries with and without the index
// alternated: no difference benchstat can tell, p = 0.49).
//
// # Windows
//
// Summaries are kept per (assertion, window). By default a window is 20
// consecutive traces of the input: window = (Seq − 1) / 20, so every
// process reading the same input (with --shard, each keeping its part)
// places a trace in the same window, and merged shards hold the windows of
// one process. A result without Seq takes its key's arrival count instead
// (windows then only align within one process). Options.WindowDuration
// selects time windows by Result.Timestamp instead (the clock when absent);
// Options.WindowRuns makes each window one run of a suite (Seq is the run's
// number: a server session records its results with LastRun + 1, so a
// key's windows are its CI runs, and shards of one run merge into its
// window). A state dir keeps the windowing it was created with
// (Options.AdoptWindowing opens an existing dir with it, whatever the
// options ask).
//
// A summary holds the counts of passes, failures (soft_fail and hard_fail),
// errors and skipped results, the number of fractional scores, the sum of
// scores and of their squares in exact fixed point (millionths, 128-bit
// squares), and a 10-bin histogram of scores. Errors and skipped results
// have no score and are neither passes nor failures. Merging adds counts:
// exactly associative and commutative, unlike floating-point sums.
//
// # Drift
//
// Both detectors run over a key's windows in window order, each window once
// it is closed (a result of a later window arrived); Report replays them over
// every window, so drift from merged shards equals drift from one process.
// A result arriving for a window already closed still counts in the
// summaries (and in Report) but raised no live alert there.
//
// Baseline: a key's first windows holding BaselineN (1000) scored results.
// Nothing alerts before it is complete (Report's phase "baseline"). Alerts
// and reports show it; the mean-shift test compares with it.
//
// Pass/fail: a one-sided Bernoulli CUSUM of failures. Its reference
// failure rate f0 is the upper end of the reference's one-sigma Wilson
// interval (clamped to 0.001..0.5), its target f1 = f0 + Delta (0.10). Per
// window, S ← max(0, S + fails·ln(f1/f0) + passes·ln((1−f1)/(1−f0))); it
// alerts when S ≥ H = 8.5 nats and the current run (the windows since S was
// last 0) holds at least MinN (30) results. In the usual standardized form
// (S counts failures, minus k per result) that is k = ln((1−f0)/(1−f1)) /
// ln(f1(1−f0)/(f0(1−f1))) and h = H / ln(f1(1−f0)/(f0(1−f1))): at a pass
// rate of 0.95, f0 ≈ 0.057 and f1 ≈ 0.157 (k ≈ 0.100, h ≈ 7.6 failures) on
// the 1,000-result baseline, f0 ≈ 0.052, f1 ≈ 0.152 (k ≈ 0.094, h ≈ 7.2)
// once the reference is complete.
//
// The reference starts as the baseline and then takes in every run of
// windows that ended with S back at 0 without an alert (an alerting run
// never joins, even after it recovers), until it holds ReferenceN (20,000)
// scored results; f0 is re-derived as it grows. Why: false alarms depend
// steeply on f0, and 1,000 results estimate a failure rate of 0.05 to ±0.007
// only. Over 1,000 simulated assertions a few baselines run lucky by 3
// standard errors, and an assertion with a fixed baseline of 1,000 results
// (H = 7) raised a false alarm every ~5,600 traces in the worst seed though
// the pool saw one every ~200,000. The reference reaches ±0.0015 by 20,000
// results, so a lucky start is outgrown; the upper Wilson end rather than
// the point estimate keeps the early, wider reference on the cautious side.
// What the reference takes in is, by the CUSUM's own test, in control; a
// decline slow enough to let S return to 0 during the first 20,000 results
// is partly learned as normal, and none after.
//
// Measured (go test -run 'TestDriftSimulation|TestDriftBaselines' -v
// ./history/, 20-trace windows, every simulated assertion estimating its own
// baseline and reference; the seed is -drift-seed or $ATTEST_DRIFT_SEED):
//
//	baseline 0.95, 20 seeds × 50 assertions × 400,000 traces:
//	  the worst assertion of each seed: 100,000–200,000 traces between false alarms (2–4 alarms)
//	  pooled: 784,314 traces between false alarms (510 in 4·10⁸)
//	drop 0.95 → 0.85 at trace 2,000 (just after the baseline): median delay 140 traces (p10 80, p90 260)
//	drop 0.95 → 0.85 at trace 50,000 (reference complete): median delay 120 traces (p10 60, p90 240)
//	baseline 0.99 / 0.90 / 0.80, worst of 50 assertions: 133,333 / 200,000 / 200,000 traces between false alarms
//
// The window adds up to 20 traces of delay. The tuning runs (other seeds):
// H = 8 gave a worst assertion of 66,667 traces between false alarms and a
// median delay of 120; H = 9, 100,000 and 140 with more runs past 150;
// ReferenceZ = 2 on a fixed baseline, 22,222. The simulation draws each
// window's failures from the binomial distribution of its 20 traces (the
// detector sees only the counts), checked against the closed form.
//
// Scores: when the baseline has fractional scores, a windowed mean shift:
// the current window is the most recent windows holding CurrentN (50) scored
// results; it alerts when the mean fell with Welch z ≥ Z (4), by at least
// EffectFloor (0.5) baseline standard deviations and at least MinShift
// (0.05) in score — the floors keep a large n from alerting on a drop too
// small to matter. Only falls alert: both detectors watch for regressions.
//
// Re-alerting: after an alert a detector stays in alarm, silent, until it
// recovers — the CUSUM when S returns to 0, the mean shift when z, effect
// or drop falls below half its threshold — and only then may alert again.
// Restarting from the state dir restores the alarm state without repeating
// alerts.
//
// Every alert carries the statistic, its value and threshold, the baseline
// and current windows (window range, n, passes, pass rate, mean, standard
// deviation, 95% Wilson interval), n, the effect (pass-rate drop, or mean
// drop in baseline standard deviations), the Wilson interval of the current
// pass rate, and a sentence saying all that. Its alert_id is 16 hex digits
// of SHA-256(assertion, kind, window).
//
// # Alerts
//
// Every alert is appended as one JSON line to <state dir>/alerts.ndjson
// (Options.AlertFile elsewhere, NoAlertFile none), handed to Options.OnAlert
// (the JSON-RPC session's drift_alert notifications), and, when a webhook is
// configured, queued for it. The queue is bounded (256): an alert arriving
// at a full queue is dropped with a warning — it is in the alert file —
// and AddAll never waits on the network. Nor on a reader: an alert file
// that is a named pipe is refused at Open (its buffer full, each write would
// wait for the reader, holding the store's lock).
//
// # Webhook
//
// One POST per alert to WebhookConfig.URL, body the alert's JSON
// (Content-Type: application/json), with headers:
//
//	X-Attest-Timestamp: Unix seconds when this attempt was sent
//	X-Attest-Delivery:  the alert_id, a copy: not signed
//	X-Attest-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>
//
// The signature covers the timestamp header's exact text, a '.', and the
// raw body bytes; a receiver recomputes it with the shared secret, compares
// in constant time, rejects timestamps more than 5 minutes off to stop
// replays, and de-duplicates by the body's alert_id: signed, and the same
// body byte for byte on every retry (only the timestamp and the signature
// change). X-Attest-Delivery, which is not signed, is not to be trusted. It is
// absent when no secret is configured. Any 2xx delivers; 408, 429, 5xx and
// transport errors are retried, at most MaxAttempts (5) attempts in all,
// after Backoff·2^attempt (500 ms doubling, capped at 30 s) scaled by a
// factor in [0.5, 1) from SHA-256(alert_id, attempt), or after Retry-After
// (seconds or an HTTP-date) when that is longer, capped at 60 s; any other
// status fails at once. Each attempt has a 10 s timeout, answers are read up
// to 64 KiB and discarded, and Close waits at most 10 s for the queue.
//
// # Performance
//
// Each result recorded is one frame, and a trace's results (AddAll) one
// write call; the summaries and the
// detectors cost a few hundred nanoseconds more. Measured on the 2-core CI
// machine (its disk shared with other jobs):
//
//	go test -run '^$' -bench BenchmarkRecord -benchtime 100000x -count 3 ./history/
//	go test -run '^$' -bench BenchmarkHistory -benchtime 20000x -count 3 ./rpc/
//
//	Record, sync=never     ~1.5–2.1 µs per result (~500,000 results/s)
//	Record, sync=interval  ~1.9–3.3 µs, ~9.5–10.7 µs while a slow fsync holds the appends
//	Record, sync=always    ~130–150 µs (an fsync per result)
//	spec batch (5 results), history off / sync=never / sync=interval:
//	                       ~19–23 µs / ~25–26 µs (84%) / ~27–83 µs (25–80%) per batch
//
// Hence the default SyncNever: with it, history keeps ≥ 80% of the
// throughput without it; SyncInterval's fsync stalls the appends behind it
// (the file system's journal) for as long as the disk takes.
package history
