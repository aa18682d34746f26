// engine.go: the Engine and batch evaluation in layer order.

package assert

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"attest-engine/jsonschema"
	"attest-engine/lru"
	"attest-engine/provider"
	"attest-engine/tape"
)

// layer of each assertion type: cheap layers are evaluated first (spec §4).
type compiler struct {
	layer   int
	compile func(e *Engine, s spec) (check, error)
}

// costlyLayer is the first of the layers that wait on providers (5–6):
// they run concurrently, after the cheap ones, and rpc hands a batch that
// holds one to a worker (Costly).
const costlyLayer = 5

// compilers is the table of assertion types the engine knows.
var compilers = map[string]compiler{
	"schema":     {1, compileSchema},
	"constraint": {2, compileConstraint},
	"trace":      {3, compileTrace},
	"trace_tree": {3, compileTraceTree},
	"content":    {4, compileContent},
	"embedding":  {5, compileEmbedding},
	"llm_judge":  {6, compileJudge},
}

// Cache sizes: every cache is bounded.
const (
	compiledCacheSize = 4096
	resultCacheSize   = 16384
	costlyConcurrency = 8 // provider calls in flight per batch
)

// Engine evaluates batches. It is safe for concurrent use.
type Engine struct {
	cfg      Config
	compiled *lru.Cache[specKey, compiledEntry]  // type + spec hash → compiled check
	results  *lru.Cache[string, idempotentEntry] // request_id → earlier result
	// thresholds learns "threshold": "dynamic" (dynamic.go); nil refuses it
	thresholds Thresholds
	specs      specTexts // recent specs by their exact text (spectext.go)
	prov       *provider.Client
	certs      certificates // judge certificates read by require_calibration (calibration.go)
}

// specKey finds a compiled check; the entry's spec confirms the match.
type specKey struct {
	typ  string
	hash uint64
}

type compiledEntry struct {
	spec map[string]any
	chk  check
}

// idempotentEntry is a result recorded under a request_id, with what it was
// computed from: a later request with the same id reuses it only when the
// assertion (type, spec, agent scope) is the same document and the trace
// hashes the same (spec §2.2).
type idempotentEntry struct {
	typ, agent string
	spec       map[string]any
	traceHash  uint64
	result     Result
}

func (ent idempotentEntry) matches(a Assertion, traceHash uint64) bool {
	return ent.typ == a.Type && ent.agent == a.AgentID && ent.traceHash == traceHash && sameJSON(ent.spec, a.Spec)
}

// New returns an Engine for cfg. With SchemaDirs set, the only files a
// schema's $ref can reach are under those directories (offline $ref).
func New(cfg Config) (*Engine, error) {
	if len(cfg.SchemaDirs) > 0 {
		for prefix, dir := range cfg.SchemaDirs {
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return nil, fmt.Errorf("config schema_dirs[%q]: %q is not a readable directory", prefix, dir)
			}
		}
		cfg.SchemaLoader = jsonschema.DirLoader(cfg.SchemaDirs)
	}
	p, err := provider.New(cfg.Settings)
	if err != nil {
		return nil, err
	}
	e := &Engine{
		cfg:      cfg,
		compiled: lru.New[specKey, compiledEntry](compiledCacheSize),
		results:  lru.New[string, idempotentEntry](resultCacheSize),
		prov:     p,
	}
	e.specs.init()
	return e, nil
}

// Capabilities lists the spec §2.1 capabilities this engine really supports.
func (e *Engine) Capabilities() []string {
	// Layers 1–4 are deterministic and always available (spec §2.1).
	caps := []string{"layers_1_4"}
	if e.prov.Usable() {
		// "embedding" and "llm_judge" are the earlier engine's names for
		// the same layers (../shared/sdk-compat.md), advertised too so that a
		// client requiring them is compatible; spec §6 item 3: "New
		// capability identifiers — Additive."
		caps = append(caps, "layers_5_6", "embedding", "llm_judge")
	}
	// The trace checks of package trajectory (trajectory.go): deterministic,
	// always available; spec §2.1 "Capabilities are additive".
	return append(caps, "trajectory")
}

// Provider is the engine's provider client (the simulated user's chat model is the judge's endpoint).
func (e *Engine) Provider() *provider.Client { return e.prov }

// Warnings are settings from the environment that the engine could not use
// and so turned off (provider.Client.Warnings), for the caller to log at start.
func (e *Engine) Warnings() []string { return e.prov.Warnings() }

// prepared is one assertion of a batch, ready to run.
type prepared struct {
	idx   int // its place in the request, and in the results
	a     Assertion
	layer int
	soft  bool
	chk   check
	known bool // a spec known by its text (spectext.go): its check is kept with it
}

