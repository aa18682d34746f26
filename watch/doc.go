// doc.go: the package comment: what the watch command does and how its parts fit.

// Package watch is `attest-engine watch`: continuous evaluation of production
// traces as a Unix filter. It reads Attest NDJSON traces and OTLP/JSON span
// and log exports (package ingest) from a file or stdin, and OTLP span and
// log exports in binary protobuf or JSON from a loopback OTLP/HTTP listener
// (POST /v1/traces, POST /v1/logs; any other path an OTLP-style 404, logged
// once), keeps this process's sample and shard of them (package sample),
// evaluates every assertion of a suite file against each trace with the
// engine's evaluator in a worker pool, and writes one NDJSON result line per
// (trace, assertion) in input order; with --export-otlp it also sends each
// result back as an OpenTelemetry gen_ai.evaluation.result event (package
// otlpexport). A content, token, cost or tool check whose input no
// producer sent is skipped, saying what was looked for (evaluate.go).
//
// Every trace gets exactly one line per assertion: an unreadable line or an
// invalid trace fails them all (1001), while a bad assertion, a provider
// outage or a timeout fails only its own line. Lines carry a content-addressed
// result_id (trace id, assertion name, suite hash, engine version), so
// at-least-once delivery is made exact by de-duplicating on it, and with
// --deterministic two runs over the same input write the same bytes.
//
// With --state-dir what is read is evaluated and counted exactly once
// across crashes (docs/watch.md, "Exactly once"): --in FILE keeps an input
// checkpoint (checkpoint.go), --listen answers 200 only once a request is in
// a spool (spooled.go, package spool), the ledger (ledger.go) says which
// input items still hold something not yet settled, and late spans make a
// superseding or a too-late verdict (package ingest, "Late spans").
//
// Memory is bounded in bytes at every stage (budget.go): the input line,
// the request bodies the listener holds (admission.go: past the budget a
// client is answered 503 with Retry-After, not waited on), the items between
// the readers and the assembler, the assembler's bounds, and the traces
// being evaluated; a body must keep arriving at a useful rate and the
// connections are capped (conns.go), so no client can hold the listener.
// Within the default flags the process stays under 128 MiB of peak RSS
// (watch_budget_test.go). No socket is opened unless
// --listen (loopback unless --listen-any-address), a provider, a webhook or
// --export-otlp is configured.
//
// Evaluation goes through assert.Engine.Run, the core evaluate_batch and
// the eval command share (validation, the deadline, recovered panics,
// assert.FailureOf for spec §5 codes). The package knows nothing of
// JSON-RPC. The result history kept under --state-dir sits behind the
// [Recorder] seam: the flags make a [HistoryConfig] (--state-dir, --fsync,
// --alert-webhook and the webhook secret from $ATTEST_WEBHOOK_SECRET), and
// [OpenHistory] opens a history.Store with it (history.go); tests give
// [RunEnv] a Recorder of their own.
package watch
