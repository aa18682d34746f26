// html_write.go: the HTML pages written out, escaping every string from a trace or an assertion as html/template would in its place.

package report

import (
	"io"
	"strconv"
	"unicode/utf8"
)

// htmlOut is where a page or a section of one is written: a bytes.Buffer,
// or a bufio.Writer over the report's file.
type htmlOut interface {
	io.Writer
	io.StringWriter
}

// escapeHTML writes s as html/template writes a string in text, in RCDATA
// (<title>) and in a quoted attribute value (its htmlEscaper): NUL as
// U+FFFD, each of " & ' + < > as a character reference, anything else
// as it is. The pages put strings nowhere else: no URL, script or style
// context holds data (TestEscapeHTMLMatchesTemplate pins the equivalence).
func escapeHTML(w htmlOut, s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		var repl string
		switch r {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		}
		if repl != "" {
			w.WriteString(s[last:i])
			w.WriteString(repl)
			last = i + width
		}
		i += width
	}
	w.WriteString(s[last:])
}

// pw writes a page's parts: raw markup, escaped strings, numbers.
type pw struct{ w htmlOut }

func (p pw) raw(s string) { p.w.WriteString(s) }
func (p pw) esc(s string) { escapeHTML(p.w, s) }
func (p pw) num(n int)    { p.w.WriteString(strconv.Itoa(n)) }

// writePage is the report's page.
func writePage(w htmlOut, d *htmlPage) {
	p := pw{w}
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n")
	writeMeta(p, d.CSP)
	p.raw("<title>attest-engine report: ")
	p.esc(d.Verdict)
	p.raw("</title>\n<style>" + d.CSS + "</style>\n</head>\n<body>\n<header>\n<h1>attest-engine report <span class=\"verdict s-")
	p.esc(d.VerdictClass)
	p.raw("\">")
	p.esc(d.Verdict)
	p.raw("</span></h1>\n")
	if d.Generated != "" {
		p.raw("<p class=\"meta\">generated ")
		p.esc(d.Generated)
		p.raw("</p>\n")
	}
	t := d.Tot
	p.raw("</header>\n<section class=\"summary\" aria-label=\"summary\">\n<dl class=\"counts\">\n<div class=\"k-pass\"><dt>pass</dt><dd>")
	p.num(t.Pass)
	p.raw("</dd></div>\n<div class=\"k-soft\"><dt>soft_fail</dt><dd>")
	p.num(t.SoftFail)
	p.raw("</dd></div>\n<div class=\"k-hard\"><dt>hard_fail</dt><dd>")
	p.num(t.HardFail)
	p.raw("</dd></div>\n<div class=\"k-err\"><dt>error</dt><dd>")
	p.num(t.Errors)
	p.raw("</dd></div>\n<div><dt>traces</dt><dd>")
	p.num(t.Traces)
	p.raw(" <small>(")
	p.num(t.FailedTraces)
	p.raw(" failed)</small></dd></div>\n<div><dt>results</dt><dd>")
	p.num(t.Results)
	if t.Skipped != 0 {
		p.raw(" <small>(")
		p.num(t.Skipped)
		p.raw(" skipped)</small>")
	}
	p.raw("</dd></div>\n<div><dt>cost</dt><dd>")
	p.esc(d.Cost)
	p.raw("</dd></div>\n<div><dt>time</dt><dd>")
	p.esc(d.Time)
	p.raw("</dd></div>\n</dl>\n" + d.StatusBar + "\n")
	if t.Incomplete {
		p.raw("<p class=\"warn\">The run stopped before the end of its input (bad input or an interrupt): this report is incomplete.</p>\n")
	}
	p.raw("<div class=\"charts\">\n" + d.Histogram + "\n")
	if len(d.Types) > 0 {
		p.raw("<table class=\"types\">\n<thead><tr><th>type</th><th>results</th><th>pass</th><th>soft_fail</th><th>hard_fail</th><th>mean score</th></tr></thead>\n<tbody>\n")
		for i := range d.Types {
			r := &d.Types[i]
			p.raw("<tr><td>")
			p.esc(r.Name)
			p.raw("</td><td>")
			p.num(r.N)
			p.raw("</td><td>")
			p.num(r.Pass)
			p.raw("</td><td>")
			p.num(r.Soft)
			p.raw("</td><td>")
			p.num(r.Hard)
			p.raw("</td><td>")
			p.esc(r.Mean)
			p.raw("</td></tr>\n")
		}
		p.raw("</tbody>\n</table>\n")
	}
	p.raw("</div>\n")
	if len(d.Scenarios) > 0 {
		p.raw("<table class=\"scenarios\">\n<thead><tr><th>scenario</th><th>runs</th><th>passes</th><th>Wilson 95%</th><th>pass^k</th></tr></thead>\n<tbody>\n")
		for i := range d.Scenarios {
			s := &d.Scenarios[i]
			p.raw("<tr><td>")
			p.esc(s.ID)
			p.raw("</td><td>")
			p.num(s.N)
			p.raw("</td><td>")
			p.num(s.Passes)
			p.raw("</td><td>")
			p.esc(s.Wilson)
			p.raw("</td><td>")
			p.esc(s.PassK)
			p.raw("</td></tr>\n")
		}
		p.raw("</tbody>\n</table>\n")
		if d.MoreScenarios != 0 {
			p.raw("<p class=\"meta\">")
			p.num(d.MoreScenarios)
			p.raw(" more scenarios, in the JSON report.</p>\n")
		}
	}
	p.raw(`</section>
<div id="filters" class="filters" hidden>
<label><input type="checkbox" value="error" checked> error</label>
<label><input type="checkbox" value="hard_fail" checked> hard_fail</label>
<label><input type="checkbox" value="soft_fail" checked> soft_fail</label>
<label><input type="checkbox" value="pass" checked> pass</label>
<label>type <select><option value="">all</option>`)
	for i := range d.Types {
		p.raw("<option>")
		p.esc(d.Types[i].Name)
		p.raw("</option>")
	}
	p.raw(`</select></label>
<label>search <input type="search" placeholder="trace, assertion or text"></label>
<output id="shown"></output>
</div>
<main>
`)
	if d.NFailed != 0 {
		p.raw("<section id=\"failed\">\n<h2>Failed traces <small>(")
		p.num(d.NFailed)
		p.raw(" shown in full)</small></h2>\n" + d.Failed + "</section>\n")
	}
	if d.NSoft != 0 {
		p.raw("<section id=\"soft\">\n<h2>Soft failures <small>(")
		p.num(d.NSoft)
		p.raw(" shown in full)</small></h2>\n" + d.Soft + "</section>\n")
	}
	if d.NRows != 0 {
		p.raw("<section id=\"rows\">\n<details id=\"rows-list\"")
		if d.Over != 0 {
			p.raw(" open")
		}
		p.raw(">\n<summary><h2>")
		if d.Over != 0 {
			p.raw("Other traces <small>(")
			p.num(d.Passed)
			p.raw(" passed, ")
			p.num(d.Over)
			p.raw(" not shown in full: the report's size bound was reached)</small>")
		} else {
			p.raw("Passed traces <small>(")
			p.num(d.Passed)
			p.raw(")</small>")
		}
		p.raw("</h2></summary>\n<table class=\"rows\">\n<thead><tr><th>status</th><th>trace</th><th>results</th><th>mean score</th><th>time</th></tr></thead>\n<tbody>\n" +
			d.Rows + "</tbody>\n</table>\n</details>\n</section>\n")
	}
	if d.Omitted != 0 {
		p.raw("<p class=\"warn\">")
		p.num(d.Omitted)
		p.raw(" more traces are counted above but not listed: the report lists at most 10,000. The JSON report has them all.</p>\n")
	}
	if t.Traces == 0 {
		p.raw("<p>No trace was evaluated.</p>\n")
	}
	p.raw("</main>\n")
	writeFoot(p, d.Script)
}

