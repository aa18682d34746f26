// html_check_test.go: a strict reading of the HTML report: well-formed, and no active content or reference from data.

package report

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// htmlElements are the elements the report's templates and charts write.
var htmlElements = map[string]bool{}

// htmlAttributes are the attribute names they write. None is an event
// handler (on*), none loads anything (href, src, action, style, xmlns...).
var htmlAttributes = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`html head meta title style body header h1 h2 span p section dl div dt dd small
		svg rect line polyline circle path text table thead tbody tr th td label input select option output main
		details summary b i bdi code pre footer script ul li`) {
		htmlElements[e] = true
	}
	for _, a := range strings.Fields(`lang charset http-equiv content name class id open hidden data-status data-name
		data-types type value checked placeholder viewbox role aria-label x y x1 y1 x2 y2 cx cy r width height points d
		text-anchor preserveaspectratio`) {
		htmlAttributes[a] = true
	}
}

var (
	htmlVoid   = map[string]bool{"meta": true, "input": true}
	svgEmpty   = map[string]bool{"line": true, "polyline": true, "rect": true, "circle": true, "path": true}
	htmlEntity = regexp.MustCompile(`^&(?:[a-z]+|#[0-9]+);`)
	htmlName   = regexp.MustCompile(`^[a-z][a-z0-9-]*`)
)

// checkHTMLPage reads a report as an HTML parser would, more strictly, and
// returns the first problem: the page must be valid UTF-8 with no NUL; every
// tag one of the report's own elements, balanced; every attribute one of
// its own names, double-quoted, with no '<' in its value; text with no '<'
// or '>' and '&' only in a character reference; exactly one <script>, whose
// text is htmlScript, and one <style>, whose text is htmlCSS. Data can then
// add no element, no attribute, no script and no reference.
func checkHTMLPage(page string) error {
	if !utf8.ValidString(page) {
		return fmt.Errorf("invalid UTF-8")
	}
	if strings.ContainsRune(page, 0) {
		return fmt.Errorf("a NUL byte")
	}
	const doctype = "<!DOCTYPE html>\n"
	if !strings.HasPrefix(page, doctype) {
		return fmt.Errorf("no doctype")
	}
	s := page[len(doctype):]
	var stack []string
	scripts, styles := 0, 0
	at := func() string { return fmt.Sprintf("at byte %d (%q)", len(page)-len(s), s[:min(len(s), 60)]) }
	for len(s) > 0 {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			i = len(s)
		}
		if err := checkText(s[:i]); err != nil {
			return fmt.Errorf("%v %s", err, at())
		}
		s = s[i:]
		if s == "" {
			break
		}
		if strings.HasPrefix(s, "</") {
			name := htmlName.FindString(s[2:])
			if name == "" || !strings.HasPrefix(s[2+len(name):], ">") {
				return fmt.Errorf("malformed end tag %s", at())
			}
			if len(stack) == 0 || stack[len(stack)-1] != name {
				return fmt.Errorf("end tag </%s> closes %v %s", name, stack, at())
			}
			stack = stack[:len(stack)-1]
			s = s[2+len(name)+1:]
			continue
		}
		name := htmlName.FindString(s[1:])
		if name == "" {
			return fmt.Errorf("'<' not starting a tag %s", at())
		}
		if !htmlElements[name] {
			return fmt.Errorf("element <%s> %s", name, at())
		}
		s = s[1+len(name):]
		selfClosed := false
		for {
			s = strings.TrimLeft(s, " \n")
			if strings.HasPrefix(s, ">") {
				s = s[1:]
				break
			}
			if strings.HasPrefix(s, "/>") {
				selfClosed = true
				s = s[2:]
				break
			}
			attr := htmlName.FindString(strings.ToLower(s[:min(len(s), 40)]))
			if attr == "" {
				return fmt.Errorf("malformed attribute in <%s> %s", name, at())
			}
			if !htmlAttributes[attr] || strings.HasPrefix(attr, "on") {
				return fmt.Errorf("attribute %q in <%s> %s", attr, name, at())
			}
			s = s[len(attr):]
			if strings.HasPrefix(s, `="`) {
				end := strings.IndexByte(s[2:], '"')
				if end < 0 {
					return fmt.Errorf("unterminated attribute %q %s", attr, at())
				}
				v := s[2 : 2+end]
				if strings.ContainsAny(v, "<>") {
					return fmt.Errorf("'<' or '>' in attribute %q: %q", attr, v)
				}
				if err := checkText(v); err != nil {
					return fmt.Errorf("attribute %q: %v", attr, err)
				}
				if attr == "http-equiv" && v != "Content-Security-Policy" {
					return fmt.Errorf("http-equiv=%q", v)
				}
				s = s[2+end+1:]
			} else if strings.HasPrefix(s, "=") {
				return fmt.Errorf("unquoted attribute %q %s", attr, at())
			}
		}
		switch {
		case selfClosed && !svgEmpty[name]:
			return fmt.Errorf("<%s/> self-closed", name)
		case htmlVoid[name], selfClosed:
		case name == "script" || name == "style":
			end := strings.Index(s, "</"+name+">")
			if end < 0 {
				return fmt.Errorf("unterminated <%s>", name)
			}
			want := htmlScript
			if name == "style" {
				want, styles = htmlCSS, styles+1
			} else {
				scripts++
			}
			if s[:end] != want {
				return fmt.Errorf("<%s> holds other text than the report's own", name)
			}
			s = s[end+len(name)+3:]
		default:
			stack = append(stack, name)
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("unclosed elements %v", stack)
	}
	if scripts != 1 || styles != 1 {
		return fmt.Errorf("%d scripts and %d style sheets, want one each", scripts, styles)
	}
	if n := strings.Count(strings.ToLower(page), "<script"); n != 1 {
		return fmt.Errorf("%d '<script' in the page", n)
	}
	return nil
}

// checkText checks text or an attribute value: no '<' or '>', '&' only as
// a character reference.
func checkText(t string) error {
	if i := strings.IndexAny(t, "<>"); i >= 0 {
		return fmt.Errorf("%q in text", t[i])
	}
	for i := strings.IndexByte(t, '&'); i >= 0; i = strings.IndexByte(t, '&') {
		if !htmlEntity.MatchString(t[i:]) {
			return fmt.Errorf("bare '&' in text: %q", t[i:min(len(t), i+12)])
		}
		t = t[i+1:]
	}
	return nil
}

// htmlReferences are the marks of anything that could load or link: a
// scheme, a protocol-relative or CSS URL, an import, a loading attribute.
var htmlReferences = []string{"http:", "https:", "ftp:", "file:", "data:", "javascript:", "vbscript:", "blob:", "ws:",
	"wss:", "//", "url(", "@import", "href", "src=", "srcset", "xlink", "xmlns", "action=", "<link", "<img", "<iframe",
	"<object", "<embed", "<base", "<form", "www."}

// findReferences lists the references found in a page (case-insensitive).
func findReferences(page string) []string {
	lower := strings.ToLower(page)
	var found []string
	for _, r := range htmlReferences {
		if strings.Contains(lower, r) && !slices.Contains(found, r) {
			found = append(found, r)
		}
	}
	return found
}
