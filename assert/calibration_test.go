// calibration_test.go: what decides a judge's verdict (every change of one byte of it changes the hash, and nothing else does), and certificate files as untrusted input.

package assert

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"attest-engine/provider"
)

// TestJudgeHashMutations: a certificate is invalidated by a one-byte change
// of the rubric, the custom prompt, the criteria, the model, the provider,
// the threshold, the consistency mode or its max, the target or the
// compared answer; by a change of any field of JudgeDecides (the templates'
// hash and the sampling parameters included); and by a one-byte change of
// any prompt template. soft, require_calibration and unknown fields do not
// change it.
func TestJudgeHashMutations(t *testing.T) {
	f := newFake(t)
	e := fakeEngine(t, f, nil)
	hash := func(sp map[string]any) string {
		t.Helper()
		d, err := e.JudgeDecides(sp)
		if err != nil {
			t.Fatal(err)
		}
		return d.Hash()
	}
	base := func() map[string]any {
		return map[string]any{"rubric": "Score 1.0 when the answer gives the refund ID.", "criteria": "Mentions RFD", "model": "gpt-4.1",
			"threshold": 0.7, "consistency": map[string]any{"mode": "sequential", "max": 5}, "target": "output.message", "compare": "output.structured.baseline"}
	}
	h0 := hash(base())
	same := []func(map[string]any){
		func(s map[string]any) { s["soft"] = true },
		func(s map[string]any) { s["require_calibration"] = map[string]any{"certificate": "c.json"} },
		func(s map[string]any) { s["note"] = "ignored" },
	}
	for i, m := range same {
		s := base()
		m(s)
		if hash(s) != h0 {
			t.Errorf("unchanged %d: the hash changed", i)
		}
	}
	changed := map[string]func(map[string]any){
		"rubric":      func(s map[string]any) { s["rubric"] = "Score 1.0 when the answer gives the refund ID!" },
		"criteria":    func(s map[string]any) { s["criteria"] = "Mentions RFE" },
		"model":       func(s map[string]any) { s["model"] = "gpt-4.2" },
		"threshold":   func(s map[string]any) { s["threshold"] = 0.71 },
		"mode":        func(s map[string]any) { s["consistency"] = map[string]any{"mode": "confirm_on_fail"} },
		"max":         func(s map[string]any) { s["consistency"] = map[string]any{"mode": "sequential", "max": 7} },
		"single":      func(s map[string]any) { delete(s, "consistency") },
		"target":      func(s map[string]any) { s["target"] = "output.structured" },
		"compare":     func(s map[string]any) { s["compare"] = "output.structured.baselinf" },
		"not compare": func(s map[string]any) { delete(s, "compare") },
		"builtin":     func(s map[string]any) { s["rubric"] = "helpfulness" },
		"prompt": func(s map[string]any) {
			delete(s, "rubric")
			s["prompt"] = "Judge {{output}}"
		},
	}
	for name, m := range changed {
		s := base()
		m(s)
		if hash(s) == h0 {
			t.Errorf("%s changed: the hash did not", name)
		}
	}
	p1, p2 := base(), base()
	delete(p1, "rubric")
	delete(p2, "rubric")
	p1["prompt"], p2["prompt"] = "Judge {{output}}", "Judge {{output}}."
	if hash(p1) == hash(p2) {
		t.Error("a one-byte change of a custom prompt did not change the hash")
	}
	// The provider: another base URL or kind is another judge.
	other := fakeEngine(t, f, func(ps *provider.Settings) {
		ps.Getenv = envOf("ANTHROPIC_API_KEY", testKey, "ANTHROPIC_BASE_URL", f.URL)
	})
	if d, _ := other.JudgeDecides(base()); d.Hash() == h0 {
		t.Error("another provider: the hash did not change")
	}
	// Every field of JudgeDecides counts.
	d0, _ := e.JudgeDecides(base())
	v := reflect.ValueOf(&d0).Elem()
	for i := range v.NumField() {
		d := d0
		fv := reflect.ValueOf(&d).Elem().Field(i)
		switch fv.Kind() {
		case reflect.String:
			fv.SetString(fv.String() + "x")
		case reflect.Float64:
			fv.SetFloat(fv.Float() + 1e-9)
		case reflect.Int:
			fv.SetInt(fv.Int() + 1)
		default:
			t.Fatalf("field %s of kind %s: teach this test", v.Type().Field(i).Name, fv.Kind())
		}
		if d.Hash() == d0.Hash() {
			t.Errorf("field %s changed: the hash did not", v.Type().Field(i).Name)
		}
	}
	// Every template: one byte more in any part of the text the template
	// hash covers changes it.
	parts := templateParts()
	if sha(parts...) != templateHash() {
		t.Fatal("templateHash is not the hash of templateParts")
	}
	for i := range parts {
		p := append([]string(nil), parts...)
		p[i] += " "
		if sha(p...) == templateHash() {
			t.Errorf("template part %d changed: the hash did not", i)
		}
	}
	for i, p := range parts {
		if !strings.Contains(strings.Join(parts, ""), p) || p == "" {
			t.Errorf("template part %d is empty", i)
		}
	}
}

func TestRequireCalibrationSpecErrors(t *testing.T) {
	f := newFake(t)
	e := fakeEngine(t, f, nil)
	for _, req := range []any{"cert.json", map[string]any{}, map[string]any{"certificate": "c.json", "min_kappa": 2}, map[string]any{"certificate": 3}} {
		_, err := e.JudgeDecides(map[string]any{"rubric": "tone", "require_calibration": req})
		if err == nil || !strings.Contains(err.Error(), "require_calibration") {
			t.Errorf("require_calibration %v: error %v", req, err)
		}
	}
}

// FuzzCertificate: a certificate file's text (untrusted: any file a spec
// names) never panics the reader, and what it accepts has the format and
// reads back the same after writing.
func FuzzCertificate(f *testing.F) {
	q := 0.5
	good, _ := json.Marshal(Certificate{Format: CertificateFormat, LabelsSHA256: "ab", Judges: []JudgeCert{{Assertion: "j", Hash: "h", N: 3,
		CohenKappa: 0.7, QuadraticKappa: &q, Confusion: [2][2]int{{1, 0}, {0, 2}}}}})
	for _, s := range []string{string(good), `{}`, `{"format": "attest-judge-certificate/1", "judges": null}`, `[]`, `{"format": 1}`,
		`{"format": "attest-judge-certificate/1", "judges": [{"cohen_kappa": "x"}]}`, `{"format": "attest-judge-certificate/1", "judges": [{"confusion": [[1,2,3]]}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := parseCertificate(b)
		if err != nil {
			return
		}
		if c.Format != CertificateFormat {
			t.Fatalf("accepted format %q", c.Format)
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("an accepted certificate does not write: %v", err)
		}
		c2, err := parseCertificate(again)
		if err != nil {
			t.Fatalf("a written certificate does not read: %v", err)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("read %+v, written and read %+v", c, c2)
		}
	})
}
