// svg_test.go: the charts: goldens, gaps, bounds, and labels from data kept as text.

package report

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// inPage wraps a chart in the smallest page checkHTMLPage reads.
func inPage(svg string) string {
	return "<!DOCTYPE html>\n<html><head><style>" + htmlCSS + "</style></head><body>" + svg +
		"<script>" + htmlScript + "</script></body></html>"
}

func trendFixture() []TrendPoint {
	nan := math.NaN()
	return []TrendPoint{
		{Label: "2026-11-01", PassRate: 0.96, MeanScore: 0.91},
		{Label: "2026-11-02", PassRate: 0.95, MeanScore: 0.9},
		{Label: "2026-11-03", PassRate: nan, MeanScore: nan}, // no result that day: a gap
		{Label: "2026-11-04", PassRate: 0.97, MeanScore: 0.92},
		{Label: "2026-11-05", PassRate: 0.71, MeanScore: 0.64, Alert: "pass rate 0.71 < baseline 0.95 − 3σ"},
		{Label: "2026-11-06", PassRate: 0.74, MeanScore: 0.66},
	}
}

func TestChartGolden(t *testing.T) {
	tests := []struct {
		name, file, svg, reason string
	}{
		{"trend", "trend.svg", string(TrendChart("refund_judge: pass rate and mean score", trendFixture())),
			"two lines over six windows, a gap where a window is empty, one alert marked"},
		{"histogram", "histogram.svg", string(Histogram("score histogram", []int{3, 0, 1, 0, 2, 0, 4, 8, 20, 62})),
			"ten bars scaled to the highest, axis at 0, 0.5, 1"},
		{"status bar", "statusbar.svg", string(StatusBar("results by status", 62, 5, 3, 1)),
			"the share of each status, in status order"},
		{"empty trend", "trend_empty.svg", string(TrendChart("nothing yet", nil)), "no window: axes and legend only"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := checkHTMLPage(inPage(tc.svg)); err != nil {
				t.Errorf("%s: %v", tc.reason, err)
			}
			checkGolden(t, filepath.Join(reportDir, tc.file), tc.svg+"\n", tc.reason)
		})
	}
}

func TestTrendChart(t *testing.T) {
	svg := string(TrendChart("t", trendFixture()))
	if n := strings.Count(svg, "<polyline"); n != 4 {
		t.Errorf("%d polylines: want 2 per line, broken by the empty window", n)
	}
	if n := strings.Count(svg, `<path class="c-alert"`); n != 2 {
		t.Errorf("%d alert marks: want the one alert and the legend's", n)
	}
	many := make([]TrendPoint, MaxTrendPoints+500)
	for i := range many {
		many[i] = TrendPoint{Label: "w", PassRate: 1, MeanScore: 1}
	}
	many[len(many)-1].Label = "last"
	svg = string(TrendChart("t", many))
	if n := strings.Count(svg, "<circle"); n != 0 {
		t.Errorf("%d dots: past %d windows the lines are drawn alone", n, trendDotsMax)
	}
	if n := strings.Count(svg, ","); n != 2*MaxTrendPoints || len(svg) > 40<<10 {
		t.Errorf("%d bytes, %d points: want the latest %d windows of each line in under 40 KiB", len(svg), n, MaxTrendPoints)
	}
	if n := strings.Count(string(TrendChart("t", many[:trendDotsMax])), "<circle"); n != 2*trendDotsMax {
		t.Errorf("%d dots: want one per window of each line up to %d windows", n, trendDotsMax)
	}
	if !strings.Contains(svg, ">last</text>") {
		t.Errorf("the latest window is labelled")
	}
	hostile := string(TrendChart(`<script>x</script>`, []TrendPoint{{Label: `"><svg onload=x>`, PassRate: math.Inf(1), MeanScore: -3, Alert: "\xff</title><script>"}}))
	if err := checkHTMLPage(inPage(hostile)); err != nil {
		t.Errorf("labels and alerts from data stay text: %v", err)
	}
}

func TestScoreBins(t *testing.T) {
	bins := make([]int, 10)
	for _, s := range []float64{0, 0.05, 0.1, 0.55, 0.999, 1, 1.5, -2, math.NaN(), math.Inf(1)} {
		ScoreBins(bins, s)
	}
	want := []int{3, 1, 0, 0, 0, 1, 0, 0, 0, 4}
	for i := range want {
		if bins[i] != want[i] {
			t.Fatalf("bins %v, want %v: [i/10, (i+1)/10), 1 in the last bin, out of range clamped, NaN nowhere", bins, want)
		}
	}
}
