package watch

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"attest-engine/ingest"

	"github.com/google/go-cmp/cmp"
)

// TestBodiesBounded: while the pipeline takes nothing, requests are taken
// (200) until what they hold fills the body budget; the others are refused
// with 503 and Retry-After after AdmitWait, holding nothing, never left
// waiting longer. /v1/logs goes through the same admission as /v1/traces.
func TestBodiesBounded(t *testing.T) {
	for _, tc := range []struct {
		path string
		file string
		line int // the request's line in file
		logs bool
	}{
		{"/v1/traces", "basic.input.jsonl", 0, false},
		{"/v1/logs", "weather_events_logs.input.jsonl", 1, true},
	} {
		t.Run(strings.TrimPrefix(tc.path, "/v1/"), func(t *testing.T) {
			data, err := os.ReadFile("../testdata/ingest/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			body := strings.Split(string(data), "\n")[tc.line]
			check := ingest.CheckOTLP
			if tc.logs {
				check = ingest.CheckOTLPLogs
			}
			req, err := check([]byte(body), ingest.DefaultChunk)
			if err != nil || req.Spans() == 0 {
				t.Fatalf("%d spans or records, error %v", req.Spans(), err)
			}
			// fit requests the budget holds: fit-1 taken (each holding
			// Held) and the last one's body being read (its length and a
			// byte reserved), or taken; half a request more does not fit.
			const fit = 3
			held := req.Held()
			lim := listenLimits{Bodies: (fit-1)*held + max(held, int64(len(body))+1) + held/2, AdmitWait: 10 * time.Millisecond}.withDefaults(1 << 10)
			abandon, drop := context.WithCancel(context.Background())
			defer drop()
			c := &command{o: options{maxLine: 1 << 20}, lim: lim, bodies: newBudget(lim.Bodies), inflight: newBudget(inflightBytes),
				items: make(chan ingest.Item), chunk: ingest.DefaultChunk, abandon: abandon, handoff: newHandoff()} // nobody reads items: the pipeline is full
			go c.runHandoff(c.handoff)
			defer func() { drop(); c.handoff.close() }() // the pipeline abandoned: what was taken is dropped
			codes := map[int]int{}
			const clients = 12
			done := make(chan struct{})
			go func() {
				defer close(done)
				for range clients {
					r := httptest.NewRequest("POST", tc.path, strings.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					w := httptest.NewRecorder()
					c.export(context.Background(), w, r, tc.logs)
					codes[w.Code]++
					if w.Code == 503 && w.Header().Get("Retry-After") != "1" {
						t.Errorf("503 with Retry-After %q, want 1", w.Header().Get("Retry-After"))
					}
				}
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("a request waited for the full pipeline instead of being refused")
			}
			if codes[200] != fit || codes[503] != clients-fit {
				t.Errorf("answers %v; want %d × 200 and %d × 503", codes, fit, clients-fit)
			}
			if held := c.bodies.held(); held > lim.Bodies {
				t.Errorf("%d bytes held, over the budget of %d", held, lim.Bodies)
			}
		})
	}
}

// listenRun runs watch --listen on loopback, lets post send to its URL,
// then stops it (as SIGTERM does) and returns its result lines.
func listenRun(t *testing.T, post func(url string)) string {
	t.Helper()
	pr, pw := io.Pipe()
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			var l map[string]any
			if json.Unmarshal(sc.Bytes(), &l) == nil && l["msg"] == "listening for OTLP/HTTP" {
				addr <- l["address"].(string)
			}
		}
		io.Copy(io.Discard, pr)
	}()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- RunEnv(ctx, []string{"--suite", "../testdata/watch/suite.json", "--listen", "127.0.0.1:0", "--deterministic", "--jobs", "1", "--max-line", "4096"},
			nil, &out, pw, testEnv(nil))
		pw.Close()
	}()
	select {
	case a := <-addr:
		post("http://" + a + "/v1/traces")
	case code := <-done:
		t.Fatalf("watch ended with status %d before listening", code)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	return out.String()
}

