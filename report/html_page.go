// html_page.go: what the HTML report's page is made of: its data, style sheet, filter script and content security policy.

package report

import (
	"crypto/sha256"
	"encoding/base64"
	"sync"
)

// What the pages are written from (html_write.go). Every string from a
// trace or an assertion is escaped where it is written (escapeHTML); only
// the charts (svg.go, escaped there), the sections already written, and
// the constants below are trusted HTML. Each such string
// shown inline among the page's own words is inside its own <bdi> element,
// so right-to-left text in a name cannot reorder the words around it;
// table cells and longer texts (<pre>) are blocks of their own, which
// the bidirectional algorithm isolates as it does every block.
// Bidirectional formatting characters are shown escaped (Clean) wherever
// they stand.
type htmlPage struct {
	Verdict, VerdictClass, Generated string
	Tot                              *Totals
	Cost, Time                       string
	StatusBar, Histogram             string
	Types                            []htmlTypeRow
	Scenarios                        []htmlScenario
	MoreScenarios                    int
	Failed, Soft, Rows               string
	NFailed, NSoft, NRows            int
	Passed, Over, Omitted            int
	CSS                              string
	Script                           string
	CSP                              string
}

type htmlTypeRow struct {
	htmlTypeStats
	Mean string
}

// htmlScenario is a row of the summary's scenario table.
type htmlScenario struct {
	ID, Wilson, PassK string
	N, Passes         int
}

type htmlTrace struct {
	ID, Name, Status, Types, Duration, Summary string
	Err                                        *htmlErr
	Body                                       string // the results, written by writeResult
	Hidden                                     int    // results past the section's budget
}

type htmlErr struct {
	ErrorType, AssertionID, Type, Filter, Message, Detail string
	Code                                                  int
}

type htmlResult struct {
	ID, Type, Status, Label, Score, Cost, Duration string
	Explanation, Suite, RequestID, Spec            string
	Open                                           bool
}

type htmlRow struct {
	Name, Status, Types, Mean, Duration string
	Results                             int
}

// htmlScript adds the filters; the page is whole without it. Elements that
// carry data-status are filtered: a result (.r) shows when its status is
// ticked, its type chosen and the search found in it or in its trace's
// name; a trace when one of its results shows; a row as a result does.
const htmlScript = `(function(){
var f=document.getElementById("filters");if(!f)return;f.hidden=false;
var q=f.querySelector("input[type=search]"),sel=f.querySelector("select"),out=document.getElementById("shown");
function ok(e,on,t,s){return on[e.dataset.status]&&(!t||(" "+e.dataset.types+" ").indexOf(" "+t+" ")>=0)&&(!s||e.textContent.toLowerCase().indexOf(s)>=0);}
function run(){
var on={},t=sel.value,s=q.value.trim().toLowerCase(),n=0,list=document.getElementById("rows-list");
f.querySelectorAll("input[type=checkbox]").forEach(function(b){on[b.value]=b.checked;});
document.querySelectorAll(".trace").forEach(function(tr){
var any=false,named=s!==""&&tr.dataset.name.toLowerCase().indexOf(s)>=0;
tr.querySelectorAll(".r").forEach(function(r){var v=ok(r,on,t,named?"":s);r.hidden=!v;any=any||v;});
tr.hidden=!any;if(any)n++;});
document.querySelectorAll("tr.row").forEach(function(r){var v=ok(r,on,t,s);r.hidden=!v;if(v)n++;});
if(list&&(s||t))list.open=true;
out.textContent=n+(n===1?" trace":" traces")+" shown";}
f.addEventListener("input",run);f.addEventListener("change",run);run();})();`

// htmlCSP allows nothing but the page's own style sheet and script, each by
// its hash: no request of any kind, no other script or style (not even a
// style attribute), no form submission.
var htmlCSP = sync.OnceValue(func() string {
	return "default-src 'none'; style-src 'sha256-" + scriptHash(htmlCSS) + "'; script-src 'sha256-" + scriptHash(htmlScript) +
		"'; base-uri 'none'; form-action 'none'"
})

// scriptHash is a CSP source hash of an inline script's or style's text.
func scriptHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return base64.StdEncoding.EncodeToString(sum[:])
}