// EvaluateValue runs assertions against a validated trace, read in place
// from its JSON text, and returns one result per assertion, in request
// order. It fails the whole batch with *Error when an assertion cannot be
// evaluated, before any assertion is evaluated.
// The idempotency record keys on that exact text, hashed at memory speed: a
// request re-sent as it was is answered from the record, and one re-sent
// with other white space or member order is evaluated afresh, to the same
// result.
func (e *Engine) EvaluateValue(ctx context.Context, tr tape.Value, as []Assertion) ([]Result, error) {
	if err := checkBatch(as); err != nil {
		return nil, err
	}
	results := make([]Result, len(as))

	// Idempotency (spec §2.2): a request_id seen before with the same
	// assertion and trace returns the recorded result. Hits are looked up
	// first, so that what is answered from the record is never compiled:
	// its spec is the very document that compiled when it was recorded.
	var traceHash uint64
	hashed := false
	// A batch of up to 8 to evaluate keeps them on the stack.
	var small [8]prepared
	pending := small[:0]
	if len(as) > len(small) {
		pending = nil // made at the first miss: a batch answered whole allocates none
	}
	for i, a := range as {
		if a.RequestID != "" {
			if !hashed {
				traceHash, hashed = traceKey(tr.Text()), true
			}
			if ent, ok := e.results.Get(a.RequestID); ok && ent.matches(a, traceHash) {
				// The recorded result, under this request's assertion_id:
				// an SDK files answers by it (the id is not part of what
				// the record matches on).
				results[i] = ent.result
				results[i].AssertionID = a.ID
				results[i].Replayed = true
				continue
			}
		}
		if pending == nil {
			pending = make([]prepared, 0, len(as)-i)
		}
		pending = append(pending, prepared{idx: i, a: a})
	}
	if len(pending) == 0 {
		return results, nil
	}
	if err := e.prepare(pending); err != nil {
		return nil, err
	}
	in := newInput(tr)

	// Layer order, cheap first; the order of results stays the request's.
	slices.SortStableFunc(pending, func(a, b prepared) int { return a.layer - b.layer })
	var costly []prepared
	hardFailed := ""
	// One clock reading between two cheap assertions ends the one and
	// starts the next: they run back to back. The same reading tells
	// whether the deadline has passed (ctx.Err, which Run asks again at the
	// end, would read the clock once more per assertion). The readings
	// after the first are offsets from it (time.Since of a time that has a
	// monotonic reading reads only that clock: ~20 ns here, against ~40 ns
	// for time.Now, which reads the wall clock too).
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	base := time.Now()
	limit := time.Duration(math.MaxInt64)
	if deadline, ok := ctx.Deadline(); ok {
		limit = deadline.Sub(base)
	}
	var at time.Duration // since base
	for _, p := range pending {
		if p.layer >= costlyLayer {
			costly = append(costly, p)
			continue
		}
		if at >= limit {
			return nil, context.DeadlineExceeded
		}
		r, end, err := e.runFrom(ctx, in, p, base, at)
		if err != nil {
			return nil, err
		}
		at = end
		if r.Status == HardFail && hardFailed == "" {
			hardFailed = p.a.ID
		}
		results[p.idx] = r
	}
	if err := e.runCostly(ctx, in, costly, hardFailed, results); err != nil {
		return nil, err
	}

	for _, p := range pending {
		if p.a.RequestID != "" && !results[p.idx].Skipped {
			e.results.Put(p.a.RequestID, idempotentEntry{typ: p.a.Type, agent: p.a.AgentID, spec: p.a.Spec, traceHash: traceHash, result: results[p.idx]})
		}
	}
	return results, nil
}

// runCostly evaluates layers 5–6 concurrently, bounded per batch.
func (e *Engine) runCostly(ctx context.Context, in *input, costly []prepared, hardFailed string, results []Result) error {
	if len(costly) == 0 {
		return nil
	}
	if hardFailed != "" && e.cfg.SkipAfterHardFail {
		for _, p := range costly {
			results[p.idx] = Result{
				AssertionID: p.a.ID, Status: SoftFail, Score: 0, RequestID: p.a.RequestID, Skipped: true,
				Explanation: fmt.Sprintf("Skipped: not evaluated because assertion '%s' hard-failed in a cheaper layer and skip_after_hard_fail is on.", hardFailed),
			}
		}
		return nil
	}
	// The checks below read the trace's tape from several goroutines.
	in.root.Share()
	// A context of its own name: were the parameter reassigned, the
	// goroutines' capture would move it to the heap on every batch, costly
	// assertions or not.
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, costlyConcurrency)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for _, p := range costly {
		select {
		case sem <- struct{}{}:
		case <-cctx.Done():
		}
		if cctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(p prepared) {
			defer func() { <-sem; wg.Done() }()
			r, _, err := e.runFrom(cctx, in, p, time.Now(), 0)
			if err != nil {
				once.Do(func() { firstErr = err; cancel() })
				return
			}
			results[p.idx] = r
		}(p)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return cctx.Err()
}