// postOK posts a body and checks the success answer of its encoding.
func postOK(t *testing.T, url, ctype, encoding string, body []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	reply, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := map[string]string{"application/json": "{}\n", "application/x-protobuf": ""}[ctype] // an empty ExportTraceServiceResponse
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype || string(reply) != want {
		t.Errorf("POST %s: HTTP %d, %s %q; want 200, %s %q", ctype, resp.StatusCode, resp.Header.Get("Content-Type"), reply, ctype, want)
	}
}

func gzipped(b []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b)
	zw.Close()
	return z.Bytes()
}

// TestListenProtobuf: a trace posted over loopback as binary protobuf
// (testdata/ingest/basic.input.N.pb), plain or gzipped, is evaluated to
// the same result lines as the same requests posted as OTLP/JSON.
func TestListenProtobuf(t *testing.T) {
	data, err := os.ReadFile("../testdata/ingest/basic.input.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var bodies [][]byte
	for i := range lines {
		b, err := os.ReadFile(fmt.Sprintf("../testdata/ingest/basic.input.%d.pb", i+1))
		if err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, b)
	}
	want := listenRun(t, func(url string) {
		for _, l := range lines {
			postOK(t, url, "application/json", "", []byte(l))
		}
	})
	if n := strings.Count(want, `"trace_id":"5b8efff798038103d269b633813fc60c"`); n != 5 {
		t.Fatalf("%d result lines for the trace posted as JSON, want 5:\n%s", n, want)
	}
	for _, gz := range []bool{false, true} {
		got := listenRun(t, func(url string) {
			for _, b := range bodies {
				if gz {
					postOK(t, url, "application/x-protobuf", "gzip", gzipped(b))
				} else {
					postOK(t, url, "application/x-protobuf", "", b)
				}
			}
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("gzip %v: results differ (-JSON +protobuf):\n%s", gz, diff)
		}
	}
}

// TestListenErrors: failures are answered with the HTTP status the OTLP
// spec names and a google.rpc.Status in the request's encoding (binary
// for protobuf requests, JSON otherwise); an empty protobuf request is an
// empty export, a success.
func TestListenErrors(t *testing.T) {
	bomb := gzipped(bytes.Repeat([]byte{0}, 5000)) // 5,000 bytes after gzip, past --max-line 4096
	for _, c := range []struct {
		name, ctype, encoding string
		body                  []byte
		status                int
		code                  int
		message               string
	}{
		{"other type", "text/plain", "", []byte("{}"), 415, 12, "Content-Type must be application/x-protobuf (OTLP binary protobuf) or application/json (OTLP/JSON)"},
		{"no type", "", "", []byte("{}"), 415, 12, "Content-Type must be application/x-protobuf"},
		{"broken protobuf", "application/x-protobuf", "", []byte{0x0a, 0x05}, 400, 3, "OTLP/protobuf: field 1: length 5 past the end (0 bytes left)"},
		{"bad id, protobuf", "application/x-protobuf", "", []byte{0x0a, 0x04, 0x12, 0x02, 0x12, 0x00}, 400, 3, "OTLP/protobuf span 0: traceId is 0 bytes, not 16"},
		{"bad id, JSON", "application/json", "", []byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"x"}]}]}]}`), 400, 3, "OTLP/JSON span 0: traceId"},
		{"gzip bomb, protobuf", "application/x-protobuf", "gzip", bomb, 413, 8, "body larger than 4096 bytes after gzip"},
		{"too large, JSON", "application/json", "", bytes.Repeat([]byte(" "), 5000), 413, 8, "body larger than 4096 bytes"},
		{"brotli, protobuf", "application/x-protobuf", "br", nil, 415, 12, "Content-Encoding must be gzip or none"},
		{"broken gzip, protobuf", "application/x-protobuf", "gzip", []byte("not gzip"), 400, 3, "bad gzip body"},
		{"empty protobuf request", "application/x-protobuf", "", nil, 200, 0, ""},
		{"protobuf with parameters", "application/x-protobuf; charset=binary", "", nil, 200, 0, ""},
		{"long non-ASCII key, protobuf", "application/x-protobuf", "", deepAttr("a" + strings.Repeat("é", 60)), 400, 3, `OTLP/protobuf span 0: attribute "aééé`},
	} {
		listenRun(t, func(url string) {
			req, _ := http.NewRequest("POST", url, bytes.NewReader(c.body))
			req.Header.Set("Content-Type", c.ctype)
			if c.encoding != "" {
				req.Header.Set("Content-Encoding", c.encoding)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			reply, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			proto := strings.HasPrefix(c.ctype, "application/x-protobuf")
			wantType := map[bool]string{false: "application/json", true: "application/x-protobuf"}[proto]
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != wantType {
				t.Errorf("%s: HTTP %d, %s; want %d, %s", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), c.status, wantType)
			}
			if c.status == 200 {
				if len(reply) != 0 {
					t.Errorf("%s: body %q, want none", c.name, reply)
				}
				return
			}
			code, msg, err := readStatus(reply, proto)
			if err != nil || code != c.code || !strings.HasPrefix(msg, c.message) || !utf8.ValidString(msg) {
				t.Errorf("%s: Status code %d, message %q (%v); want %d, %q", c.name, code, msg, err, c.code, c.message)
			}
		})
	}
}