const htmlCSS = `:root{color-scheme:light dark;--fg:#1d2329;--mute:#5d6873;--bg:#fff;--panel:#f5f7f9;--line:#d7dde3;
--pass:#1a7f37;--soft:#9a6700;--hard:#cf222e;--err:#8250df;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--mute:#9aa5b1;--bg:#0d1117;--panel:#161b22;--line:#30363d;
--pass:#3fb950;--soft:#d29922;--hard:#f85149;--err:#a371f7;--accent:#58a6ff}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:16px 20px 40px;font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
h1{font-size:22px;margin:4px 0}h2{font-size:17px;margin:20px 0 8px;display:inline-block}
small,.sub,.meta{color:var(--mute);font-weight:normal}.meta{margin:0 0 8px}
.counts{display:flex;flex-wrap:wrap;gap:8px;margin:12px 0}
.counts div{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:6px 12px;min-width:96px}
.counts dt{font-size:12px;color:var(--mute)}.counts dd{margin:0;font-size:20px;font-weight:600}
.k-pass dd{color:var(--pass)}.k-soft dd{color:var(--soft)}.k-hard dd{color:var(--hard)}.k-err dd{color:var(--err)}
svg.bar{width:100%;height:14px;display:block;border-radius:4px;margin:8px 0}
.charts{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start;margin:12px 0}
svg.chart{flex:1 1 420px;max-width:600px;height:auto;background:var(--panel);border:1px solid var(--line);border-radius:6px}
.c-pass{fill:var(--pass)}.c-soft{fill:var(--soft)}.c-hard{fill:var(--hard)}.c-err{fill:var(--err)}
.c-bar{fill:var(--accent)}.c-grid{stroke:var(--line);fill:var(--line)}.c-text{fill:var(--mute);font-size:12px}
.c-line{stroke:var(--accent);stroke-width:2;fill:none}circle.c-line{fill:var(--accent)}
.c-line2{stroke:var(--pass);stroke-width:2;stroke-dasharray:5 3;fill:none}circle.c-line2{fill:var(--pass);stroke:none}
.c-alert{fill:var(--hard)}.c-alertline{stroke:var(--hard);stroke-width:1;stroke-dasharray:2 3}
table.types{flex:1 1 360px}
table{border-collapse:collapse;font-size:13px}th,td{text-align:left;padding:3px 10px;border-bottom:1px solid var(--line)}
th{color:var(--mute);font-weight:600}table.rows{width:100%}td:nth-child(2){word-break:break-all}
.filters{position:sticky;top:0;z-index:1;background:var(--bg);border-bottom:1px solid var(--line);padding:8px 0;display:flex;flex-wrap:wrap;gap:12px;align-items:center}
.filters input[type=search]{width:220px}.filters select{max-width:220px}
.verdict,.badge{display:inline-block;border-radius:4px;padding:0 6px;color:#fff;font-weight:600;font-size:12px;line-height:18px;vertical-align:middle}
.verdict{font-size:15px;line-height:24px;padding:0 10px}
.s-pass{background:var(--pass)}.s-soft_fail{background:var(--soft)}.s-hard_fail,.s-hard{background:var(--hard)}.s-error,.s-err{background:var(--err)}
details.trace{border:1px solid var(--line);border-left:4px solid var(--line);border-radius:6px;margin:8px 0;padding:4px 10px;background:var(--bg)}
details.trace[data-status=hard_fail]{border-left-color:var(--hard)}details.trace[data-status=error]{border-left-color:var(--err)}
details.trace[data-status=soft_fail]{border-left-color:var(--soft)}
details.trace>summary{cursor:pointer;padding:4px 0}.name{word-break:break-all}
.r{margin:4px 0 4px 14px;padding:2px 0;border-top:1px solid var(--line)}.r>summary{cursor:pointer}
.spec{margin-left:14px}.spec>summary{cursor:pointer;color:var(--accent);font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;background:var(--panel);border-radius:4px;padding:6px 8px;margin:4px 0;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
.fix{margin:4px 0 0;color:var(--mute)}.warn{color:var(--soft);font-weight:600}
footer{margin-top:24px;color:var(--mute);font-size:12px}
[hidden]{display:none!important}`
