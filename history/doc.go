// Package history is the memory of continuous evaluation: an append-only log
// of results in a state dir, per-window summaries that merge across shards,
// drift detection over them, and alerts.
//
// # Use
//
//	s, err := history.Open(dir, history.Options{})   // recovers dir
//	alerts, err := s.Add(result)                     // or s.Record(result)
//	rep, ok := s.Drift("assertion name", 50)         // query_drift's answer
//	err = s.Close()
//	err = history.Merge(dst, src1, src2)             // combine shard dirs
//
// A Store satisfies the watch command's seam
// interface{ Record(history.Result) error; Close() error }. Result carries
// the result line's trace_id, assertion (the stable name: the key), type,
// status, score, timestamp (zero under --deterministic), result_id, and Seq,
// the trace's 1-based position in the input.
//
// # Log format
//
// The state dir holds segment files named by a 16-hex-digit number
// (0000000000000001.log, …), summaries.json, alerts.ndjson and LOCK (an
// advisory lock: one writer per dir). A segment starts with the 8 bytes
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
//
// Each frame is written with one write call before Record returns, so a
// process crash (SIGKILL included) loses no acknowledged record whatever the
// fsync policy; the policy (always, interval, never) decides what a power
// loss can take. The active segment rolls at SegmentBytes; at each roll the
// summaries are written (to a temporary file, synced, renamed) with a
// checkpoint, then sealed segments beyond MaxBytes or older than MaxAge are
// removed, oldest first and never beyond the checkpoint.
//
// # Recovery
//
// Open loads summaries.json and replays the log after its checkpoint. The
// first invalid frame of the last segment (short header, short payload,
// length out of range, checksum mismatch, undecodable payload) is a torn
// tail: the file is truncated there, so it holds every record before it and
// the next record follows the last whole one. An invalid frame inside a
// sealed segment is corruption, not a crash: it is reported in
// Recovery.Corrupt, the segment is left untouched and its later records are
// skipped.
package history
