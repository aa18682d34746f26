// methods.go: the JSON-RPC envelope (JSON-RPC 2.0 §4–5) and the session methods (spec §2.1, §2.3).

package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"attest-engine/assert"
	"attest-engine/tape"
	"attest-engine/trace"
)

// request is a decoded, well-formed JSON-RPC request.
type request struct {
	id           any // string, json.Number or nil, echoed exactly
	notification bool
	method       string
	// params of every method but evaluate_batch and validate_trace_tree,
	// materialised: their handlers read maps.
	params map[string]any
	size   int // bytes of the request line
	// batchParams holds evaluate_batch's params, and validate_trace_tree's
	// trace, read from the line's tape (batchline.go); doc is that tape,
	// which reads the line in place. Both
	// stay until the answer is built (release, in run): the line must not
	// change meanwhile, so a request whose line is the read loop's buffer
	// is answered before the next line is read, and any other owns its
	// line (handleLine, own).
	batchParams
	doc *tape.Doc
	// turn is a simulation request's place in its scenario's order, taken
	// in the read loop (simorder.go); nil for every other request.
	turn *simTurn
}

// handleLine decodes one line and answers or dispatches it.
func (s *Server) handleLine(line []byte, size int, tooLong bool) {
	var req *request // once decoded
	defer func() {
		// The read loop must survive anything: a fault here is answered
		// like one in a worker (3001) and the engine keeps serving.
		if p := recover(); p != nil {
			s.answerPanic(req, "recovered panic in the read loop", p)
		}
	}()
	if tooLong {
		s.answerTooLong(line, size)
		return
	}
	if isBlank(line) {
		return // NDJSON readers skip blank lines; answering would be an unasked-for line
	}
	// Fast path: an evaluate_batch or validate_trace_tree on a ready
	// session is decoded where it is answered: by the read loop when the
	// SDK waits on it alone, else in a group with the lines buffered
	// behind it (group.go), or on a worker of its own when it is large.
	// The session gate is still taken here, in arrival order; whoever
	// decodes the line answers every problem it finds in it exactly as the
	// path below would.
	if fn := tapeMethod(line); fn != nil && s.getState() == stateReady {
		inline := s.inline(line)
		if !inline && len(line) <= inlineMaxBytes && s.lines != nil {
			s.gather(line, fn)
			return
		}
		c := &call{line: line, fn: fn}
		if inline {
			// Decoded here, then evaluated here unless it holds a layer
			// 5–6 assertion: those wait on providers, and a request sent
			// behind one must not wait with it (spec §1.5).
			c.req, c.perr = s.parseBatch(line)
			if c.perr != nil || !costly(c.req) {
				s.spawn(c, true)
				return
			}
			// The request reads the reader's buffer, which the next line
			// overwrites: a worker decodes its own copy again (a costly
			// batch waits on providers far longer than a decode takes).
			c.req.release()
			c.req, c.line = nil, bytes.Clone(line)
			s.spawn(c, false)
			return
		}
		c.line = s.own(line)
		s.spawn(c, false)
		return
	}
	var perr *Error
	req, perr = parse(line)
	defer req.release() // dispatch hands no request reading this line to a worker
	if perr != nil {
		s.replyError(req, perr)
		return
	}
	s.dispatch(req)
}

// tapeMethod is the work of a request line whose method, sniffed, reads
// its params from the line's tape on a worker (evaluate_batch,
// estimate_batch, validate_trace_tree); nil for any other line.
func tapeMethod(line []byte) handler {
	method, ok := compactMethod(line)
	if !ok {
		method, ok = sniffMethod(line)
	}
	switch {
	case !ok:
		return nil
	case string(method) == "evaluate_batch":
		return (*Server).evaluate
	case string(method) == "validate_trace_tree":
		return (*Server).validateTraceTree
	case string(method) == "estimate_batch":
		return (*Server).estimate
	}
	return nil
}

