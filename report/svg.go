// svg.go: the HTML report's charts, inline SVG drawn from plain numbers (no script, no reference).

package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"attest-engine/clip"
)

// The charts are pure functions of their arguments: the same numbers give
// the same bytes. They draw with classes the page's style sheet colours
// (c-pass, c-soft, c-hard, c-err, c-line, c-line2, c-alert, c-bar, c-grid,
// c-text), carry a <title> per mark for a tooltip and an aria-label for a
// screen reader, and never hold a URL: an SVG inline in HTML needs no
// xmlns. Every text from data is escaped and made valid UTF-8.

// TrendPoint is one window of a history: its label (a date, a run), the
// pass rate and mean score in [0, 1] (NaN: no result in the window, a gap
// in the line), and Alert, a drift alert raised in the window ("": none).
type TrendPoint struct {
	Label     string
	PassRate  float64
	MeanScore float64
	Alert     string
}

// MaxTrendPoints is how many windows a trend chart draws: the latest ones.
// Up to trendDotsMax windows each also gets a dot with its value as a
// tooltip; beyond, the lines are drawn alone. The latest trendAlertsMax
// alerts are marked; tooltips cut labels and alerts. A chart is so at most
// about 130 KiB whatever its text (TestHistoryBound).
const (
	MaxTrendPoints = 1000
	trendDotsMax   = 120
	trendAlertsMax = 50
	trendLabelMax  = 24
	trendAlertMax  = 120
)

const (
	chartW, chartH                     = 640, 200
	padLeft, padRight, padTop, padBase = 40, 12, 24, 36
)

// TrendChart draws pass rate (solid) and mean score (dashed) over windows,
// with each drift alert marked by a triangle over its window and a dashed
// line down it.
func TrendChart(title string, points []TrendPoint) string {
	if len(points) > MaxTrendPoints {
		points = points[len(points)-MaxTrendPoints:]
	}
	var b strings.Builder
	openSVG(&b, title)
	yAxis(&b)
	plotW := float64(chartW - padLeft - padRight)
	x := func(i int) float64 {
		if len(points) == 1 {
			return padLeft + plotW/2
		}
		return padLeft + plotW*float64(i)/float64(len(points)-1)
	}
	line := func(class string, value func(TrendPoint) float64) {
		var seg []string
		flush := func() {
			if len(seg) > 1 {
				fmt.Fprintf(&b, `<polyline class="%s" points="%s"/>`, class, strings.Join(seg, " "))
			}
			seg = seg[:0]
		}
		for i, p := range points {
			v := value(p)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				flush()
				continue
			}
			seg = append(seg, num(x(i))+","+num(y(v)))
		}
		flush()
		if len(points) > trendDotsMax {
			return // lines only: a dot per window would crowd the chart and grow the page
		}
		for i, p := range points { // a dot per window, so a lone window shows
			if v := value(p); !math.IsNaN(v) && !math.IsInf(v, 0) {
				fmt.Fprintf(&b, `<circle class="%s" cx="%s" cy="%s" r="2.5"><title>%s: %s %s</title></circle>`,
					class, num(x(i)), num(y(v)), esc(clip.String(p.Label, trendLabelMax)), class2name[class], num(clamp01(v)))
			}
		}
	}
	line("c-line", func(p TrendPoint) float64 { return p.PassRate })
	line("c-line2", func(p TrendPoint) float64 { return p.MeanScore })
	marked := 0
	for i := len(points) - 1; i >= 0 && marked < trendAlertsMax; i-- {
		p := points[i]
		if p.Alert == "" {
			continue
		}
		marked++
		cx := x(i)
		fmt.Fprintf(&b, `<line class="c-alertline" x1="%s" y1="%d" x2="%s" y2="%d"/>`, num(cx), padTop+8, num(cx), chartH-padBase)
		fmt.Fprintf(&b, `<path class="c-alert" d="M%s %dL%s %dL%s %dZ"><title>%s: %s</title></path>`,
			num(cx-5), padTop-2, num(cx+5), padTop-2, num(cx), padTop+7, esc(clip.String(p.Label, trendLabelMax)), esc(clip.String(p.Alert, trendAlertMax)))
	}
	if len(points) > 0 {
		base := chartH - padBase + 14
		fmt.Fprintf(&b, `<text class="c-text" x="%d" y="%d">%s</text>`, padLeft, base, esc(clip.String(points[0].Label, trendLabelMax)))
		if len(points) > 1 {
			fmt.Fprintf(&b, `<text class="c-text" x="%d" y="%d" text-anchor="end">%s</text>`, chartW-padRight, base, esc(clip.String(points[len(points)-1].Label, trendLabelMax)))
		}
	}
	legend := chartH - 6
	fmt.Fprintf(&b, `<line class="c-line" x1="%d" y1="%d" x2="%d" y2="%d"/><text class="c-text" x="%d" y="%d">pass rate</text>`,
		padLeft, legend-4, padLeft+18, legend-4, padLeft+22, legend)
	fmt.Fprintf(&b, `<line class="c-line2" x1="%d" y1="%d" x2="%d" y2="%d"/><text class="c-text" x="%d" y="%d">mean score</text>`,
		padLeft+100, legend-4, padLeft+118, legend-4, padLeft+122, legend)
	fmt.Fprintf(&b, `<path class="c-alert" d="M%d %dL%d %dL%d %dZ"/><text class="c-text" x="%d" y="%d">drift alert</text>`,
		padLeft+210, legend-9, padLeft+220, legend-9, padLeft+215, legend, padLeft+224, legend)
	b.WriteString("</svg>")
	return b.String()
}

var class2name = map[string]string{"c-line": "pass rate", "c-line2": "mean score"}

