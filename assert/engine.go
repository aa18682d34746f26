// engine.go: the Engine, its configuration, and batch evaluation in layer order.

package assert

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"attest-engine/jsonschema"
)

// Config is the assertion layers' part of the engine configuration file.
type Config struct {
	// SkipAfterHardFail skips the costly layers (5 and 6) of a batch once a
	// cheaper layer hard-failed (spec §4: "engine decides based on
	// configuration"). Skipped assertions still get a result saying so.
	SkipAfterHardFail bool `json:"skip_after_hard_fail"`

	// SchemaLoader resolves $ref URIs outside a schema (config schema_dirs).
	SchemaLoader jsonschema.Loader `json:"-"`

	ProviderSettings
}

// layer of each assertion type: cheap layers are evaluated first (spec §4).
type compiler struct {
	layer   int
	compile func(e *Engine, s spec) (check, error)
}

// compilers is the table of assertion types the engine knows.
var compilers = map[string]compiler{
	"schema":     {1, compileSchema},
	"constraint": {2, compileConstraint},
	"trace":      {3, compileTrace},
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
	compiled *lru[string, check]           // type + canonical spec → compiled check
	results  *lru[string, idempotentEntry] // request_id → earlier result
	prov     *providers
}

type idempotentEntry struct {
	fingerprint [32]byte // of the assertion and the trace
	result      Result
}

// New returns an Engine for cfg.
func New(cfg Config) (*Engine, error) {
	p, err := newProviders(cfg.ProviderSettings)
	if err != nil {
		return nil, err
	}
	return &Engine{
		cfg:      cfg,
		compiled: newLRU[string, check](compiledCacheSize),
		results:  newLRU[string, idempotentEntry](resultCacheSize),
		prov:     p,
	}, nil
}

// Capabilities lists the spec §2.1 capabilities this engine really supports.
func (e *Engine) Capabilities() []string {
	// Layers 1–4 are deterministic and always available (spec §2.1).
	caps := []string{"layers_1_4"}
	if e.prov.usable() {
		caps = append(caps, "layers_5_6")
	}
	return caps
}

// prepared is one assertion of a batch, ready to run.
type prepared struct {
	idx   int
	a     Assertion
	layer int
	soft  bool
	chk   check
	key   string // compile-cache key, also the assertion's fingerprint input
}

// Evaluate runs assertions against a validated trace and returns one result
// per assertion, in request order. It fails the whole batch with *Error when
// an assertion cannot be evaluated, before any assertion is evaluated.
func (e *Engine) Evaluate(ctx context.Context, tr map[string]any, as []Assertion) ([]Result, error) {
	batch, err := e.prepare(as)
	if err != nil {
		return nil, err
	}
	in := newInput(tr)
	results := make([]Result, len(as))

	// Idempotency (spec §2.2): a request_id seen before with the same
	// assertion and trace returns the recorded result.
	var traceSum *[32]byte
	pending := batch[:0:0]
	for _, p := range batch {
		if p.a.RequestID != "" {
			if traceSum == nil {
				s := fingerprint(tr)
				traceSum = &s
			}
			if ent, ok := e.results.get(p.a.RequestID); ok && ent.fingerprint == p.fingerprint(*traceSum) {
				results[p.idx] = ent.result
				continue
			}
		}
		pending = append(pending, p)
	}

	// Layer order, cheap first; the order of results stays the request's.
	sort.SliceStable(pending, func(i, j int) bool { return pending[i].layer < pending[j].layer })
	var costly []prepared
	hardFailed := ""
	for _, p := range pending {
		if p.layer >= 5 {
			costly = append(costly, p)
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := e.run(ctx, in, p)
		if err != nil {
			return nil, err
		}
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
			e.results.put(p.a.RequestID, idempotentEntry{p.fingerprint(*traceSum), results[p.idx]})
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
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, costlyConcurrency)
	var wg sync.WaitGroup
	var once sync.Once
	var firstErr error
	for _, p := range costly {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func(p prepared) {
			defer func() { <-sem; wg.Done() }()
			r, err := e.run(ctx, in, p)
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
	return ctx.Err()
}

// run evaluates one assertion and times it.
func (e *Engine) run(ctx context.Context, in *input, p prepared) (Result, error) {
	start := time.Now()
	o, err := p.chk.eval(ctx, in)
	if err != nil {
		var se *specError
		if errors.As(err, &se) {
			return Result{}, &Error{AssertionID: p.a.ID, Message: se.msg, Detail: se.detail}
		}
		return Result{}, err
	}
	r := Result{
		AssertionID: p.a.ID,
		Status:      Pass,
		Score:       o.score,
		Explanation: o.explanation,
		Cost:        o.cost,
		DurationMS:  time.Since(start).Milliseconds(),
		RequestID:   p.a.RequestID,
	}
	if !o.pass {
		r.Status = HardFail
		if p.soft && !o.hard {
			r.Status = SoftFail
		}
	}
	return r, nil
}

// prepare checks every assertion and compiles it (or takes it from the cache).
func (e *Engine) prepare(as []Assertion) ([]prepared, error) {
	seen := make(map[string]struct{}, len(as))
	out := make([]prepared, len(as))
	for i, a := range as {
		if _, dup := seen[a.ID]; dup {
			return nil, &Error{AssertionID: a.ID, Message: "duplicate assertion_id in batch",
				Detail: "Every assertion_id must be unique within one evaluate_batch request."}
		}
		seen[a.ID] = struct{}{}
		c, ok := compilers[a.Type]
		if !ok {
			return nil, &Error{AssertionID: a.ID, Message: fmt.Sprintf("unknown assertion type '%s'", a.Type),
				Detail: "Supported types: schema, constraint, trace, content, embedding, llm_judge. Gate newer types on the engine's capabilities."}
		}
		sp := spec(a.Spec)
		soft, err := sp.boolean("soft", false)
		if err != nil {
			return nil, wrapSpecErr(a.ID, err)
		}
		key := a.Type + "\x00" + canonical(a.Spec)
		chk, ok := e.compiled.get(key)
		if !ok {
			if chk, err = c.compile(e, sp); err != nil {
				return nil, wrapSpecErr(a.ID, err)
			}
			e.compiled.put(key, chk)
		}
		out[i] = prepared{idx: i, a: a, layer: c.layer, soft: soft, chk: chk, key: key}
	}
	return out, nil
}

func wrapSpecErr(id string, err error) error {
	var se *specError
	if errors.As(err, &se) {
		return &Error{AssertionID: id, Message: se.msg, Detail: se.detail}
	}
	return &Error{AssertionID: id, Message: err.Error(), Detail: "Fix the assertion spec."}
}

func (p prepared) fingerprint(traceSum [32]byte) [32]byte {
	h := sha256.New()
	h.Write(traceSum[:])
	h.Write([]byte(p.key))
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// canonical encodes v with sorted object keys, so equal specs share a key.
func canonical(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func fingerprint(v any) [32]byte { return sha256.Sum256([]byte(canonical(v))) }
