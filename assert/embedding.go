// embedding.go: layer 5, embedding similarity (spec §4 "Layer 5 — Embedding Similarity").

package assert

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"attest-engine/jsonpath"
	"attest-engine/provider"
)

// Spec §4 layer 5: "threshold ... Default: 0.8. Range: 0.0–1.0."
const defaultEmbeddingThreshold = 0.8

// embeddingCheck is a compiled embedding assertion.
//
// Score and verdict: the score is the cosine similarity clamped to [0, 1]. A
// negative cosine (vectors pointing away from each other, possible with
// provider models) scores 0 and always fails, and the explanation gives the
// raw value. Similarity equal to the threshold passes ("minimum ... to
// pass"). A target identical to the reference scores 1 with no provider
// call. Text with nothing to embed (empty or blank) has the zero vector,
// whose similarity to any other text is 0.
// Cost is the call's usage × the model's price; a cache hit costs 0.
type embeddingCheck struct {
	p         *provider.Client
	tgt       target
	reference string
	threshold float64
	dynamic   bool // "threshold": "dynamic": threshold is learned per assertion (dynamic.go)
	model     string
	lexical   bool
	refVec    []float32          // the lexical model's vector of reference, computed once
	refKey    string             // a provider's: the cache key of reference ("" if blank), computed once
	client    *provider.Endpoint // nil for the lexical model
}

func compileEmbedding(e *Engine, s spec) (check, error) {
	tgt, err := parseTarget(s, "target")
	if err != nil {
		return nil, err
	}
	ref, err := s.str("reference", true)
	if err != nil {
		return nil, err
	}
	thr, dynamic, err := e.readThreshold(s, defaultEmbeddingThreshold)
	if err != nil {
		return nil, err
	}
	model, err := s.str("model", false)
	if err != nil {
		return nil, err
	}
	c := &embeddingCheck{p: e.prov, tgt: tgt, reference: ref, threshold: thr, dynamic: dynamic}
	p := e.prov
	def, why := p.DefaultEmbeddingModel()
	switch {
	case model == "" && def == "":
		// Never a silent fallback to the lexical model: say what to set.
		return nil, specErrorf(why, "no embedding provider configured")
	case model == "":
		model = def
	}
	c.model = model
	if model == provider.LexicalModel {
		c.lexical, c.refVec = true, lexicalVector(ref)
		return c, nil
	}
	if !p.Embedder().Usable() {
		return nil, specErrorf(p.Embedder().Why()+" Or set \"model\": \"lexical\" for the offline lexical model.",
			"embedding model '%s' needs an OpenAI-compatible provider, and none is configured", model)
	}
	c.client = p.Embedder()
	c.refKey = c.key(ref)
	return c, nil
}

// readThreshold reads a numeric "threshold" in 0..1, default def; the string
// "dynamic" is read before, by Engine.readThreshold (dynamic.go).
func readThreshold(s spec, def float64) (float64, error) {
	thr, ok, err := s.num("threshold")
	if err != nil {
		return 0, err
	}
	if !ok {
		return def, nil
	}
	if thr < 0 || thr > 1 {
		return 0, specErrorf("Set 'threshold' to a number between 0 and 1.", "spec field 'threshold' must be between 0 and 1, got %s", fmtNum(thr))
	}
	return thr, nil
}

func (c *embeddingCheck) eval(ctx context.Context, in *input) (outcome, error) {
	ms := c.tgt.resolve(in, nil)
	if len(ms) == 0 {
		return outcome{explanation: c.tgt.notFound()}, nil
	}
	text := matchText(in, ms)
	var (
		sim  float64
		cost float64
	)
	switch {
	case text == c.reference:
		sim = 1 // whatever the vectors: no provider call to pay for
	case c.lexical:
		sim, _ = cosine(lexicalVector(text), c.refVec)
	default:
		vecs, cst, err := c.vectors(ctx, text)
		if err != nil {
			return outcome{}, err
		}
		if sim, err = cosine(vecs[0], vecs[1]); err != nil {
			return outcome{}, err
		}
		cost = cst
	}
	label := "Cosine similarity"
	if c.lexical {
		label = "Lexical (not semantic) similarity"
	}
	expl := fmt.Sprintf("%s %s between %s and reference text %s.", label, fmtScore(sim, c.threshold), c.tgt.expr, versus(sim, c.threshold))
	if sim < 0 {
		expl += " A negative cosine scores 0."
	}
	return outcome{pass: sim >= c.threshold, score: min(max(sim, 0), 1), explanation: expl, cost: cost}, nil
}

