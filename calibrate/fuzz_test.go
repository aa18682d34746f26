// fuzz_test.go: a line of a labels file (untrusted) never panics, and what it accepts has a trace and a label.

package calibrate

import "testing"

func FuzzLabelLine(f *testing.F) {
	for _, s := range []string{
		`{"trace": {"schema_version": 1, "trace_id": "t"}, "label": true}`,
		`{"trace": {}, "labels": ["pass", "fail", 0.5]}`,
		`{"trace": {}, "label": 2}`, `{"trace": 1, "label": true}`, `[]`, `{"trace": {}, "label": true, "label": false}`,
		`{"trace": {}, "labels": [], "assertion": "a"}`, `{"trace": {"a": {"b": [1, 2, {"c": null}]}}, "label": "pass", "assertion": "j"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		it, err := parseItem([]byte(line))
		if err != nil {
			return
		}
		if it.doc == nil || (it.consensus == nil && len(it.raters) == 0) || len(it.raters) > maxRaters {
			t.Fatalf("accepted %q as %+v", line, it)
		}
		for _, r := range append(it.raters, ptrOr(it.consensus)...) {
			if r.numeric && !(r.score >= 0 && r.score <= 1) {
				t.Fatalf("accepted score %v", r.score)
			}
		}
	})
}

func ptrOr(r *rating) []rating {
	if r == nil {
		return nil
	}
	return []rating{*r}
}
