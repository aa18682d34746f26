// simulate.go: the simulation methods (capability simulation): mock_tool_call, simulation_ledger,
// generate_user_message, and the per-scenario repeats of evaluate_batch.

package rpc

import (
	"context"
	"errors"
	"fmt"
	"time"

	"attest-engine/assert"
	"attest-engine/clip"
	"attest-engine/jsonschema"
	"attest-engine/provider"
	"attest-engine/simulate"
	"attest-engine/tape"
)

// maxTables bounds the parsed rule tables kept by their text (simulate.Tables).
const maxTables = 64

// simState is a session's simulation state.
type simState struct {
	order   simOrder // mock calls and ledger reads per scenario in read order (simorder.go)
	sim     *simulate.Simulator
	repeats *simulate.Repeats
	tables  *simulate.Tables
}

func newSimState() *simState {
	return &simState{sim: simulate.New(), repeats: simulate.NewRepeats(), tables: simulate.NewTables(maxTables)}
}

// simWire maps the simulate package's errors to wire errors (docs/simulation.md: which error is what).
func simWire(err error) error {
	var (
		re *simulate.RuleError
		nm *simulate.NoMatchError
		ce *simulate.CallError
		le *simulate.LimitError
		se *simulate.ScriptError
	)
	switch {
	case errors.As(err, &re):
		return newError(codeAssertionError, "Fix the rule named in the message; mocks and faults are described in the engine's docs/simulation.md.", "invalid simulation rule: %s", re.Error())
	case errors.As(err, &nm):
		return newError(codeAssertionError, "Add a mock rule for this call, or widen the tool pattern or match of the nearest rule.", "%s", nm.Error())
	case errors.As(err, &ce):
		return newError(codeInvalidParams, "See the engine's docs/simulation.md for the method's params.", "invalid params: %s", ce.Error())
	case errors.As(err, &se):
		return newError(codeInvalidParams, "A scripted conversation answers one turn per scripted entry.", "invalid params: %s", se.Error())
	case errors.As(err, &le):
		return sessionError(le.Error(), "Start a new engine process for more scenarios, or use fewer scenario ids.")
	}
	return err
}

// isSimulation reports whether method is one of the simulation methods (capability simulation).
func isSimulation(method string) bool {
	return method == "mock_tool_call" || method == "simulation_ledger" || method == "generate_user_message"
}

// loneSurrogate refuses a simulation request whose params hold a lone surrogate escape at path: decoded it
// would be U+FFFD, so "\ud800", "\udc00" and "\ufffd" would share one occurrence count, one decision and
// one cache key. RFC 8785 canonicalises I-JSON, which forbids them (RFC 7493 §2.1), as the engine already
// refuses invalid UTF-8 bytes.
func loneSurrogate(path string) *Error {
	return newError(codeInvalidParams, "Simulation canonicalises its params as RFC 8785 (I-JSON) text: a \\ud800–\\udfff escape must be half of a surrogate pair; send the text as valid Unicode.",
		"invalid params: %s: a lone surrogate escape (not valid Unicode)", clip.String(path, 256))
}

// simTable returns the rules of a call: the request's mocks and faults where it sends them, else the
// config's.
func (s *Server) simTable(p map[string]any) (*simulate.Table, error) {
	mocks, hasM := p["mocks"]
	faults, hasF := p["faults"]
	return s.simState.tables.For(s.cfg.Simulation.Table, mocks, hasM, faults, hasF)
}

// mockToolCall answers {rule_id, occurrence, attempt, fault, result | error, latency_ms} (docs/simulation.md)
// . With "sleep": true the latency is really waited, within the request's deadline
// (--eval-timeout); by default it is only reported.
func (s *Server) mockToolCall(ctx context.Context, req *request) ([]byte, error) {
	sleep, isBool := req.params["sleep"].(bool)
	if v, ok := req.params["sleep"]; ok && v != nil && !isBool {
		return nil, simWire(&simulate.CallError{Field: "sleep", Msg: "must be a boolean"})
	}
	if err := req.turn.wait(ctx); err != nil {
		return nil, err
	}
	a, err := s.mockCall(req.params)
	req.turn.finish() // the decision is made: the next call of the scenario may go while this one sleeps
	if err != nil {
		return nil, simWire(err)
	}
	if sleep && a.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(a.LatencyMS) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return resultLine(req, a.Wire())
}

