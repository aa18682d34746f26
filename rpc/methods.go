// methods.go: the JSON-RPC envelope (JSON-RPC 2.0 §4–5) and the session methods (spec §2.1, §2.3).

package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"attest-engine/trace"
)

// request is a decoded, well-formed JSON-RPC request.
type request struct {
	id           any // string, json.Number or nil, echoed exactly
	notification bool
	method       string
	params       map[string]any
	size         int // bytes of the request line
	// traceText is params.trace's exact text (a slice of the line) when
	// the read loop's parse saw it: the idempotency record keys on it.
	traceText []byte
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
	// Fast path: an evaluate_batch on a ready session is decoded on its own
	// worker, so that decoding runs in parallel with reading. The session
	// gate is still taken here, in arrival order; the worker answers every
	// problem it finds in the line exactly as the path below would.
	if method, ok := sniffMethod(line); ok && method == "evaluate_batch" && s.getState() == stateReady {
		c := &call{line: line, fn: (*Server).evaluate}
		if s.inline(line) {
			// Decoded here, then evaluated here unless it holds a layer
			// 5–6 assertion: those wait on providers, and a request sent
			// behind one must not wait with it (spec §1.5).
			c.req, c.perr = s.parseBatch(line)
			if c.perr != nil || !costly(c.req) {
				s.spawn(c, true)
				return
			}
			// The request keeps the trace's text, a slice of the reader's
			// buffer: a worker gets its own copy.
			c.req.traceText = bytes.Clone(c.req.traceText)
			c.line = nil
			s.spawn(c, false)
			return
		}
		// The reader reuses its buffer: a small line is copied, a large one
		// is handed over whole.
		if len(line) <= inlineMaxBytes || s.lines == nil {
			c.line = append([]byte(nil), line...)
		} else {
			// A line gathered in chunks (framing.go) left as much garbage
			// as itself: collected now, while little else is live, the
			// decode reuses that memory instead of growing the heap by it
			// (peak RSS for a first 10 MB trace: 4.4× its size, not 4.9×).
			if s.lines.joined && s.largeInFlight.Load() == 0 {
				runtime.GC()
			}
			s.lines.detach()
		}
		s.spawn(c, false)
		return
	}
	var perr *Error
	if req, perr = parse(line); perr != nil {
		s.replyError(req, perr)
		return
	}
	s.dispatch(req)
}

// inlineMaxBytes bounds the requests the read loop may answer itself.
const inlineMaxBytes = 64 << 10

// inline reports whether the read loop should decode a request itself, and
// evaluate it unless it is costly: when nothing else is in flight and
// nothing more has arrived (an SDK sending one request at a time), the
// hand-off to another thread costs more than a small batch. When more input
// is already buffered the SDK is pipelining, and the line goes to a worker
// undecoded, so that all cores decode and evaluate (answering inline there
// would serialize the whole stream on the read loop). Only small lines
// qualify.
func (s *Server) inline(line []byte) bool {
	return len(line) <= inlineMaxBytes && len(s.sem) == 0 &&
		(s.lines == nil || s.lines.r.Buffered() == 0)
}

// parse decodes a request line and checks its envelope. On error the request
// (when one could be read) tells where the answer goes.
func parse(line []byte) (*request, *Error) { return parseReusing(line, nil) }

func parseReusing(line []byte, r *trace.Reuse) (*request, *Error) {
	v, err := trace.DecodeReusing(line, r)
	var dupErr *Error
	if err != nil {
		// Declared here, not above: errors.As takes its address, which
		// would put it on the heap for every line.
		var dup *trace.DuplicateKeyError
		if !errors.As(err, &dup) {
			return parseFailed(line, err)
		}
		dupErr = newError(codeInvalidRequest, "Each object member name may appear only once.", "invalid request: %s", dup.Error())
	}
	req, rerr := envelope(v)
	if rerr == nil {
		rerr = dupErr
	}
	if rerr != nil {
		if req != nil && req.notification {
			req.notification = false // an invalid request is answered, with id null (JSON-RPC 2.0 §5)
		}
		return req, rerr
	}
	req.size = len(line)
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
	var se *trace.SyntaxError
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

// envelope checks the JSON-RPC 2.0 request object. On error it still returns
// what it learned of the id, so the error can carry it.
func envelope(v any) (*request, *Error) {
	obj, ok := v.(map[string]any)
	if !ok {
		if _, isArray := v.([]any); isArray {
			return nil, newError(codeInvalidRequest, "Send one JSON-RPC request object per line; batch arrays are not part of the Attest protocol (spec §1.2).", "invalid request: batch arrays are not supported")
		}
		return nil, newError(codeInvalidRequest, "Send a JSON-RPC 2.0 request object.", "invalid request: not a JSON object")
	}
	req := &request{}
	id, hasID := obj["id"]
	switch id.(type) {
	case string, json.Number, nil:
		req.id, req.notification = id, !hasID
	default:
		return req, newError(codeInvalidRequest, "The id must be a string, a number or null.", "invalid request: id must be a string or a number")
	}
	if obj["jsonrpc"] != "2.0" {
		return req, newError(codeInvalidRequest, `Set "jsonrpc": "2.0" in every request.`, `invalid request: jsonrpc must be "2.0"`)
	}
	method, ok := obj["method"].(string)
	if !ok {
		return req, newError(codeInvalidRequest, "Name the method as a string.", "invalid request: method must be a string")
	}
	req.method = method
	switch p := obj["params"].(type) {
	case map[string]any:
		req.params = p
	case nil:
		if _, present := obj["params"]; present {
			return req, newError(codeInvalidParams, "Send params as a JSON object.", "invalid params: params must be an object")
		}
		req.params = map[string]any{}
	default:
		return req, newError(codeInvalidParams, "Send params as a JSON object.", "invalid params: params must be an object")
	}
	return req, nil
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
			s.spawn(&call{req: req, fn: (*Server).evaluate}, false)
		}
	case "submit_plugin_result":
		if s.gate(req) {
			s.submitPluginResult(req)
		}
	case "validate_trace_tree":
		if s.gate(req) {
			s.spawn(&call{req: req, fn: (*Server).validateTraceTree}, false)
		}
	case "mock_tool_call", "simulation_ledger", "generate_user_message": // capability simulation (simulate.go)
		if s.gate(req) {
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
	s.log.Info("session initialized", "sdk_name", p["sdk_name"], "sdk_version", p["sdk_version"], "protocol_version", version, "compatible", len(missing) == 0)

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
