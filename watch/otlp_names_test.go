// otlp_names_test.go: an OTLP/JSON request that repeats a member name: 400 on --listen, an error naming the line on --in.

package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// repeatedTraceID is an OTLP/JSON request whose span names traceId twice:
// a receiver that keeps the first and one that keeps the last would file
// the span under two different traces.
const repeatedTraceID = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b175",` +
	`"traceId":"00000000000000000000000000000001","name":"invoke_agent a"}]}]}]}`

// TestListenRepeatedName: POST /v1/traces with a repeated member name is
// refused with 400 and a google.rpc.Status saying which name, and nothing
// of it is evaluated.
func TestListenRepeatedName(t *testing.T) {
	out := listenRun(t, func(url string) {
		resp, err := http.Post(url, "application/json", strings.NewReader(repeatedTraceID))
		if err != nil {
			t.Fatal(err)
		}
		reply, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		code, msg, err := readStatus(reply, false)
		want := `OTLP/JSON: member "traceId" appears twice in one object`
		if resp.StatusCode != http.StatusBadRequest || err != nil || code != 3 || !strings.HasPrefix(msg, want) {
			t.Errorf("HTTP %d, Status %d %q (%v); want 400, 3 (INVALID_ARGUMENT), %q", resp.StatusCode, code, msg, err, want)
		}
	})
	if out != "" {
		t.Errorf("results written for a refused request: %s", out)
	}
}

// TestInRepeatedName: on --in (here stdin), the line with a repeated name
// gives error results and a warning naming its line; the lines around it
// are evaluated.
func TestInRepeatedName(t *testing.T) {
	good := strings.Replace(repeatedTraceID, `"traceId":"00000000000000000000000000000001",`, "", 1)
	var out, errb bytes.Buffer
	code := RunEnv(context.Background(), []string{"--suite", "../testdata/watch/suite.json", "--deterministic", "--jobs", "1"},
		strings.NewReader(good+"\n"+repeatedTraceID+"\n"), &out, &errb, testEnv(nil))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := `member "traceId" appears twice in one object`
	warned := false
	for l := range strings.SplitSeq(errb.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["line"] == 2.0 && strings.Contains(m["error"].(string), want) {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning naming line 2 and %q: %s", want, errb.String())
	}
	var errs, evaluated int
	for l := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var r Result
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		switch {
		case r.Error != nil && strings.Contains(r.Error.Message, want):
			errs++
		case r.TraceID == "5b8efff798038103d269b633813fc60c":
			evaluated++
		}
	}
	if errs == 0 || evaluated == 0 {
		t.Errorf("%d error results for the repeated name, %d results of the good line; want both:\n%s", errs, evaluated, out.String())
	}
}