func (s *Server) mockCall(p map[string]any) (*simulate.Answer, error) {
	c := simulate.Call{}
	var ok bool
	if c.ScenarioID, ok = p["scenario_id"].(string); !ok {
		return nil, &simulate.CallError{Field: "scenario_id", Msg: "required string"}
	}
	if c.Tool, ok = p["tool"].(string); !ok {
		return nil, &simulate.CallError{Field: "tool", Msg: "required string"}
	}
	seed, ok := p["seed"]
	if !ok {
		return nil, &simulate.CallError{Field: "seed", Msg: "required: a string or an integer"}
	}
	var err error
	if c.Seed, err = simulate.SeedText(seed); err != nil {
		return nil, err
	}
	c.Args = p["args"]
	if v, ok := p["attempt"]; ok && v != nil {
		n, isInt := jsonschema.Integer(v)
		if !isInt || n < 1 || n > simulate.MaxAttempt {
			return nil, &simulate.CallError{Field: "attempt", Msg: "must be an integer from 1 to 1000000"}
		}
		c.Attempt = int(n)
	}
	t, err := s.simTable(p)
	if err != nil {
		return nil, err
	}
	return s.simState.sim.Call(t, c)
}

// simulationLedger answers {scenario_id, entries, total, next_offset}: the scenario's decisions in order
// from offset (default 0), at most limit of them (default: as many as fit) and at most
// simulate.MaxLedgerPage bytes of entries, with next_offset the offset of the next page, or null when this
// page ends the ledger (none for a scenario never called: entries [], total 0).
func (s *Server) simulationLedger(ctx context.Context, req *request) ([]byte, error) {
	id, ok := req.params["scenario_id"].(string)
	if !ok {
		return nil, simWire(&simulate.CallError{Field: "scenario_id", Msg: "required string"})
	}
	offset, limit := 0, simulate.MaxCalls
	for _, f := range []struct {
		name string
		to   *int
		min  int64
	}{{"offset", &offset, 0}, {"limit", &limit, 1}} {
		if v, ok := req.params[f.name]; ok && v != nil {
			n, isInt := jsonschema.Integer(v)
			if !isInt || n < f.min || n > simulate.MaxCalls {
				return nil, simWire(&simulate.CallError{Field: f.name, Msg: fmt.Sprintf("must be an integer from %d to %d", f.min, simulate.MaxCalls)})
			}
			*f.to = int(n)
		}
	}
	if err := req.turn.wait(ctx); err != nil {
		return nil, err
	}
	entries, total, _ := s.simState.sim.LedgerPage(id, offset, limit, simulate.MaxLedgerPage)
	req.turn.finish()
	list := make([]any, len(entries))
	for i := range entries {
		list[i] = entries[i].Wire()
	}
	var next any
	if end := offset + len(entries); end < total {
		next = end
	}
	return resultLine(req, map[string]any{"scenario_id": id, "entries": list, "total": total, "next_offset": next})
}

// resultLine is a success answer whose result is v in canonical JSON: answers built from the same
// decisions are byte-identical in every process.
func resultLine(req *request, v any) ([]byte, error) {
	c, err := simulate.Canonical(v)
	if err != nil {
		return nil, err
	}
	b := appendHead(make([]byte, 0, len(c)+64), req.id)
	b = append(b, `,"result":`...)
	b = append(b, c...)
	return append(b, "}\n"...), nil
}

