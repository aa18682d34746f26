// sdk_session_test.go: the SDK's side of a session with the built binary, as sdk-compat.md says SDKs drive it:
// one request at a time (the fixtures), or pipelined (an id-matching client); each batch new, with random ids.

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// sessionBatch makes the evaluate_batch of JSON-RPC id i (from 1) and
// returns it with its assertion ids in request order.
type sessionBatch func(i int) (line string, ids []string)

// cheapBatches is sdkBatchLine at one schema_version.
func cheapBatches(schemaVersion int) sessionBatch {
	return func(i int) (string, []string) { return sdkBatchLine(i, schemaVersion) }
}

// workloadBatches is the SDK workload of sdk_bench_test.go (five assertions:
// schema, constraint, trace, content, soft content), request i-1 with a
// new random id per assertion, as the SDKs make them.
func workloadBatches(i int) (string, []string) {
	var ids [5]string
	for k := range ids {
		ids[k] = sdkAssertionID()
	}
	return workloadBatchIDs(i-1, ids), ids[:]
}

// sdkBatchLine is one evaluate_batch as an SDK sends it: a new trace each
// time, random assertion ids, three cheap assertions that all pass; it
// returns the line and the assertion ids in request order.
func sdkBatchLine(id, schemaVersion int) (string, []string) {
	ids := make([]string, 3)
	for i := range ids {
		ids[i] = sdkAssertionID()
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"evaluate_batch","params":{"trace":{"schema_version":%d,"trace_id":"trc_%d_%08x",`+
		`"input":{"user_message":"I want a refund for order ORD-%d"},`+
		`"steps":[{"type":"tool_call","name":"lookup_order","args":{"order_id":"ORD-%d"},"result":{"status":"delivered"}},`+
		`{"type":"tool_call","name":"process_refund","args":{"order_id":"ORD-%d"},"result":{"refund_id":"RFD-%d"}}],`+
		`"output":{"message":"Your refund has been processed. Refund ID: RFD-%d."},"metadata":{"cost_usd":0.0067,"total_tokens":1350}},"assertions":[`+
		`{"assertion_id":"%s","type":"content","spec":{"target":"output.message","check":"contains","value":"refund","case_sensitive":false,"soft":false}},`+
		`{"assertion_id":"%s","type":"trace","spec":{"check":"contains_in_order","tools":["lookup_order","process_refund"],"soft":false}},`+
		`{"assertion_id":"%s","type":"constraint","spec":{"field":"metadata.cost_usd","operator":"lte","value":0.01,"soft":false}}]}}`,
		id, schemaVersion, id, rand.Uint32(), id, id, id, id, id, ids[0], ids[1], ids[2]), ids
}

// checkBatchAnswer checks an evaluate_batch answer: one result per
// assertion, in request order, each a pass.
func checkBatchAnswer(ans string, ids []string) error {
	var a struct {
		Result struct {
			Results []struct {
				AssertionID string `json:"assertion_id"`
				Status      string `json:"status"`
			} `json:"results"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(ans), &a); err != nil {
		return fmt.Errorf("answer is not JSON: %v: %s", err, ans)
	}
	rs := a.Result.Results
	if len(rs) != len(ids) {
		return fmt.Errorf("%d results, want %d: %s", len(rs), len(ids), ans)
	}
	for i, r := range rs {
		if r.AssertionID != ids[i] || r.Status != "pass" {
			return fmt.Errorf("result %d is %s %q, want %s pass: %s", i, r.AssertionID, r.Status, ids[i], ans)
		}
	}
	return nil
}

// unreadSession is the SDK's side: initialize, the batches one at a time
// (one stdout line read per request), shutdown.
func unreadSession(stdin io.WriteCloser, stdout *bufio.Reader, batch sessionBatch, answered *atomic.Int64) error {
	return unreadSessionOf(stdin, stdout, batch, unreadBatches, answered)
}

func unreadSessionOf(stdin io.WriteCloser, stdout *bufio.Reader, batch sessionBatch, batches int, answered *atomic.Int64) error {
	if err := sessionCall(stdin, stdout, sdkInitLine, 0, nil, answered); err != nil {
		return err
	}
	assertions := 0
	for i := 1; i <= batches; i++ {
		line, ids := batch(i)
		assertions += len(ids)
		if err := sessionCall(stdin, stdout, line, i, func(ans string) error { return checkBatchAnswer(ans, ids) }, answered); err != nil {
			return err
		}
	}
	return sessionShutdown(stdin, stdout, batches+1, assertions, answered)
}

