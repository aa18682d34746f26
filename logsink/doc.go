// Package logsink is the engine's stderr: a bounded writer that never
// blocks the goroutine that logs.
//
// The SDKs start the engine with stderr piped and never read it
// (../shared/sdk-compat.md, "Process and session"): once the pipe's buffer
// (64–192 KiB) is full, a plain write to stderr blocks for ever, and with it
// the request that logged. A Writer instead appends each line to a queue of
// at most Limit bytes and returns at once; one goroutine of its own copies
// the queue to the real stderr, and only that goroutine ever waits on the
// pipe.
//
// When the queue is full a line is dropped and counted. When the writing
// goroutine next takes the queue, it adds one line saying how many were
// dropped, in the spec's log format (spec §1.3), so a reader of the log sees
// the gap where it is:
//
//	{"level":"warn","ts":"…","logger":"engine","msg":"log lines dropped: stderr was not read fast enough","dropped":1234}
//
// Memory is bounded: the queue holds at most Limit bytes, and the line being
// written another Limit at most. A line longer than Limit is dropped.
package logsink