// writeTrace is a trace shown in full; its results are in t.Body.
func writeTrace(w htmlOut, t *htmlTrace) {
	p := pw{w}
	p.raw("<details class=\"trace\" open id=\"")
	p.esc(t.ID)
	p.raw("\" data-status=\"")
	p.esc(t.Status)
	p.raw("\" data-name=\"")
	p.esc(t.Name)
	p.raw("\">\n<summary><span class=\"badge s-")
	p.esc(t.Status)
	p.raw("\">")
	p.esc(t.Status)
	p.raw("</span> <b class=\"name\"><bdi>")
	p.esc(t.Name)
	p.raw("</bdi></b> <span class=\"sub\">")
	p.esc(t.Summary)
	p.raw(" · ")
	p.esc(t.Duration)
	p.raw("</span></summary>\n")
	if e := t.Err; e != nil {
		p.raw("<div class=\"r entry\" data-status=\"error\" data-types=\"")
		p.esc(e.Filter)
		p.raw("\">\n<p><span class=\"badge s-error\">")
		p.esc(e.ErrorType)
		p.raw("</span> <code>")
		p.num(e.Code)
		p.raw("</code>")
		if e.AssertionID != "" {
			p.raw(" assertion <b><bdi>")
			p.esc(e.AssertionID)
			p.raw("</bdi></b>")
			if e.Type != "" {
				p.raw(" <i><bdi>")
				p.esc(e.Type)
				p.raw("</bdi></i>")
			}
		}
		p.raw("</p>\n<pre>")
		p.esc(e.Message)
		p.raw("</pre>\n")
		if e.Detail != "" {
			p.raw("<p class=\"fix\">fix:</p><pre>")
			p.esc(e.Detail)
			p.raw("</pre>\n")
		}
		p.raw("</div>\n")
	}
	p.raw(t.Body)
	if t.Hidden != 0 {
		p.raw("<p class=\"warn\">")
		p.num(t.Hidden)
		p.raw(" more results not shown: the report's size bound was reached. The JSON report has them all.</p>\n")
	}
	p.raw("</details>\n")
}

