// command.go: the report command: flags, usage, exit status, and a state dir's series as the page's keys.

package reportcmd

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"attest-engine/cli"
	"attest-engine/history"
	"attest-engine/report"
)

// Run is the report command. It reads the state dir without its writer's
// lock (history.OpenReadOnly), so it runs beside the watch or server that
// writes it, and draws what was recorded when it read. ctx and stdin are
// unused: the page is drawn from what one read of the dir found.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := cli.NewFlagSet("attest-engine report", "usage: attest-engine report --state-dir DIR --html FILE [--deterministic]\n\nDraws the result history of a state dir: per assertion, pass rate and mean score over its windows with drift alerts marked, and a score histogram.\n", stderr)
	dir := fs.String("state-dir", "", "the state dir to draw: a watch's or server's --state-dir, or one merged by attest-engine merge (required)")
	out := fs.String("html", "", "write the HTML history page to this file, - for stdout (required)")
	deterministic := fs.Bool("deterministic", false, "leave the generation time out: the same state dir gives the same bytes")
	if code, ok := cli.Parse(fs, args); !ok {
		return code
	}
	switch {
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "attest-engine report: unexpected argument %q\n", fs.Arg(0))
		return 2
	case *dir == "" || *out == "":
		fmt.Fprintln(stderr, "attest-engine report: --state-dir and --html are required")
		fs.Usage()
		return 2
	}
	s, err := history.OpenReadOnly(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine report: --state-dir: %v\n", err)
		return 1
	}
	defer s.Close()
	keys := historyKeys(s)
	generated := time.Now()
	if *deterministic {
		generated = time.Time{}
	}
	if *out == "-" {
		err = report.WriteHistory(stdout, keys, generated)
	} else if err = cli.MakeParent(*out); err == nil {
		err = report.WriteHistoryFile(*out, keys, generated)
	}
	if err != nil {
		fmt.Fprintf(stderr, "attest-engine report: --html: %v\n", err)
		return 1
	}
	return 0
}

// historyKeys maps a state dir's series to the page's keys: one trend
// point per window (pass rate and mean score of its scored results, a gap
// when it has none, the explanations of the alerts raised in it), the
// windows' score histograms added up, and the alerts the detectors raise
// over the windows (history.Series: the latest MaxReportAlerts), each
// prefixed with its window's label.
func historyKeys(s *history.Store) []report.HistoryKey {
	var keys []report.HistoryKey
	for _, name := range s.Keys() {
		ser, ok := s.Series(name)
		if !ok {
			continue
		}
		k := report.HistoryKey{Name: cmp.Or(ser.Label, name), Key: name, Type: ser.Type, Bins: make([]int, history.HistBins)}
		raised := map[int64]string{}
		for _, a := range ser.Alerts {
			if raised[a.Window] != "" {
				raised[a.Window] += "; "
			}
			raised[a.Window] += a.Explanation
			k.Alerts = append(k.Alerts, windowLabel(&ser, a.Window)+": "+a.Explanation)
		}
		for i := range ser.Windows {
			w := &ser.Windows[i]
			p := report.TrendPoint{Label: windowLabel(&ser, w.Window), PassRate: math.NaN(), MeanScore: math.NaN(), Alert: raised[w.Window]}
			if w.Scored() > 0 {
				p.PassRate, p.MeanScore = w.PassRate(), w.Mean()
			}
			k.Points = append(k.Points, p)
			for b, c := range w.Hist {
				k.Bins[b] += int(min(c, math.MaxInt32))
			}
		}
		keys = append(keys, k)
	}
	return keys
}

// windowLabel names a window as a person reads it: the traces it holds
// (count windows: "traces 1001–1020", by input position) or when it
// started (time windows, UTC).
func windowLabel(ser *history.Series, w int64) string {
	if ser.WindowRuns {
		return "run " + strconv.FormatInt(w+1, 10)
	}
	if ser.WindowDuration > 0 {
		start := time.Unix(0, w*int64(ser.WindowDuration)).UTC()
		switch {
		case ser.WindowDuration%(24*time.Hour) == 0:
			return start.Format("2006-01-02")
		case ser.WindowDuration%time.Minute == 0:
			return start.Format("2006-01-02 15:04")
		}
		return start.Format("2006-01-02 15:04:05")
	}
	n := max(ser.WindowTraces, 1)
	return "traces " + strconv.FormatInt(w*n+1, 10) + "–" + strconv.FormatInt((w+1)*n, 10)
}