// vectors embeds the target's text and the reference, which differ,
// through the cache: cached ones not at all, one that another assertion is
// embedding right now by waiting for it, the rest in one request. A blank
// text has the zero vector, nil. Cost counts only this call's own request.
func (c *embeddingCheck) vectors(ctx context.Context, text string) ([2][]float32, float64, error) {
	texts := [2]string{text, c.reference}
	keys := [2]string{c.key(text), c.refKey}
	var out [2][]float32
	cost := 0.0
	// Pass 1 claims what nobody is computing; pass 2 (after waiting) computes
	// whatever the other callers failed to cache.
	for pass := 1; pass <= 2; pass++ {
		var (
			owned    []string
			ownedAt  []int
			releases []func()
			waits    []<-chan struct{}
		)
		for i, k := range keys {
			if k == "" || out[i] != nil {
				continue
			}
			if out[i] = c.cached(k); out[i] != nil {
				continue
			}
			if pass == 1 {
				release, wait := c.p.Claim(k)
				if wait != nil {
					waits = append(waits, wait)
					continue
				}
				// Another caller may have cached it and released its claim
				// between the look above and this claim: look again.
				if out[i] = c.cached(k); out[i] != nil {
					release()
					continue
				}
				releases = append(releases, release)
			}
			owned, ownedAt = append(owned, texts[i]), append(ownedAt, i)
		}
		if len(owned) > 0 {
			vecs, u, err := c.client.Embed(ctx, c.model, owned)
			if err == nil {
				for j, i := range ownedAt {
					c.p.Store(keys[i], provider.EncodeVector(vecs[j]))
					out[i] = vecs[j]
				}
				cost += c.p.Cost(c.model, u)
			}
			// Release before waiting on others: two callers never wait on each other.
			for _, r := range releases {
				r()
			}
			if err != nil {
				return out, 0, err
			}
		}
		if len(waits) == 0 {
			break
		}
		for _, w := range waits {
			select {
			case <-w:
			case <-ctx.Done():
				return out, 0, ctx.Err()
			}
		}
	}
	return out, cost, nil
}

// key is the cache key of text's vector; "" for a blank text, which has
// the zero vector and is never sent.
func (c *embeddingCheck) key(text string) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	ep := c.p.Embedder()
	return provider.CacheKey("embedding", ep.Kind(), ep.Base(), c.model, text)
}

// cached is text's vector from the cache under key, or nil.
func (c *embeddingCheck) cached(key string) []float32 {
	b, ok := c.p.Cached(key)
	if !ok {
		return nil
	}
	v, _ := provider.DecodeVector(b)
	return v
}

// cosine is the cosine similarity of a and b; a zero vector is similar to
// nothing (eval scores an identical text 1 before asking).
func cosine(a, b []float32) (float64, error) {
	if len(a) == 0 || len(b) == 0 {
		return 0, nil // blank text: the zero vector
	}
	if len(a) != len(b) {
		return 0, &provider.Error{
			Message: fmt.Sprintf("embedding provider returned vectors of different dimensions (%d and %d) for one model", len(a), len(b)),
			Detail:  "The model behind this name changed since its vectors were cached: empty the cache_dir directory, or name the model exactly.",
		}
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0, nil
	}
	return min(max(dot/math.Sqrt(na*nb), -1), 1), nil
}

// matchText is the text a target selects: a string as is, any other value
// as compact JSON; several matches as a JSON array of them.
func matchText(in *input, ms []jsonpath.ValueMatch) string {
	if len(ms) == 1 {
		return in.text(ms[0])
	}
	vals := make([]any, len(ms))
	for i, m := range ms {
		vals[i] = m.Any()
	}
	return jsonText(vals)
}

// versus words a score against a threshold as the spec's explanations do:
// "exceeds threshold 0.82" / "is below threshold 0.82".
func versus(v, thr float64) string {
	switch {
	case v > thr:
		return "exceeds threshold " + fmtNum(thr)
	case v == thr:
		return "meets threshold " + fmtNum(thr)
	}
	return "is below threshold " + fmtNum(thr)
}

// fmtScore prints v with two decimals, or more when two would make it look
// equal to the threshold it differs from (0.7996 against 0.8).
func fmtScore(v, thr float64) string {
	side := func(x float64) int {
		switch {
		case x > thr:
			return 1
		case x < thr:
			return -1
		}
		return 0
	}
	for prec := 2; prec <= 6; prec++ {
		p := math.Pow(10, float64(prec))
		r := math.Round(v*p) / p
		if side(r) == side(v) {
			return fmtNum(r)
		}
	}
	return fmtNum(v)
}

func fmtNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
