// lifetime_test.go: a request's tape lives until its answer is written, reads a line no one else changes, and is released.

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTapeLifetime sends requests of every kind through Serve, some
// pipelined (decoded on workers from their own copy of the line) and some
// alone (decoded and answered by the read loop in its own buffer): costly
// batches handed to a worker after an inline decode, a method name the fast
// path does not recognise, notifications, malformed lines, a large line
// released before its answer. Every answer must be the one a fresh server
// gives the line alone, and every tape a request held must be released.
// Run with -race (as .ci/run does): a tape read after its release, or a
// line read after the read loop reused its buffer, is a data race.
func TestTapeLifetime(t *testing.T) {
	lines := sessionLines(t)
	init, spec := lines[0], lines[1]
	plain := regexp.MustCompile(`"request_id":"[^"]*",`).ReplaceAllString(spec, "")
	var p struct {
		Params struct{ Trace json.RawMessage }
	}
	if err := json.Unmarshal([]byte(spec), &p); err != nil {
		t.Fatal(err)
	}
	judge := `{"jsonrpc":"2.0","id":2,"method":"evaluate_batch","params":{"trace":` + string(p.Params.Trace) +
		`,"assertions":[{"assertion_id":"j1","type":"llm_judge","spec":{"criteria":"polite","threshold":0.5}}]}}`
	big := strings.Replace(plain, `"user_message":"`, `"padding":"`+strings.Repeat("x", collectAfterBytes)+`","user_message":"`, 1)
	variants := []string{
		spec,
		plain,
		strings.Replace(plain, `"trc_abc123"`, `"trc_other"`, 1),
		judge, // costly: decoded inline, then again on a worker
		strings.Replace(plain, `"method":"evaluate_batch"`, `"method":"evaluate\u005fbatch"`, 1), // not sniffed: the read loop's parse, then a worker's
		strings.Replace(plain, `"id":2,`, ``, 1),                                                 // a notification: no answer
		strings.Replace(plain, `"params":{`, `"params":{"suite":"a","suite":"b",`, 1),            // duplicate member
		strings.Replace(plain, `0.0067`, `NaN`, 1),
		strings.Replace(plain, `"assertions":[`, `"assertions":[7,`, 1), // read plainly: 1002
		`{"jsonrpc":"2.0","id":2,"method":"validate_trace_tree","params":{"trace":` + string(p.Params.Trace) + `}}`,
		`{"jsonrpc":"2.0","id":2,"method":"evaluate_batch","params":"x"}`,
		big,
	}
	// Each line alone, through a fresh server: the answers to expect.
	want := map[string]string{}
	var in []chunk
	in = append(in, chunk{data: []byte(init + "\n")})
	for i := range 3 * len(variants) {
		line := strings.Replace(variants[i%len(variants)], `"id":2,`, fmt.Sprintf(`"id":%d,`, 100+i), 1)
		if i%len(variants) < 5 || i%3 == 0 {
			in = append(in, chunk{data: []byte(line + "\n"), alone: i%2 == 0})
		} else {
			last := &in[len(in)-1]
			last.data = append(last.data, line+"\n"...)
		}
		for id, a := range serveAnswers(t, newServer(t), []chunk{{data: []byte(init + "\n" + line + "\n")}}) {
			if id != "1" {
				want[id] = a
			}
		}
	}
	if len(want) < 2*len(variants) {
		t.Fatalf("%d answers to expect: the variants changed shape", len(want))
	}

	countDocs.Store(true)
	defer countDocs.Store(false)
	held := docsHeld.Load()
	got := serveAnswers(t, newServer(t), in)
	delete(got, "1")
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("answers in a session differ from answers alone (-alone +session):\n%s", d)
	}
	if n := docsHeld.Load() - held; n != 0 {
		t.Errorf("%d tapes not released once every request was answered", n)
	}
}

// chunk is what one Read of the input returns; alone: not before every
// request read so far is answered, so that the read loop decodes and
// answers it itself (handleLine's inline path).
type chunk struct {
	data  []byte
	alone bool
}

func newServer(t *testing.T) *Server {
	s := newReadyServer(t)
	s.state = stateNew
	return s
}

// serveAnswers serves in and returns the answers by id, durations zeroed.
func serveAnswers(t *testing.T, s *Server, in []chunk) map[string]string {
	t.Helper()
	var out bytes.Buffer
	if err := s.Serve(context.Background(), &chunkReader{s: s, chunks: in}, &out); err != nil {
		t.Fatal(err)
	}
	answers := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var a struct{ ID json.RawMessage }
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("%v: %.200s", err, l)
		}
		answers[string(a.ID)] = durations.ReplaceAllString(l, `"${1}duration_ms":0`)
	}
	return answers
}

type chunkReader struct {
	s      *Server
	chunks []chunk
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	c := &r.chunks[0]
	if c.alone {
		for deadline := time.Now().Add(10 * time.Second); len(r.s.sem) > 0 && time.Now().Before(deadline); {
			time.Sleep(100 * time.Microsecond)
		}
		c.alone = false
	}
	n := copy(p, c.data)
	if c.data = c.data[n:]; len(c.data) == 0 {
		r.chunks = r.chunks[1:]
	}
	return n, nil
}
