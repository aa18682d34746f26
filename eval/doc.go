// doc.go: the package documentation: the eval command, its inputs, pool and exit codes.

// Package eval is the one-shot command line evaluation, `attest-engine eval`:
// traces from a file (one JSON document, or NDJSON with one trace per line,
// streamed), assertions from another (one list for every trace, or one per
// trace), a report in text, JSON or JUnit XML (package report).
//
// Each trace is evaluated as evaluate_batch evaluates a batch, through the
// same evaluation core (assert.Engine.Run): validation first (spec §7), the
// --eval-timeout deadline per trace, failures coded as the server answers
// them (assert.FailureOf). Evaluator is that step, one trace to its part of
// a report; pool.InOrder runs it on --jobs workers and hands the reports
// back in input order.
//
// Exit status: 0 when nothing hard-failed; 1 when a result hard-failed, a
// trace could not be evaluated (invalid trace, assertion error, timeout),
// or the run was interrupted; 2 on bad input (unreadable file, not JSON,
// bad flags), after closing whatever report was started, and when a signal
// ended the wait at the open of a FIFO with no other end (cli.OpenFile: the
// flag is named).
package eval
