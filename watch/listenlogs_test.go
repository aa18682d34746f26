// listenlogs_test.go: --listen's POST /v1/logs (log records joined to their spans) and its answer to unknown paths.

package watch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listenLogRun runs watch --listen with suite on loopback, lets post send
// to its base URL, stops it, and returns its result lines and log lines.
func listenLogRun(t *testing.T, suite string, post func(base string)) (string, []map[string]any) {
	t.Helper()
	pr, pw := io.Pipe()
	addr := make(chan string, 1)
	logs := make(chan []map[string]any, 1)
	go func() {
		var all []map[string]any
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var l map[string]any
			if json.Unmarshal(sc.Bytes(), &l) == nil {
				all = append(all, l)
				if l["msg"] == "listening for OTLP/HTTP" {
					addr <- l["address"].(string)
				}
			}
		}
		logs <- all
	}()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- RunEnv(ctx, []string{"--suite", suite, "--listen", "127.0.0.1:0", "--deterministic", "--jobs", "1"}, nil, &out, pw, testEnv(nil))
		pw.Close()
	}()
	select {
	case a := <-addr:
		post("http://" + a)
	case code := <-done:
		t.Fatalf("watch ended with status %d before listening", code)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	return out.String(), <-logs
}

// TestListenLogs: the official OpenAI instrumentation's shape — chat spans
// without content, the messages as log records — posted to /v1/traces and
// /v1/logs, as JSON or binary protobuf (testdata/ingest/
// weather_events_logs.input.N.pb), in either order: the content, the tool
// call, the tokens and the cost derived from them are judged, not skipped.
// Before /v1/logs the records were answered 404 and every content check
// said "content not captured".
func TestListenLogs(t *testing.T) {
	data, err := os.ReadFile("../testdata/ingest/weather_events_logs.input.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	paths := []string{"/v1/traces", "/v1/logs"}
	var pbs [][]byte
	for i := range lines {
		b, err := os.ReadFile(fmt.Sprintf("../testdata/ingest/weather_events_logs.input.%d.pb", i+1))
		if err != nil {
			t.Fatal(err)
		}
		pbs = append(pbs, b)
	}
	const suite = "../testdata/watch/otel-suite.json"
	want, _ := listenLogRun(t, suite, func(base string) {
		for i, l := range lines {
			postOK(t, base+paths[i], "application/json", "", []byte(l))
		}
	})
	for _, name := range []string{"answers-with-temperature", "weather-tool-called", "tokens-under-1000"} {
		if !strings.Contains(want, `"assertion":"`+name+`","assertion_key":`) || !regexpPass(want, name) {
			t.Errorf("%s not passed:\n%s", name, want)
		}
	}
	if !regexpPass(want, "cost-under-a-cent") || !strings.Contains(want, "derived from the spans' gen_ai.usage token counts") {
		t.Errorf("the cost check is not judged on the cost derived from the token counts:\n%s", want)
	}
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		got, _ := listenLogRun(t, suite, func(base string) {
			for _, i := range order {
				postOK(t, base+paths[i], "application/x-protobuf", "", pbs[i])
			}
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("protobuf, order %v: results differ (-JSON +protobuf):\n%s", order, diff)
		}
	}
}

// regexpPass: the result line of assertion name passed.
func regexpPass(out, name string) bool {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, `"assertion":"`+name+`"`) {
			return strings.Contains(l, `"status":"pass"`)
		}
	}
	return false
}

// TestListenUnknownPath: a path the engine does not serve (an exporter's
// metrics, a typo) is answered 404 with a google.rpc.Status NOT_FOUND in
// the request's encoding, and logged once per path, however often it
// comes; a malformed log request is a 400 as for traces.
func TestListenUnknownPath(t *testing.T) {
	_, logs := listenLogRun(t, "../testdata/watch/otel-suite.json", func(base string) {
		for _, c := range []struct {
			path, ctype string
			body        string
			status      int
			code        int
			msg         string
		}{
			{"/v1/metrics", "application/json", "{}", 404, 5, "POST /v1/metrics: not an OTLP/HTTP path"},
			{"/v1/metrics", "application/x-protobuf", "", 404, 5, "POST /v1/metrics: not an OTLP/HTTP path"},
			{"/v1/metrics", "application/json", "{}", 404, 5, "POST /v1/metrics"},
			{"/v1/trace", "application/json", "{}", 404, 5, "POST /v1/trace: not"},
			{"/v1/logs", "application/json", `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"x"}]}]}]}`, 400, 3, "OTLP/JSON log record 0: traceId"},
			{"/v1/logs", "application/x-protobuf", "\x0a\x05", 400, 3, "OTLP/protobuf logs:"},
			{"/v1/logs", "application/json", `{"resourceLogs":[],"resourceLogs":[]}`, 400, 3, "OTLP/JSON logs:"},
			{"/v1/logs", "text/plain", "{}", 415, 12, "Content-Type must be"},
		} {
			req, _ := http.NewRequest("POST", base+c.path, strings.NewReader(c.body))
			req.Header.Set("Content-Type", c.ctype)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			proto := c.ctype == "application/x-protobuf"
			code, msg, err := readStatus(reply, proto)
			if resp.StatusCode != c.status || err != nil || code != c.code || !strings.HasPrefix(msg, c.msg) {
				t.Errorf("POST %s (%s): HTTP %d, Status %d %q (%v); want %d, %d %q", c.path, c.ctype, resp.StatusCode, code, msg, err, c.status, c.code, c.msg)
			}
		}
	})
	seen := map[string]int{}
	for _, l := range logs {
		if p, ok := l["path"].(string); ok && strings.Contains(fmt.Sprint(l["msg"]), "answered 404") {
			seen[p]++
		}
	}
	if diff := cmp.Diff(map[string]int{"/v1/metrics": 1, "/v1/trace": 1}, seen); diff != "" {
		t.Errorf("unknown paths logged (-want +got):\n%s", diff)
	}
}