// runFrom evaluates one assertion, started at from after base, and returns
// its result and when it ended, after base.
func (e *Engine) runFrom(ctx context.Context, in *input, p prepared, base time.Time, from time.Duration) (Result, time.Duration, error) {
	if p.a.AgentID != "" { // agent scoping (scope.go)
		scoped, failed := scope(in, p.a.AgentID)
		if scoped == nil {
			return scopedFailure(p, failed), time.Since(base), nil
		}
		in = scoped
	}
	chk, learned, err := e.learn(p)
	if err != nil {
		return Result{}, from, err
	}
	o, err := chk.eval(ctx, in)
	if err != nil {
		var be *provider.BudgetError
		if errors.As(err, &be) {
			// budget_usd: the call was never started. Reported as not
			// evaluated, as skip_after_hard_fail reports what it skips.
			end := time.Since(base)
			return Result{AssertionID: p.a.ID, Status: SoftFail, Score: 0, RequestID: p.a.RequestID, Skipped: true,
				DurationMS: (end - from).Milliseconds(), Explanation: "Skipped: " + be.Error() + "."}, end, nil
		}
		var se *specError
		if errors.As(err, &se) {
			return Result{}, from, &Error{AssertionID: p.a.ID, Message: se.msg, Detail: se.detail}
		}
		return Result{}, from, err
	}
	end := time.Since(base)
	r := Result{
		AssertionID: p.a.ID,
		Status:      Pass,
		Score:       o.score,
		Explanation: o.explanation,
		Cost:        o.cost,
		DurationMS:  (end - from).Milliseconds(),
		RequestID:   p.a.RequestID,
		Judge:       o.judge,
		FailedStep:  o.failed,
	}
	if learned != "" { // "… is below threshold 0.66 (dynamic threshold 0.66 = …)."
		r.Explanation = strings.TrimSuffix(r.Explanation, ".") + " (" + learned + ")."
	}
	if !o.pass {
		r.Status = HardFail
		if (p.soft || o.soft) && !o.hard {
			r.Status = SoftFail
		}
	}
	return r, end, nil
}

// checkBatch refuses a batch whose assertion ids repeat or whose types are
// unknown, before anything is evaluated or answered from the record.
func checkBatch(as []Assertion) error {
	var seen map[string]struct{} // for a large batch; a small one compares ids pairwise
	if len(as) > 16 {
		seen = make(map[string]struct{}, len(as))
	}
	for i, a := range as {
		dup := false
		if seen != nil {
			_, dup = seen[a.ID]
			seen[a.ID] = struct{}{}
		} else {
			for _, b := range as[:i] {
				dup = dup || b.ID == a.ID
			}
		}
		if dup {
			return &Error{AssertionID: a.ID, Message: "duplicate assertion_id in batch",
				Detail: "Every assertion_id must be unique within one evaluate_batch request."}
		}
		if _, ok := compilers[a.Type]; !ok {
			return &Error{AssertionID: a.ID, Message: fmt.Sprintf("unknown assertion type '%s'", a.Type),
				Detail: "Supported types: schema, constraint, trace, content, embedding, llm_judge, trace_tree. Gate newer types on the engine's capabilities."}
		}
	}
	return nil
}

// prepare compiles the assertion of each entry (checkBatch has passed), or
// finds it compiled, and fills in the rest of the entry.
func (e *Engine) prepare(pending []prepared) error {
	// A spec sent before with the same text is the same value, and finds
	// its check by identity (spectext.go): the whole batch's, at once.
	e.specs.knownChecks(pending)
	for i := range pending {
		a := pending[i].a
		c := compilers[a.Type]
		sp := spec(a.Spec)
		soft, err := sp.boolean("soft", false)
		if err != nil {
			return wrapSpecErr(a.ID, err)
		}
		chk := pending[i].chk
		if chk == nil {
			var err error
			if chk, err = e.compile(a.Type, c, sp); err != nil {
				return wrapSpecErr(a.ID, err)
			}
			if pending[i].known {
				e.specs.addCheck(a.Spec, a.Type, chk)
			}
		}
		pending[i].layer, pending[i].soft, pending[i].chk = c.layer, soft, chk
	}
	return nil
}

// compile returns the check for an assertion of type typ with spec sp.
// Compile once (issue: compile schemas, paths and regexes once): equal specs
// share one compiled check, found by hash and confirmed by sameJSON.
func (e *Engine) compile(typ string, c compiler, sp spec) (check, error) {
	key := specKey{typ, hashValue(map[string]any(sp))}
	if ent, ok := e.compiled.Get(key); ok && sameJSON(ent.spec, map[string]any(sp)) {
		return ent.chk, nil
	}
	chk, err := c.compile(e, sp)
	if err != nil {
		return nil, err
	}
	e.compiled.Put(key, compiledEntry{spec: sp, chk: chk})
	return chk, nil
}

func wrapSpecErr(id string, err error) error {
	var se *specError
	if errors.As(err, &se) {
		return &Error{AssertionID: id, Message: se.msg, Detail: se.detail}
	}
	return &Error{AssertionID: id, Message: err.Error(), Detail: "Fix the assertion spec."}
}

// canonical encodes v with sorted object keys, so equal specs share a key.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

// Costly reports whether assertions of type typ are evaluated in layers 5–6
// (embedding, llm_judge): they wait on providers.
func Costly(typ string) bool {
	c, ok := compilers[typ]
	return ok && c.layer >= costlyLayer
}