// writeResult is one result of a trace shown in full.
func writeResult(w htmlOut, r *htmlResult) {
	p := pw{w}
	p.raw("<details class=\"r\" data-status=\"")
	p.esc(r.Status)
	p.raw("\" data-types=\"")
	p.esc(r.Type)
	p.raw("\"")
	if r.Open {
		p.raw(" open")
	}
	p.raw(">\n<summary><span class=\"badge s-")
	p.esc(r.Status)
	p.raw("\">")
	p.esc(r.Label)
	p.raw("</span> <b><bdi>")
	p.esc(r.ID)
	p.raw("</bdi></b> <i><bdi>")
	p.esc(r.Type)
	p.raw("</bdi></i> <span class=\"sub\">score ")
	p.esc(r.Score)
	if r.Cost != "" {
		p.raw(" · ")
		p.esc(r.Cost)
	}
	p.raw(" · ")
	p.esc(r.Duration)
	if r.Suite != "" {
		p.raw(" · suite <bdi>")
		p.esc(r.Suite)
		p.raw("</bdi>")
	}
	if r.RequestID != "" {
		p.raw(" · request <bdi>")
		p.esc(r.RequestID)
		p.raw("</bdi>")
	}
	p.raw("</span></summary>\n")
	if r.Explanation != "" {
		p.raw("<pre>")
		p.esc(r.Explanation)
		p.raw("</pre>\n")
	}
	if r.Spec != "" {
		p.raw("<details class=\"spec\"><summary>spec</summary><pre>")
		p.esc(r.Spec)
		p.raw("</pre></details>\n")
	}
	p.raw("</details>\n")
}

// writeRow is a trace as one summary row.
func writeRow(w htmlOut, r *htmlRow) {
	p := pw{w}
	p.raw("<tr class=\"row\" data-status=\"")
	p.esc(r.Status)
	p.raw("\" data-types=\"")
	p.esc(r.Types)
	p.raw("\"><td><span class=\"badge s-")
	p.esc(r.Status)
	p.raw("\">")
	p.esc(r.Status)
	p.raw("</span></td><td>")
	p.esc(r.Name)
	p.raw("</td><td>")
	p.num(r.Results)
	p.raw("</td><td>")
	p.esc(r.Mean)
	p.raw("</td><td>")
	p.esc(r.Duration)
	p.raw("</td></tr>\n")
}

// writeMeta is the head's meta elements of every page: the content
// security policy first.
func writeMeta(p pw, csp string) {
	p.raw("<meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"")
	p.esc(csp)
	p.raw("\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"referrer\" content=\"no-referrer\">\n")
}

// writeFoot ends every page: the footer and the filter script.
func writeFoot(p pw, script string) {
	p.raw("<footer>attest-engine HTML report: self-contained, no external resources.</footer>\n<script>" + script + "</script>\n</body>\n</html>\n")
}

// writeHistoryPage is the history page.
func writeHistoryPage(w htmlOut, d *historyPage) {
	p := pw{w}
	p.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n")
	writeMeta(p, d.CSP)
	p.raw("<title>attest-engine history</title>\n<style>" + d.CSS + "</style>\n</head>\n<body>\n<header>\n<h1>attest-engine history</h1>\n")
	if d.Generated != "" {
		p.raw("<p class=\"meta\">generated ")
		p.esc(d.Generated)
		p.raw("</p>\n")
	}
	p.raw("<p>")
	p.esc(d.Summary)
	p.raw("</p>\n</header>\n<main>\n")
	for i := range d.Keys {
		k := &d.Keys[i]
		p.raw("<section class=\"key\">\n<h2><bdi>")
		p.esc(k.Name)
		p.raw("</bdi>")
		if k.Type != "" {
			p.raw(" <small><bdi>")
			p.esc(k.Type)
			p.raw("</bdi></small>")
		}
		if k.Key != "" {
			p.raw(" <small><bdi>")
			p.esc(k.Key)
			p.raw("</bdi></small>")
		}
		if k.NAlerts != 0 {
			p.raw(" <span class=\"badge s-hard_fail\">")
			p.esc(k.AlertCount)
			p.raw("</span>")
		}
		p.raw("</h2>\n<div class=\"charts\">\n" + k.Trend + "\n" + k.Histogram + "\n</div>\n")
		if len(k.Alerts) > 0 {
			p.raw("<ul class=\"alerts\">\n")
			for _, a := range k.Alerts {
				p.raw("<li><pre>")
				p.esc(a)
				p.raw("</pre></li>\n")
			}
			p.raw("</ul>\n")
		}
		p.raw("</section>\n")
	}
	if d.NUnshown != 0 {
		p.raw("<details><summary>")
		p.num(d.NUnshown)
		p.raw(" more keys, not drawn</summary><pre>")
		for _, u := range d.Unshown {
			p.raw("<bdi>")
			p.esc(u)
			p.raw("</bdi>\n")
		}
		if d.NotListed != 0 {
			p.raw("… and ")
			p.num(d.NotListed)
			p.raw(" more, not listed\n")
		}
		p.raw("</pre></details>\n")
	}
	p.raw("</main>\n")
	writeFoot(p, d.Script)
}
