// xmlout.go: Elem and its writer, with encoding/xml's indentation and escaping.

package xmlout

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Header is encoding/xml's Header: the XML declaration and a line feed.
const Header = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// Elem is one element. Text is its character data, written before Kids;
// an element with neither is written as a start and an end tag.
type Elem struct {
	Name  string
	Attrs []Attr
	Text  string
	Kids  []Elem
}

// Attr is one attribute, written in the order given.
type Attr struct {
	Name, Value string
}

// Int is an attribute of an integer value.
func Int(name string, v int) Attr { return Attr{name, strconv.Itoa(v)} }

// Write appends e to b as encoding/xml's Encoder with Indent(prefix,
// indent) encodes it: each start tag and each end tag that follows a
// child on a line of its own, prefixed and indented by depth, the first
// without a line feed before it; no line feed at the end.
func Write(b *bytes.Buffer, e *Elem, prefix, indent string) {
	p := printer{b: b, prefix: prefix, indent: indent}
	p.elem(e)
}

// printer holds encoding/xml's indentation state.
type printer struct {
	b              *bytes.Buffer
	prefix, indent string
	depth          int
	indentedIn     bool // a start tag was written last: its end tag goes on the same line
	putNewline     bool // something was written: the next indent starts a line
}

func (p *printer) elem(e *Elem) {
	p.writeIndent(1)
	p.b.WriteByte('<')
	p.b.WriteString(e.Name)
	for _, a := range e.Attrs {
		p.b.WriteByte(' ')
		p.b.WriteString(a.Name)
		p.b.WriteString(`="`)
		escape(p.b, a.Value)
		p.b.WriteByte('"')
	}
	p.b.WriteByte('>')
	escape(p.b, e.Text)
	for i := range e.Kids {
		p.elem(&e.Kids[i])
	}
	p.writeIndent(-1)
	p.b.WriteString("</")
	p.b.WriteString(e.Name)
	p.b.WriteByte('>')
}

func (p *printer) writeIndent(delta int) {
	if p.prefix == "" && p.indent == "" {
		return
	}
	if delta < 0 {
		p.depth--
		if p.indentedIn {
			p.indentedIn = false
			return
		}
	}
	if p.putNewline {
		p.b.WriteByte('\n')
	} else {
		p.putNewline = true
	}
	p.b.WriteString(p.prefix)
	for range p.depth {
		p.b.WriteString(p.indent)
	}
	if delta > 0 {
		p.depth++
		p.indentedIn = true
	}
}

// escape appends s as character data or an attribute value.
func escape(b *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !isChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b.WriteString(s[last : i-width])
		b.WriteString(esc)
		last = i
	}
	b.WriteString(s[last:])
}

// isChar reports whether XML 1.0 can hold r (§2.2, production Char).
func isChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}