// readStatus reads a google.rpc.Status: JSON, or binary protobuf written
// as the listener writes it (field 1 a one-byte varint, then field 2).
func readStatus(b []byte, proto bool) (int, string, error) {
	if !proto {
		var s struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		}
		err := json.Unmarshal(b, &s)
		return s.Code, s.Message, err
	}
	if len(b) < 4 || b[0] != 0x08 || b[2] != 0x12 {
		return 0, "", fmt.Errorf("not a Status: % x", b)
	}
	n, k := binary.Uvarint(b[3:])
	if k <= 0 || n != uint64(len(b)-3-k) {
		return 0, "", fmt.Errorf("not a Status: % x", b)
	}
	return int(b[1]), string(b[3+k:]), nil
}

// pbBytes is field num of a protobuf message, length-delimited.
func pbBytes(num int, b []byte) []byte {
	return append(binary.AppendUvarint(binary.AppendUvarint(nil, uint64(num)<<3|2), uint64(len(b))), b...)
}

// deepAttr is an export request of one span with attribute key nested
// past the depth the engine reads (an error quoting the key).
func deepAttr(key string) []byte {
	var v []byte // AnyValue{}
	for range 40 {
		v = pbBytes(5, pbBytes(1, v)) // AnyValue{arrayValue{values: [v]}}
	}
	span := slices.Concat(pbBytes(1, bytes.Repeat([]byte{1}, 16)), pbBytes(2, bytes.Repeat([]byte{2}, 8)),
		pbBytes(9, append(pbBytes(1, []byte(key)), pbBytes(2, v)...)))
	return pbBytes(1, pbBytes(2, pbBytes(2, span)))
}

// TestListenAddr: --listen's host part. An empty one binds loopback with a
// warning (a container's collector could not reach it), or every address
// with --listen-any-address; another machine's address needs the flag.
func TestListenAddr(t *testing.T) {
	tests := []struct {
		listen    string
		any       bool
		addr      string
		warn, err bool
	}{
		{"127.0.0.1:4318", false, "127.0.0.1:4318", false, false},
		{"localhost:4318", false, "localhost:4318", false, false},
		{"[::1]:4318", false, "[::1]:4318", false, false},
		{":4318", false, "127.0.0.1:4318", true, false},
		{":4318", true, ":4318", false, false},
		{"0.0.0.0:4318", false, "", false, true},
		{"0.0.0.0:4318", true, "0.0.0.0:4318", false, false},
		{"4318", false, "", false, true},
	}
	for _, tc := range tests {
		c := &command{o: options{listen: tc.listen, listenAny: tc.any}}
		addr, warn, err := c.listenAddr()
		if addr != tc.addr || (warn != "") != tc.warn || (err != nil) != tc.err {
			t.Errorf("--listen %q (any %v) = %q, warning %q, %v; want %q, warning %v, error %v", tc.listen, tc.any, addr, warn, err, tc.addr, tc.warn, tc.err)
		}
	}
}
