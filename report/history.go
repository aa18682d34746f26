// history.go: the HTML history page: per assertion key, pass rate and mean score over time with drift alerts, and a score histogram.

package report

import (
	"bufio"
	"cmp"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"attest-engine/clip"
)

// HistoryKey is one assertion key's history as the page draws it, from
// plain numbers (continuous evaluation's per-window summaries fill it).
type HistoryKey struct {
	Name   string       // how a person names the key: its label, else the key
	Key    string       // the assertion key (package resultkey); "" when Name is it
	Type   string       // its assertion type, "" when unknown
	Points []TrendPoint // one per window, oldest first
	Bins   []int        // score histogram over the windows (Histogram's bins)
	Alerts []string     // drift alerts' explanations, oldest first
}

// The history page's bounds: keys drawn, keys not drawn listed by name
// (the rest counted), alerts listed per key (the latest), bytes of an
// alert's text. A key's charts are at most about 130 KiB (TrendChart's
// bound), its alerts 20 KiB escaped, a name listed at most 768 bytes
// escaped, so a page stays under htmlMaxBytes, 32 MiB, whatever the text
// and however many keys (TestHistoryBound writes the worst case).
const (
	historyMaxKeys      = 200
	historyMaxUnshown   = 1000
	historyMaxAlerts    = 10
	historyAlertTextMax = 400
)

type historyPage struct {
	Generated      string
	Keys           []historyKey
	NKeys, NAlerts int
	Summary        string
	Unshown        []string // the first historyMaxUnshown keys not drawn
	NUnshown       int      // all the keys not drawn
	NotListed      int      // those not in Unshown
	CSS            string
	Script         string
	CSP            string
}

type historyKey struct {
	Name, Key, Type  string
	Trend, Histogram string
	Alerts           []string
	NAlerts          int
	AlertCount       string
}

// WriteHistory writes the history page of keys: keys with alerts
// first, then by name. Like the eval report it is one self-contained
// file with no URL; a zero generated time leaves the timestamp out.
func WriteHistory(w io.Writer, keys []HistoryKey, generated time.Time) error {
	order := make([]*HistoryKey, len(keys))
	for i := range keys {
		order[i] = &keys[i]
	}
	slices.SortStableFunc(order, func(a, b *HistoryKey) int {
		if (len(a.Alerts) > 0) != (len(b.Alerts) > 0) {
			if len(a.Alerts) > 0 {
				return -1
			}
			return 1
		}
		return cmp.Or(strings.Compare(a.Name, b.Name), strings.Compare(a.Key, b.Key))
	})
	p := historyPage{NKeys: len(keys), CSS: htmlCSS, Script: htmlScript, CSP: htmlCSP()}
	if !generated.IsZero() {
		p.Generated = generated.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	for i, k := range order {
		p.NAlerts += len(k.Alerts)
		if i >= historyMaxKeys {
			p.NUnshown++
			if len(p.Unshown) < historyMaxUnshown {
				p.Unshown = append(p.Unshown, line(k.Name, htmlNameMax))
			} else {
				p.NotListed++
			}
			continue
		}
		name := line(k.Name, htmlNameMax)
		alerts := k.Alerts[max(0, len(k.Alerts)-historyMaxAlerts):]
		hk := historyKey{Name: name, Key: line(k.Key, htmlNameMax), Type: line(k.Type, htmlNameMax), NAlerts: len(k.Alerts),
			Trend:     TrendChart(clip.String(k.Name, 60)+": pass rate and mean score", k.Points),
			Histogram: Histogram("score histogram ("+strconv.Itoa(sum(k.Bins))+" results)", k.Bins)}
		for _, a := range alerts {
			hk.Alerts = append(hk.Alerts, text(clip.String(a, historyAlertTextMax)))
		}
		hk.AlertCount = count(len(k.Alerts), "alert")
		p.Keys = append(p.Keys, hk)
	}
	p.Summary = count(len(keys), "assertion key") + ", " + count(p.NAlerts, "drift alert") + "."
	bw := bufio.NewWriter(w)
	writeHistoryPage(bw, &p)
	return bw.Flush()
}

// WriteHistoryFile writes the history page to path whole or not at all
// (through a temporary file renamed over it), as WriteFile does a report.
func WriteHistoryFile(path string, keys []HistoryKey, generated time.Time) error {
	return writeReportFile(path, func(w io.Writer) error { return WriteHistory(w, keys, generated) })
}

func count(n int, word string) string { return strconv.Itoa(n) + " " + plural(n, word) }

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}
