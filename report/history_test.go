// history_test.go: the history page: golden, bounds, hostile keys and alerts.

package report

import (
	"bytes"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func historyFixture() []HistoryKey {
	return []HistoryKey{
		{Name: "refund_schema", Type: "schema", Bins: []int{1, 0, 0, 0, 0, 0, 0, 0, 0, 199},
			Points: []TrendPoint{{Label: "2026-11-01", PassRate: 1, MeanScore: 1}, {Label: "2026-11-02", PassRate: 0.99, MeanScore: 0.99}}},
		{Name: "refund_judge", Type: "llm_judge", Bins: []int{3, 0, 1, 0, 2, 0, 4, 8, 20, 62}, Points: trendFixture(),
			Alerts: []string{"pass_rate dropped: 0.71 in window 2026-11-05 against a baseline of 0.95 (bernoulli_cusum 5.2 > 4)"}},
	}
}

func TestHistoryGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHistory(&buf, historyFixture(), time.Time{}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if err := checkHTMLPage(page); err != nil {
		t.Errorf("not a clean page: %v", err)
	}
	if found := findReferences(page); len(found) > 0 {
		t.Errorf("the page must load and link nothing; found %q", found)
	}
	if strings.Index(page, "refund_judge") > strings.Index(page, "refund_schema") {
		t.Errorf("a key with alerts comes first")
	}
	checkGolden(t, filepath.Join(reportDir, "history.html"), page, "two keys, the one with a drift alert first, its alert marked on the chart and listed")
}

// TestHistoryBound draws more keys than the page holds, each with the most
// windows a chart draws, every text at its length limit and made of the
// character escaping lengthens most, and 200,000 more keys not drawn, of
// the longest such names, and checks the stated htmlMaxBytes. The list of
// keys not drawn needs its own bound: 200,000 names listed make a page of
// ~150 MB.
func TestHistoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("draws hundreds of charts")
	}
	worst := func(n int) string { return strings.Repeat(`"`, n) }
	for _, windows := range []int{trendDotsMax, MaxTrendPoints} { // the most dots; the most windows
		points := make([]TrendPoint, windows)
		for i := range points {
			points[i] = TrendPoint{Label: worst(40), Alert: worst(400), PassRate: 0.9 + 0.1*math.Sin(float64(i)), MeanScore: 0.8}
		}
		alerts := make([]string, 50)
		for i := range alerts {
			alerts[i] = worst(historyAlertTextMax + 100)
		}
		keys := make([]HistoryKey, historyMaxKeys+100, historyMaxKeys+200_000)
		for i := range keys {
			keys[i] = HistoryKey{Name: worst(htmlNameMax) + strconv.Itoa(i), Type: worst(htmlNameMax), Points: points, Bins: make([]int, 10), Alerts: alerts}
		}
		for i := len(keys); i < cap(keys); i++ {
			keys = append(keys, HistoryKey{Name: worst(htmlNameMax) + strconv.Itoa(i)})
		}
		var buf bytes.Buffer
		if err := WriteHistory(&buf, keys, time.Time{}); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d keys × %d windows: %d bytes (%.2f MiB)", len(keys), windows, buf.Len(), float64(buf.Len())/(1<<20))
		if buf.Len() > htmlMaxBytes {
			t.Errorf("%d windows: %d bytes, over the stated %d", windows, buf.Len(), htmlMaxBytes)
		}
		if n := strings.Count(buf.String(), `<section class="key">`); n != historyMaxKeys {
			t.Errorf("%d keys drawn, want %d", n, historyMaxKeys)
		}
		notListed := len(keys) - historyMaxKeys - historyMaxUnshown
		for _, want := range []string{strconv.Itoa(len(keys)-historyMaxKeys) + " more keys, not drawn", "… and " + strconv.Itoa(notListed) + " more, not listed"} {
			if !strings.Contains(buf.String(), want) {
				t.Errorf("the page lacks %q", want)
			}
		}
		if err := checkHTMLPage(buf.String()); err != nil {
			t.Error(err)
		}
	}
}

// FuzzHistoryHTML draws keys, labels and alerts of hostile text: the page
// stays clean (checkHTMLPage).
func FuzzHistoryHTML(f *testing.F) {
	f.Add("refund_judge", "llm_judge", "2026-11-05", "pass rate dropped", 0.5, 0.7)
	f.Add("<script>alert(1)</script>", "\" onload=\"x", "</title><script>", "javascript:alert(1)\u2028\xff", math.NaN(), math.Inf(1))
	f.Add("key\u202e", "t\u2067", "w\u200f", "alert\u061c", 0.5, 0.5)
	f.Fuzz(func(t *testing.T, name, typ, label, alert string, rate, mean float64) {
		keys := []HistoryKey{{Name: name, Type: typ, Bins: []int{1, 2}, Alerts: []string{alert},
			Points: []TrendPoint{{Label: label, PassRate: rate, MeanScore: mean, Alert: alert}, {Label: label, PassRate: mean, MeanScore: rate}}}}
		var buf bytes.Buffer
		if err := WriteHistory(&buf, keys, time.Time{}); err != nil {
			t.Fatal(err)
		}
		if err := checkHTMLPage(buf.String()); err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		if r := rawBidi(buf.String()); r != 0 {
			t.Fatalf("%U written raw", r)
		}
	})
}