// Histogram draws counts of scores in equal bins over [0, 1]: bins[i]
// counts scores in [i/n, (i+1)/n), the last bin including 1.
func Histogram(title string, bins []int) string {
	var b strings.Builder
	openSVG(&b, title)
	peak := 0
	for _, c := range bins {
		peak = max(peak, c)
	}
	plotW := float64(chartW - padLeft - padRight)
	plotH := float64(chartH - padTop - padBase)
	base := float64(chartH - padBase)
	fmt.Fprintf(&b, `<line class="c-grid" x1="%d" y1="%s" x2="%d" y2="%s"/>`, padLeft, num(base), chartW-padRight, num(base))
	fmt.Fprintf(&b, `<text class="c-text" x="%d" y="%d" text-anchor="end">%d</text>`, padLeft-6, padTop+4, peak)
	fmt.Fprintf(&b, `<text class="c-text" x="%d" y="%s" text-anchor="end">0</text>`, padLeft-6, num(base+4))
	n := len(bins)
	for i, c := range bins {
		w := plotW / float64(n)
		h := 0.0
		if peak > 0 {
			h = plotH * float64(c) / float64(peak)
		}
		if c > 0 {
			h = max(h, 2) // a bin with anything in it shows
		}
		lo, hi := float64(i)/float64(n), float64(i+1)/float64(n)
		fmt.Fprintf(&b, `<rect class="c-bar" x="%s" y="%s" width="%s" height="%s"><title>%s–%s: %d</title></rect>`,
			num(padLeft+w*float64(i)+1), num(base-h), num(max(w-2, 1)), num(h), num(lo), num(hi), c)
	}
	for _, t := range []float64{0, 0.5, 1} {
		fmt.Fprintf(&b, `<text class="c-text" x="%s" y="%s" text-anchor="middle">%s</text>`, num(padLeft+plotW*t), num(base+16), num(t))
	}
	fmt.Fprintf(&b, `<text class="c-text" x="%s" y="%d" text-anchor="middle">score</text>`, num(padLeft+plotW/2), chartH-4)
	b.WriteString("</svg>")
	return b.String()
}

// ScoreBins counts scores into n equal bins over [0, 1] (Histogram's
// bins); a score outside [0, 1] falls in the nearest bin, NaN in none.
func ScoreBins(bins []int, score float64) {
	if len(bins) == 0 || math.IsNaN(score) {
		return
	}
	i := int(clamp01(score) * float64(len(bins)))
	bins[min(i, len(bins)-1)]++
}

// StatusBar draws the share of each status in one horizontal bar; counts
// are pass, soft_fail, hard_fail and error, in that order.
func StatusBar(title string, pass, soft, hard, errs int) string {
	const w, h = 640, 18
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="bar" viewBox="0 0 %d %d" preserveAspectRatio="none" role="img" aria-label="%s"><title>%s</title>`, w, h, esc(title), esc(title))
	total := pass + soft + hard + errs
	if total == 0 {
		fmt.Fprintf(&b, `<rect class="c-grid" x="0" y="0" width="%d" height="%d"/>`, w, h)
	}
	at := 0.0
	for _, part := range []struct {
		class, name string
		n           int
	}{{"c-pass", "pass", pass}, {"c-soft", "soft_fail", soft}, {"c-hard", "hard_fail", hard}, {"c-err", "error", errs}} {
		if part.n == 0 || total == 0 {
			continue
		}
		pw := float64(w) * float64(part.n) / float64(total)
		fmt.Fprintf(&b, `<rect class="%s" x="%s" y="0" width="%s" height="%d"><title>%s: %d</title></rect>`,
			part.class, num(at), num(pw), h, part.name, part.n)
		at += pw
	}
	b.WriteString("</svg>")
	return b.String()
}

func openSVG(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s"><title>%s</title>`, chartW, chartH, esc(title), esc(title))
	fmt.Fprintf(b, `<text class="c-text" x="%d" y="14">%s</text>`, padLeft, esc(clip.String(title, 80)))
}

// yAxis draws grid lines at 0, 0.5 and 1 for a chart of values in [0, 1].
func yAxis(b *strings.Builder) {
	for _, v := range []float64{0, 0.5, 1} {
		fmt.Fprintf(b, `<line class="c-grid" x1="%d" y1="%s" x2="%d" y2="%s"/><text class="c-text" x="%d" y="%s" text-anchor="end">%s</text>`,
			padLeft, num(y(v)), chartW-padRight, num(y(v)), padLeft-6, num(y(v)+4), num(v))
	}
}

// y maps a value in [0, 1] to the plot's height (1 at the top).
func y(v float64) float64 {
	return float64(chartH-padBase) - float64(chartH-padTop-padBase)*clamp01(v)
}

func clamp01(v float64) float64 {
	switch {
	case math.IsNaN(v) || v < 0:
		return 0
	case v > 1:
		return 1
	}
	return v
}

// num prints a coordinate with at most 2 decimals and no exponent.
func num(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		f = 0
	}
	return strconv.FormatFloat(math.Round(f*100)/100, 'f', -1, 64)
}

// esc makes data safe as SVG text or an attribute value in an HTML page;
// control and bidirectional formatting characters are shown escaped (Clean).
func esc(s string) string {
	return htmlEscapeString(Clean(strings.ToValidUTF8(s, "\uFFFD")))
}

// htmlEscapeString is text/template's HTMLEscapeString: NUL as U+FFFD and
// each of " ' & < > as a character reference.
func htmlEscapeString(s string) string {
	if !strings.ContainsAny(s, "'\"&<>\000") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	last := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '\'':
			repl = "&#39;"
		case '&':
			repl = "&amp;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		last = i + 1
	}
	b.WriteString(s[last:])
	return b.String()
}