// generateUserMessage answers {message, stop, stop_reason, cost, tokens}: a scripted turn, or the reply
// of the simulated-user model (the judge's endpoint; simulation.model overrides its model) to the
// persona's system prompt and the role-flipped history, from cache_dir when recorded there
// (provider.Client.UserTurn).
func (s *Server) generateUserMessage(ctx context.Context, req *request) ([]byte, error) {
	r, err := simulate.ParseUserRequest(req.params)
	if err != nil {
		return nil, simWire(err)
	}
	var rep simulate.Reply
	var cost float64
	var tokens int64
	if r.Scripted() {
		if rep, err = r.ScriptedReply(); err != nil {
			return nil, simWire(err)
		}
	} else {
		var prov *provider.Client
		if s.engine != nil {
			prov = s.engine.Provider()
		}
		if prov == nil || (!prov.Judge().Usable() && !s.cfg.Offline) {
			why := "no provider is configured."
			if prov != nil {
				why = prov.JudgeWhy()
			}
			return nil, newError(codeInvalidParams, "Set a judge provider (OPENAI_API_KEY or ANTHROPIC_API_KEY, or judge.* in --config; simulation.model picks the model), or send scripted turns.",
				"generate_user_message needs a simulated-user model or a script: %s", why)
		}
		ep := prov.Judge()
		model := s.cfg.Simulation.Model
		if model == "" {
			model = ep.Model()
		}
		msgs := r.Messages()
		pm := make([]provider.Message, len(msgs))
		for i, m := range msgs {
			pm[i] = provider.Message{Role: m.Role, Content: m.Content}
		}
		text, u, err := prov.UserTurn(ctx, r.CacheKey(ep.Kind(), model), model, r.System(), pm, r.Temperature, r.MaxTokens)
		if err != nil {
			return nil, err
		}
		rep = r.Finish(text)
		// The stop tokens removed may have stood inside an echoed key,
		// which the reply's scrub then did not see whole.
		rep.Message = ep.ScrubReply(rep.Message)
		cost = prov.Cost(model, u)
		tokens = u.In + u.Out
	}
	var reason any
	if rep.Stop {
		reason = rep.StopReason
	}
	return resultLine(req, map[string]any{"message": rep.Message, "stop": rep.Stop, "stop_reason": reason, "cost": cost, "tokens": tokens})
}

// scenarioParams reads evaluate_batch's additive scenario_id and repeat (params' members, Missing when
// absent).
func scenarioParams(v, r tape.Value) (id string, repeat int64, hasRepeat bool, err error) {
	if k := v.Kind(); k == tape.Missing || k == tape.Null {
		if k := r.Kind(); k != tape.Missing && k != tape.Null {
			return "", 0, false, newError(codeInvalidParams, "repeat numbers a run of a scenario: send scenario_id with it.", "invalid params: field 'repeat' needs 'scenario_id'")
		}
		return "", 0, false, nil
	}
	if id = v.Str(); v.Kind() != tape.String || id == "" || len(id) > simulate.MaxIDText {
		return "", 0, false, newError(codeInvalidParams, "scenario_id names the scenario a batch is a run of.", "invalid params: field 'scenario_id' must be a string of 1 to 256 bytes")
	}
	if k := r.Kind(); k != tape.Missing && k != tape.Null {
		n, isInt := jsonschema.Integer(r.Any())
		if !isInt || n < 0 {
			return "", 0, false, newError(codeInvalidParams, "repeat is the run's number: an integer from 0.", "invalid params: field 'repeat' must be a non-negative integer")
		}
		repeat, hasRepeat = n, true
	}
	return id, repeat, hasRepeat, nil
}

// recordRun counts a batch answered with results as (part of) a run of its scenario: the run fails when
// any of its results is a hard failure.
func (s *Server) recordRun(id string, repeat int64, hasRepeat bool, results []assert.Result) error {
	passed := true
	for _, r := range results {
		if r.Status == assert.HardFail {
			passed = false
		}
	}
	return simWire(s.simState.repeats.Record(id, repeat, hasRepeat, passed))
}

// Scenarios summarises the session's scenario runs (evaluate_batch scenario_id and repeat), sorted by
// scenario id, for the --report file.
func (s *Server) Scenarios() []simulate.ScenarioSummary { return s.simState.repeats.Summaries() }

// appendScenarios adds the shutdown answer's additive scenarios member, when a batch carried a scenario.
func (s *Server) appendScenarios(b []byte) []byte {
	sums := s.simState.repeats.Summaries()
	if len(sums) == 0 {
		return b
	}
	m := make(map[string]any, len(sums))
	for _, sum := range sums {
		m[sum.ScenarioID] = sum.Wire()
	}
	c, _ := simulate.Canonical(m)
	b = append(b, `,"scenarios":`...)
	return append(b, c...)
}