// sdkInitLine is the initialize an SDK sends first, as JSON-RPC id 0.
const sdkInitLine = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"sdk_name":"attest-python","sdk_version":"0.1.0","protocol_version":1,"required_capabilities":["layers_1_4"],"preferred_encoding":"json"}}`

// sessionCall sends line and reads its answer, which must be the result of
// JSON-RPC id, checked by check when not nil.
func sessionCall(stdin io.Writer, stdout *bufio.Reader, line string, id int, check func(string) error, answered *atomic.Int64) error {
	if _, err := io.WriteString(stdin, line+"\n"); err != nil {
		return err
	}
	ans, err := stdout.ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the answer to %d: %v", id, err)
	}
	if !strings.HasPrefix(ans, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":`, id)) {
		return fmt.Errorf("answer to %d: %s", id, ans)
	}
	if check != nil {
		if err := check(ans); err != nil {
			return fmt.Errorf("answer to %d: %v", id, err)
		}
	}
	answered.Add(1)
	return nil
}

// sessionShutdown sends shutdown as JSON-RPC id and checks that its answer
// counts every assertion of the session (spec §"shutdown"), then closes
// stdin.
func sessionShutdown(stdin io.WriteCloser, stdout *bufio.Reader, id, assertions int, answered *atomic.Int64) error {
	countAll := func(ans string) error {
		var a struct {
			Result struct {
				Evaluated int `json:"assertions_evaluated"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(ans), &a); err != nil {
			return fmt.Errorf("answer is not JSON: %v: %s", err, ans)
		}
		if a.Result.Evaluated != assertions {
			return fmt.Errorf("assertions_evaluated %d, want %d: %s", a.Result.Evaluated, assertions, ans)
		}
		return nil
	}
	if err := sessionCall(stdin, stdout, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"shutdown","params":{}}`, id), id, countAll, answered); err != nil {
		return err
	}
	return stdin.Close()
}

// pipelinedSession is the SDK's side when its client pipelines (the
// id-matching reader of sdk-compat.md, many calls at once): initialize,
// then the batches written in bursts of half the advertised
// max_concurrent_requests (spec §1.5) at a time with at most that many
// unanswered, so that the engine finds many lines buffered and answers
// them in groups (rpc/group.go). Answers may come out of order across
// groups (spec §1.5): each is matched by its id, answered once, and must
// carry its own assertion ids in order. Once all are answered, shutdown.
func pipelinedSession(stdin io.WriteCloser, stdout *bufio.Reader, batch sessionBatch, batches int, answered *atomic.Int64) error {
	var inFlight int
	advertised := func(ans string) error {
		var a struct {
			Result struct {
				Max int `json:"max_concurrent_requests"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(ans), &a); err != nil || a.Result.Max < 2 {
			return fmt.Errorf("no max_concurrent_requests of at least 2 to pipeline (%v): %s", err, ans)
		}
		inFlight = a.Result.Max
		return nil
	}
	if err := sessionCall(stdin, stdout, sdkInitLine, 0, advertised, answered); err != nil {
		return err
	}
	var (
		mu    sync.Mutex
		want  = make(map[int][]string, inFlight) // the assertion ids of the batches in flight
		slots = make(chan struct{}, inFlight)
		stop  = make(chan struct{})
		wrote = make(chan error, 1)
	)
	defer close(stop)
	go func() {
		w := bufio.NewWriterSize(stdin, 1<<20)
		burst := inFlight / 2
		for i := 1; i <= batches; {
			for k := 0; k < burst && i <= batches; k, i = k+1, i+1 {
				select {
				case slots <- struct{}{}:
				case <-stop:
					wrote <- nil
					return
				}
				line, ids := batch(i)
				mu.Lock()
				want[i] = ids
				mu.Unlock()
				w.WriteString(line)
				w.WriteByte('\n')
			}
			if err := w.Flush(); err != nil {
				wrote <- err
				return
			}
		}
		wrote <- nil
	}()
	assertions := 0
	for n := 0; n < batches; n++ {
		ans, err := stdout.ReadString('\n')
		if err != nil {
			return fmt.Errorf("reading answer %d of %d: %v", n+1, batches, err)
		}
		rest, ok := strings.CutPrefix(ans, `{"jsonrpc":"2.0","id":`)
		end := strings.IndexByte(rest, ',')
		if !ok || end < 0 || !strings.HasPrefix(rest[end:], `,"result":`) {
			return fmt.Errorf("answer %d is not a result: %s", n+1, ans)
		}
		id, err := strconv.Atoi(rest[:end])
		if err != nil {
			return fmt.Errorf("answer %d has id %s: %s", n+1, rest[:end], ans)
		}
		mu.Lock()
		ids, ok := want[id]
		delete(want, id)
		mu.Unlock()
		if !ok {
			return fmt.Errorf("answer to %d, which is not in flight (answered twice, or never asked): %s", id, ans)
		}
		if err := checkBatchAnswer(ans, ids); err != nil {
			return fmt.Errorf("answer to %d: %v", id, err)
		}
		assertions += len(ids)
		answered.Add(1)
		<-slots
	}
	if err := <-wrote; err != nil {
		return err
	}
	return sessionShutdown(stdin, stdout, batches+1, assertions, answered)
}
