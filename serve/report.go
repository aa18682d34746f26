// report.go: --report: every result of the session spooled as it is recorded, written when serving ends.

package serve

import (
	"log/slog"

	"attest-engine/report"
	"attest-engine/rpc"
	"attest-engine/simulate"
)

// reportMemory is the bytes of results --report holds in memory before it
// spools them to disk (a variable so that tests can lower it).
var reportMemory = report.SpoolMemory

// reportTo is the server's --report: every result of the session goes to a
// report.Spool as it is recorded (add), held in memory up to
// report.SpoolMemory and past it in scratch files beside path, and when
// serving ends (done) the report goes to path, in the format its extension
// names. A failure is logged; it never changes the protocol's answers or
// the exit status.
func reportTo(path string, logger *slog.Logger, scenarios func() []simulate.ScenarioSummary) (add func(rpc.Record), done func()) {
	sp := report.NewSpool(report.ScratchDir(path), reportMemory)
	add = func(r rpc.Record) {
		// rpc.Record and report.Recorded have the same fields (rpc, the
		// protocol only, does not import report): a conversion, which stops
		// compiling if they part, rather than a copy that could drop a field.
		sp.Add(report.Recorded(r))
	}
	done = func() {
		defer sp.Close()
		traces, err := sp.WriteFile(path, scenarios()...)
		if err != nil {
			logger.Error("writing report", "path", path, "error", err.Error())
			return
		}
		logger.Info("report written", "path", path, "format", string(report.FormatForPath(path)), "traces", traces)
	}
	return add, done
}
