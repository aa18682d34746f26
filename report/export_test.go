// export_test.go: whole reports in one call, for the tests (the commands stream theirs: Writer, Spool).

package report

import (
	"io"
	"time"

	"attest-engine/simulate"
)

// writeReport writes a whole report of traces in format f, with no
// timestamp. The total duration is the sum of the traces' durations.
func writeReport(w io.Writer, f Format, traces []Trace, scenarios ...simulate.ScenarioSummary) error {
	return writeTotals(w, f, traces, Totals{Scenarios: scenarios})
}

// write is writeReport generated at the given time.
func write(w io.Writer, f Format, traces []Trace, generated time.Time) error {
	return writeTotals(w, f, traces, Totals{Generated: generated})
}

// writeFile writes a whole report to path, in the format its extension
// names, generated now, through writeReportFile as the Spool's WriteFile
// does.
func writeFile(path string, traces []Trace, scenarios ...simulate.ScenarioSummary) error {
	return writeReportFile(path, func(w io.Writer) error {
		return writeTotals(w, FormatForPath(path), traces, Totals{Generated: time.Now(), Scenarios: scenarios})
	})
}
