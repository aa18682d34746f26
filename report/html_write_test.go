// html_write_test.go: the pages' escaping against html/template's and text/template's, in every context the pages put data.

package report

import (
	"bytes"
	"html/template"
	"strings"
	"testing"
)

// escapeContexts holds data in each kind of place the pages put it:
// text, RCDATA (<title>), <pre>, and quoted attribute values of the kinds
// used (id, class, data-*, a meta's content).
var escapeContexts = template.Must(template.New("c").Parse(`<title>{{.}}</title>|<p>{{.}}</p>|<pre>{{.}}</pre>|<p id="{{.}}" class="x {{.}}" data-status="{{.}}" data-name="{{.}}" data-types="{{.}}">|<meta http-equiv="Content-Security-Policy" content="{{.}}">|<b><bdi>{{.}}</bdi></b>`))

// viaTemplate is s escaped by html/template in each place.
func viaTemplate(t testing.TB, s string) string {
	var b strings.Builder
	if err := escapeContexts.Execute(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// viaEscapeHTML is the same markup written with escapeHTML.
func viaEscapeHTML(s string) string {
	var b bytes.Buffer
	p := pw{&b}
	for i, part := range []string{"<title>", "</title>|<p>", "</p>|<pre>", `</pre>|<p id="`, `" class="x `, `" data-status="`, `" data-name="`, `" data-types="`,
		`">|<meta http-equiv="Content-Security-Policy" content="`, `">|<b><bdi>`, "</bdi></b>"} {
		if i > 0 {
			p.esc(s)
		}
		p.raw(part)
	}
	return b.String()
}

var escapeSeeds = []string{"", "plain", `<script>alert("x")</script>`, "a&b'c+d", "nul\x00", "bad\xff\xfeutf8", "\u202ertl\u2066", "default-src 'none'; style-src 'sha256-AB+/='",
	"\ufdd0\uffff\U0001F600", "line\nbreak\ttab\r"}

// TestEscapeHTMLMatchesTemplate: escapeHTML writes each string as
// html/template would in every place the pages put data, and svg.go's
// esc as text/template's HTMLEscapeString. Dropping any one replacement
// (the '+', NUL) fails it.
func TestEscapeHTMLMatchesTemplate(t *testing.T) {
	for _, s := range escapeSeeds {
		if want, got := viaTemplate(t, s), viaEscapeHTML(s); got != want {
			t.Errorf("%q:\nhtml/template %q\nescapeHTML    %q", s, want, got)
		}
		if want, got := template.HTMLEscapeString(s), htmlEscapeString(s); got != want {
			t.Errorf("%q: HTMLEscapeString %q, htmlEscapeString %q", s, want, got)
		}
	}
}

// FuzzEscapeHTML: any string from a trace comes out as html/template
// would write it.
func FuzzEscapeHTML(f *testing.F) {
	for _, s := range escapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want, got := viaTemplate(t, s), viaEscapeHTML(s); got != want {
			t.Fatalf("%q:\nhtml/template %q\nescapeHTML    %q", s, want, got)
		}
		if want, got := template.HTMLEscapeString(s), htmlEscapeString(s); got != want {
			t.Fatalf("%q: HTMLEscapeString %q, htmlEscapeString %q", s, want, got)
		}
	})
}