// compactMethod is sniffMethod for a line in the layout SDKs write:
// {"jsonrpc":"2.0","id":ID,"method":"NAME", with ID a number or a string
// without escapes. Found so, NAME is the line's first top-level method
// member, as sniffMethod would find it, at a tenth of its cost (~10 ns
// against ~100); any other layout reports false, for sniffMethod to read.
func compactMethod(line []byte) (method []byte, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"jsonrpc":"2.0","id":`))
	if !ok || len(rest) == 0 {
		return nil, false
	}
	i := 0
	if rest[0] == '"' {
		end := bytes.IndexByte(rest[1:], '"')
		if end < 0 || bytes.IndexByte(rest[1:1+end], '\\') >= 0 {
			return nil, false
		}
		i = end + 2
	} else {
		if rest[0] == '-' {
			i++
		}
		digits := i
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == digits {
			return nil, false
		}
	}
	rest, ok = bytes.CutPrefix(rest[i:], []byte(`,"method":"`))
	if !ok {
		return nil, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 {
		return nil, false
	}
	return rest[:end], true
}

// own returns line, the read loop's, as the caller's to keep: the reader
// reuses its buffer, so a small line is copied and a large one handed over
// whole.
func (s *Server) own(line []byte) []byte {
	if len(line) <= inlineMaxBytes || s.lines == nil {
		return append([]byte(nil), line...)
	}
	// A line gathered in chunks (framing.go) left as much garbage as
	// itself: collected now, while little else is live, the decode reuses
	// that memory instead of growing the heap by it (peak RSS for a first
	// 10 MB trace: 4.4× its size, not 4.9×).
	if s.lines.joined && s.largeInFlight.Load() == 0 {
		runtime.GC()
	}
	s.lines.detach()
	return line
}

// inlineMaxBytes bounds the requests the read loop may answer itself.
const inlineMaxBytes = 64 << 10

// inline reports whether the read loop should decode a request itself, and
// evaluate it unless it is costly: when nothing else is in flight and
// nothing more has arrived (an SDK sending one request at a time), the
// hand-off to another thread costs more than a small batch. When more input
// is already buffered the SDK is pipelining, and the line is answered in a
// group with the lines behind it, shared with idle helpers so that all
// cores decode and evaluate (group.go; answering each inline there would
// serialize the whole stream on the read loop). Only small lines qualify.
func (s *Server) inline(line []byte) bool {
	return len(line) <= inlineMaxBytes && len(s.sem) == 0 &&
		(s.lines == nil || s.lines.r.Buffered() == 0)
}

// parse reads a request line and checks its envelope. On error the request
// (when one could be read) tells where the answer goes. evaluate_batch's
// and validate_trace_tree's params are read from the line's tape, every
// part afresh (parseBatch takes specs the engine knows instead); every
// other method's params are materialised and the tape released at once.
func parse(line []byte) (*request, *Error) { return parseWith(line, nil) }

// parseWith is parse, with known (when not nil) supplying and remembering
// assertion specs by their text (assert/spectext.go).
func parseWith(line []byte, known *assert.Engine) (*request, *Error) {
	doc, err := tape.Parse(line)
	var dupErr *Error
	if err != nil {
		// Declared here, not above: errors.As takes its address, which
		// would put it on the heap for every line.
		var dup *tape.DuplicateKeyError
		if !errors.As(err, &dup) {
			return parseFailed(line, err)
		}
		dupErr = newError(codeInvalidRequest, "Each object member name may appear only once.", "invalid request: %s", dup.Error())
	}
	req, params, rerr := envelope(doc.Root())
	if rerr == nil {
		rerr = dupErr
	}
	if rerr != nil {
		doc.Release()
		if req != nil && req.notification {
			req.notification = false // an invalid request is answered, with id null (JSON-RPC 2.0 §5)
		}
		return req, rerr
	}
	req.size = len(line)
	switch req.method {
	case "evaluate_batch", "estimate_batch":
		req.hold(doc)
		req.readBatch(params, known)
		return req, nil
	case "validate_trace_tree":
		req.hold(doc)
		req.paramsTape, req.trace = params, params.Get("trace")
		return req, nil
	}
	if isSimulation(req.method) {
		if path, bad := tape.FindLoneSurrogate(params); bad {
			doc.Release()
			return req, loneSurrogate(path)
		}
	}
	if params.Exists() {
		req.params = params.Any().(map[string]any)
	} else {
		req.params = map[string]any{}
	}
	doc.Release()
	return req, nil
}

// parseFailed answers a line that is not one JSON value: -32700, with the
// request's id whenever the line's top-level members reveal it (JSON-RPC
// 2.0 §5 asks for null only when the id cannot be detected). SDKs write
// the id before params, so a trace nested too deep, a NaN, a truncated or
// trailing line still gets an answer the SDK can match; an SDK matching by
// id would otherwise wait forever.
func parseFailed(line []byte, err error) (*request, *Error) {
	detail := "Send one compact JSON object per line (spec §1.2)."
	var se *tape.SyntaxError
	if errors.As(err, &se) && se.NonFinite {
		detail = "JSON has no NaN or Infinity (RFC 8259 §6), but Python's json.dumps writes them by default (allow_nan=True): replace such values with null or a string, or encode with allow_nan=False to find them (spec §1.2)."
	}
	var req *request
	if id, method, found := recoverID(line); found {
		req = &request{id: id, method: method}
	}
	return req, newError(codeParseError, detail, "parse error: %s", err.Error())
}

func isBlank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// envelope checks the JSON-RPC 2.0 request object and returns its params
// (Missing when absent). On error it still returns what it learned of the
// id, so the error can carry it. A member named twice (which the caller
// refuses) counts by its last occurrence, as in encoding/json, so that the
// checks come in the same order either way.
func envelope(v tape.Value) (*request, tape.Value, *Error) {
	switch v.Kind() {
	case tape.Object:
	case tape.Array:
		return nil, tape.Value{}, newError(codeInvalidRequest, "Send one JSON-RPC request object per line; batch arrays are not part of the Attest protocol (spec §1.2).", "invalid request: batch arrays are not supported")
	default:
		return nil, tape.Value{}, newError(codeInvalidRequest, "Send a JSON-RPC 2.0 request object.", "invalid request: not a JSON object")
	}
	var id, jsonrpc, method, params tape.Value
	for k, m := range v.Members() {
		switch string(k.Bytes()) {
		case "id":
			id = m
		case "jsonrpc":
			jsonrpc = m
		case "method":
			method = m
		case "params":
			params = m
		}
	}
	req := &request{}
	switch id.Kind() {
	case tape.String, tape.Number, tape.Null, tape.Missing:
		req.id, req.notification = id.Any(), !id.Exists()
	default:
		return req, params, newError(codeInvalidRequest, "The id must be a string, a number or null.", "invalid request: id must be a string or a number")
	}
	if !jsonrpc.Is("2.0") {
		return req, params, newError(codeInvalidRequest, `Set "jsonrpc": "2.0" in every request.`, `invalid request: jsonrpc must be "2.0"`)
	}
	if method.Kind() != tape.String {
		return req, params, newError(codeInvalidRequest, "Name the method as a string.", "invalid request: method must be a string")
	}
	req.method = method.Str()
	switch params.Kind() {
	case tape.Object, tape.Missing:
		return req, params, nil
	}
	return req, params, newError(codeInvalidParams, "Send params as a JSON object.", "invalid params: params must be an object")
}

// refuseAfterShutdown answers a request that arrived once the session was
// shutting down.
func (s *Server) refuseAfterShutdown(req *request) {
	s.replyError(req, sessionError(req.method+" called after shutdown",
		"The engine is shutting down and accepts no more requests. Start a new engine process."))
}

// dispatch routes a request. Session methods run here, in arrival order.
func (s *Server) dispatch(req *request) {
	if s.getState() == stateShutdown {
		s.refuseAfterShutdown(req)
		return
	}
	switch req.method {
	case "initialize":
		s.initialize(req)
	case "shutdown":
		s.shutdown(req)
	case "evaluate_batch":
		if s.gate(req) {
			// A line the fast path in handleLine did not take: req reads
			// the read loop's buffer, so a worker decodes its own copy.
			s.spawn(&call{line: s.own(req.doc.Source()), fn: (*Server).evaluate}, false)
		}
	case "submit_plugin_result":
		if s.gate(req) {
			s.submitPluginResult(req)
		}
	case "estimate_batch": // additive: a session's dry run (estimate.go)
		if s.gate(req) {
			s.spawn(&call{line: s.own(req.doc.Source()), fn: (*Server).estimate}, false)
		}
	case "validate_trace_tree":
		if s.gate(req) {
			// As evaluate_batch above.
			s.spawn(&call{line: s.own(req.doc.Source()), fn: (*Server).validateTraceTree}, false)
		}
	case "mock_tool_call", "simulation_ledger", "generate_user_message": // capability simulation (simulate.go)
		if s.gate(req) {
			if id, ok := req.params["scenario_id"].(string); ok && req.method != "generate_user_message" {
				req.turn = s.simState.order.take(id)
			}
			fn := map[string]func(*Server, context.Context, *request) ([]byte, error){
				"mock_tool_call": (*Server).mockToolCall, "simulation_ledger": (*Server).simulationLedger,
				"generate_user_message": (*Server).generateUserMessage,
			}[req.method]
			s.spawn(&call{req: req, fn: fn}, false)
		}
	case "query_drift": // additive (../shared/sdk-compat.md): drift.go
		if s.gate(req) {
			s.queryDrift(req)
		}
	default:
		s.replyError(req, newError(codeMethodNotFound, "Check the method name; see the engine's capabilities in the initialize response (spec §6).", "method not found: %s", req.method))
	}
}

// initialize negotiates the session (spec §2.1).
func (s *Server) initialize(req *request) {
	p := params(req.params)
	if s.getState() != stateNew {
		s.replyError(req, sessionError("initialize called twice",
			"A session is already established on this engine process; start a new process for a new session."))
		return
	}
	var errs []string
	for _, f := range []string{"sdk_name", "sdk_version", "preferred_encoding"} {
		if _, err := p.str(f); err != nil {
			errs = append(errs, err.Error())
		}
	}
	version, verr := p.integer("protocol_version")
	if verr != nil {
		errs = append(errs, verr.Error())
	}
	required, rerr := p.strs("required_capabilities")
	if rerr != nil {
		errs = append(errs, rerr.Error())
	}
	// Additive param "notifications": the notifications the client can
	// read; only "drift_alert" exists (drift.go). Absent: none is sent.
	var notify []string
	if v, ok := p["notifications"]; ok && v != nil {
		var nerr error
		if notify, nerr = p.strs("notifications"); nerr != nil {
			errs = append(errs, nerr.Error())
		}
	}
	if len(errs) > 0 {
		s.replyError(req, newError(codeInvalidParams, "initialize takes sdk_name, sdk_version, protocol_version, required_capabilities and preferred_encoding (spec §2.1).",
			"invalid params: %s", strings.Join(errs, "; ")))
		return
	}
	// Spec §6, backward compatibility window: current and current - 1.
	if version != ProtocolVersion && version != ProtocolVersion-1 {
		detail := "Upgrade the engine binary or downgrade the SDK protocol_version"
		if version < ProtocolVersion-1 {
			detail = fmt.Sprintf("Protocol version %d is no longer supported: upgrade the SDK to one that speaks protocol_version %d (Attest protocol v%d, §6 Backward Compatibility Window).", version, ProtocolVersion, ProtocolVersion)
		}
		s.replyError(req, sessionError(fmt.Sprintf("protocol version %d not supported; engine supports versions %d and %d", version, ProtocolVersion-1, ProtocolVersion), detail))
		return
	}
	caps := s.capabilities()
	missing := []string{}
	for _, c := range required {
		if !slices.Contains(caps, c) && !slices.Contains(missing, c) {
			missing = append(missing, c)
		}
	}
	s.mu.Lock()
	s.sessions++
	s.missing = missing
	s.notifyDrift = s.history != nil && slices.Contains(notify, notifyDriftAlert)
	s.state = stateReady
	if len(missing) > 0 {
		s.state = stateIncompatible
	}
	s.mu.Unlock()

	b := appendHead(make([]byte, 0, 256), req.id)
	b = append(b, `,"result":{"engine_version":`...)
	b = appendString(b, s.version)
	b = append(b, `,"protocol_version":`...)
	b = strconv.AppendInt(b, version, 10)
	b = append(b, `,"capabilities":`...)
	b = appendStrings(b, caps)
	b = append(b, `,"missing":`...)
	b = appendStrings(b, missing)
	b = append(b, `,"compatible":`...)
	b = strconv.AppendBool(b, len(missing) == 0)
	b = append(b, `,"encoding":"json","max_concurrent_requests":`...)
	b = strconv.AppendInt(b, MaxInFlight, 10)
	b = append(b, `,"max_trace_size_bytes":`...)
	b = strconv.AppendInt(b, trace.MaxTraceBytes, 10)
	b = append(b, `,"max_steps_per_trace":`...)
	b = strconv.AppendInt(b, trace.MaxSteps, 10)
	if notify != nil {
		// Only to a client that asked: the notifications it will get.
		on := []string{}
		if s.history != nil && slices.Contains(notify, notifyDriftAlert) {
			on = append(on, notifyDriftAlert)
		}
		b = append(b, `,"notifications":`...)
		b = appendStrings(b, on)
	}
	b = append(b, "}}\n"...)
	s.reply(req, b)
	if s.initialized != nil {
		// On the read loop: the next line waits for it.
		s.initialized()
	}
	// Logged once answered: the SDK waits on the answer, and the first log
	// line starts the log's writer (package logsink).
	s.log.Info("session initialized", "sdk_name", p["sdk_name"], "sdk_version", p["sdk_version"], "protocol_version", version, "compatible", len(missing) == 0)
}

// capabilities lists what this build really supports (spec §2.1 table).
func (s *Server) capabilities() []string {
	if s.engine == nil {
		return []string{}
	}
	// The rpc-level ones: trace trees and validate_trace_tree (tree.go),
	// submit_plugin_result (plugins.go), per-suite budgets (budget.go).
	// "trace_tree" is the earlier engine's name for multi_agent
	// (../shared/sdk-compat.md): additive, spec §6 item 3.
	// "continuous_eval" (spec §2.1, "Production trace ingestion and
	// sampling pipelines"): the binary's watch command (package watch).
	// "simulation" (simulate.go) needs no provider key: mocks, faults and
	// scripted users are computed here.
	return append(s.engine.Capabilities(), "soft_failures", "multi_agent", "trace_tree", "plugins", "continuous_eval", "simulation")
}

// shutdown drains in-flight work, answers, and ends serving (spec §2.3).
func (s *Server) shutdown(req *request) {
	s.mu.Lock()
	s.state, s.shutdownAsked = stateShutdown, true
	s.mu.Unlock()
	s.log.Info("shutdown requested: draining in-flight requests")
	go func() {
		s.drain()
		s.mu.Lock()
		sessions := s.sessions
		s.mu.Unlock()
		b := appendHead(make([]byte, 0, 96), req.id)
		b = append(b, `,"result":{"sessions_completed":`...)
		b = strconv.AppendInt(b, int64(sessions), 10)
		b = append(b, `,"assertions_evaluated":`...)
		b = strconv.AppendInt(b, s.assertions.Load(), 10)
		b = append(b, `,"soft_failures":`...) // additive: per-suite counts (budget.go)
		b = s.budgets.appendCounts(b)
		b = s.appendScenarios(b) // additive: per-scenario pass^k (simulate.go)
		b = append(b, "}}\n"...)
		s.reply(req, b)
		close(s.stopped)
	}()
}

// gate reports whether an evaluation method may run now; when it may not,
// it answers SESSION_ERROR (spec §5). The fast path in handleLine takes the
// same gate as state == stateReady.
func (s *Server) gate(req *request) bool {
	s.mu.Lock()
	var e *Error
	switch s.state {
	case stateNew:
		// Spec §5 example, to the letter for evaluate_batch.
		e = sessionError(req.method+" called before initialize",
			"Call initialize first to establish a session before sending "+req.method+" requests.")
	case stateIncompatible:
		e = sessionError(req.method+" called on an incompatible session: missing capabilities "+strings.Join(s.missing, ", "),
			"initialize answered compatible: false. Upgrade the engine or drop the missing capabilities from required_capabilities.")
	}
	s.mu.Unlock()
	if e != nil {
		s.replyError(req, e)
	}
	return e == nil
}
