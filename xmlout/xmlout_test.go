// xmlout_test.go: the writer against encoding/xml's Encoder, on a table of documents and under the fuzzer.

package xmlout

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// node is Elem as encoding/xml marshals it: the reference.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",attr"`
	Text    string     `xml:",chardata"`
	Kids    []node     `xml:",any"`
}

func toNode(e *Elem) node {
	n := node{XMLName: xml.Name{Local: e.Name}, Text: e.Text}
	for _, a := range e.Attrs {
		n.Attrs = append(n.Attrs, xml.Attr{Name: xml.Name{Local: a.Name}, Value: a.Value})
	}
	for i := range e.Kids {
		n.Kids = append(n.Kids, toNode(&e.Kids[i]))
	}
	return n
}

// reference is e encoded by encoding/xml with Indent(prefix, indent).
func reference(t testing.TB, e *Elem, prefix, indent string) string {
	var b bytes.Buffer
	enc := xml.NewEncoder(&b)
	enc.Indent(prefix, indent)
	if err := enc.Encode(toNode(e)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func written(e *Elem, prefix, indent string) string {
	var b bytes.Buffer
	Write(&b, e, prefix, indent)
	return b.String()
}

var indents = []struct{ prefix, indent string }{{"", ""}, {"", "  "}, {"  ", "  "}, {"\t", ""}}

// TestMatchesEncodingXML: every document of the table comes out byte for
// byte as encoding/xml writes it, at each indentation the reports use and
// without any. Each case names what it pins.
func TestMatchesEncodingXML(t *testing.T) {
	leaf := func(name, text string) Elem { return Elem{Name: name, Text: text} }
	tests := []struct {
		name string
		e    Elem
	}{
		{"empty element: start and end tag on one line", Elem{Name: "skipped", Attrs: []Attr{{"message", ""}}}},
		{"attributes in order, integers", Elem{Name: "testsuite", Attrs: []Attr{{"name", "t"}, Int("tests", 3), Int("failures", -1)}}},
		{"text stays on the start tag's line", leaf("failure", "line 1\nline 2")},
		{"children indented by depth, end tag on its own line", Elem{Name: "a", Kids: []Elem{
			{Name: "b", Kids: []Elem{leaf("c", "x"), {Name: "d"}}}, leaf("e", "")}}},
		{"markup and white space escaped", leaf("t", `<a href="x">'&'</a>`+"\t\r\n")},
		{"attribute values escaped alike", Elem{Name: "p", Attrs: []Attr{{"value", "a\"b'c<d>e&f\tg\nh\ri"}}}},
		{"characters XML cannot hold become U+FFFD", leaf("t", "nul\x00 bel\a esc\x1b ffff\uffff fffe\ufffe")},
		{"invalid UTF-8 byte by byte, a real U+FFFD kept", leaf("t", "bad\xff\xfe ok\uFFFD cut\xe2\x82 surrogate\xed\xa0\x80")},
		{"non-ASCII and astral planes pass", leaf("t", "héllo 日本 \U0001F600 \u202e")},
		{"text and children", Elem{Name: "m", Text: "before", Kids: []Elem{leaf("k", "v")}}},
	}
	for _, tc := range tests {
		for _, in := range indents {
			want := reference(t, &tc.e, in.prefix, in.indent)
			if d := cmp.Diff(want, written(&tc.e, in.prefix, in.indent)); d != "" {
				t.Errorf("%s, indent %q %q (-encoding/xml +xmlout):\n%s", tc.name, in.prefix, in.indent, d)
			}
		}
	}
	if Header != xml.Header {
		t.Errorf("Header %q, encoding/xml's %q", Header, xml.Header)
	}
}

// FuzzMatchesEncodingXML: any text and attribute value (untrusted: trace
// names, messages, explanations) is escaped as encoding/xml escapes it.
func FuzzMatchesEncodingXML(f *testing.F) {
	for _, s := range []string{"", "plain", "<&>\"'", "\t\r\n", "\x00\x1f\x7f", "\xff\xfe", "\uFFFD\uFFFE\uFFFF", "\xed\xa0\x80", "\U0010FFFF"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, text, attr string) {
		e := Elem{Name: "r", Attrs: []Attr{{"v", attr}}, Text: text, Kids: []Elem{{Name: "k", Text: attr}}}
		for _, in := range indents[1:3] {
			if want, got := reference(t, &e, in.prefix, in.indent), written(&e, in.prefix, in.indent); got != want {
				t.Fatalf("text %q attr %q:\nencoding/xml %q\nxmlout       %q", text, attr, want, got)
			}
		}
	})
}
