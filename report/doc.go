// doc.go: the package documentation: the results model and the report formats.

// Package report is the results model of a run and its writers: a readable
// text summary (text.go), one JSON document (json.go), JUnit XML as CI
// systems read it (junit.go), and one self-contained HTML page for people
// (html.go, html_page.go), with inline SVG charts drawn from plain numbers
// (svg.go: TrendChart, Histogram, StatusBar) and a history page of them
// (history.go: WriteHistory).
//
// A report is a list of Traces, each with its Recorded results or the Error
// that kept it from being evaluated (coded as the server would answer it,
// spec §5), and Totals. A Writer streams it: Begin, one Trace at a time in
// report order, End; no format holds more than one trace, so a run over
// any number of traces writes in bounded memory, except HTML, which keeps
// what it shows (failures first, totals at the top) within a stated size
// bound: 32 MiB whatever the run holds. A report file (the server's
// --report, the history page) is written whole or not at all over a
// regular file or nothing, and through a device, a FIFO or a symlink as a
// shell's redirection would, never replacing them (file.go). A Spool
// keeps a session's results for its report in bounded memory: held up to
// SpoolMemory, on disk past it, sorted there into byTrace's order when the
// report is written (spool.go).
//
// Text from traces and assertions is escaped for its format: XML escaping
// (characters XML cannot hold become U+FFFD), and in the text report
// control characters (Clean), so a report cannot drive the terminal that
// shows it. Bidirectional formatting characters (IsBidiControl) are never
// written raw: shown as \uXXXX in text, JUnit and HTML, JSON escapes in
// JSON (bidi.go), so a trace's text cannot reorder the report's own words.
// The HTML page puts data only in text and quoted attribute values, escaped
// there as html/template would (html_write.go, checked against it by
// FuzzEscapeHTML; html/template itself is not linked in: its package
// initialization compiles regular expressions on every start of the
// engine, docs/performance.md), isolates each
// data field shown inline in a <bdi>, holds no URL of any kind, and its
// Content-Security-Policy allows only its own script and style sheet, by
// hash.
package report
