// judge.go: layer 6, LLM-as-judge (spec §4 "Layer 6 — LLM-as-Judge"): compile, ask, parse the verdict, cache.

package assert

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"attest-engine/clip"
	"attest-engine/provider"
	"attest-engine/trace"
)

// Spec §4 layer 6: "threshold ... Default: 0.7", "target ... Default: output.message".
const (
	defaultJudgeThreshold = 0.7
	defaultJudgeTarget    = "output.message"
)

// judgeAttempts: a reply that does not parse is asked for once more, then
// it is an error, never a pass.
const judgeAttempts = 2

// Bounds of verdict parsing: replies are short; a long or adversarial one
// must not make parsing slow.
const (
	maxVerdictScan    = 32 << 10 // bytes of the reply searched for the JSON object
	maxVerdictObjects = 16       // '{' positions tried
	maxReasonLen      = 1000
)

// judgeCheck is a compiled llm_judge assertion.
//
// Cost is the usage × price of every call made (a retried reply costs
// twice); a verdict from the cache costs 0.
type judgeCheck struct {
	p         *provider.Client
	client    *provider.Endpoint
	tgt       target
	rubric    string // built-in rubric name, or free text; "" for a custom prompt
	text      string // what the judge is told the rubric is
	prompt    string
	criteria  string
	threshold float64
	dynamic   bool // "threshold": "dynamic" (dynamic.go)
	model     string
	cons      consistency // "consistency" (consistency.go)
	compare   *target     // "compare": the second answer of a pairwise judge (pairwise.go)
	// calib is "require_calibration" (or the config's); nil when not
	// required. certs reads certificates; hash is decides().Hash().
	calib *CalibrationRequirement
	certs *certificates
	hash  string
}

func compileJudge(e *Engine, s spec) (check, error) {
	c := &judgeCheck{p: e.prov}
	var err error
	if c.rubric, err = s.str("rubric", false); err != nil {
		return nil, err
	}
	if c.prompt, err = s.str("prompt", false); err != nil {
		return nil, err
	}
	if c.criteria, err = s.str("criteria", false); err != nil {
		return nil, err
	}
	switch {
	case c.rubric != "" && c.prompt != "":
		return nil, specErrorf("Set either 'rubric' (a built-in rubric) or 'prompt' (a custom judge prompt), not both.",
			"spec fields 'rubric' and 'prompt' are mutually exclusive")
	case c.rubric == "" && c.prompt == "" && c.criteria != "":
		c.rubric = "default" // the SDKs' passes_judge(criteria) with its default rubric
	case c.rubric == "" && c.prompt == "":
		return nil, specErrorf("Set 'rubric' to one of "+rubricNames()+", or 'prompt' to a custom judge prompt using {{input}} and {{output}}.",
			"missing required spec field 'rubric' or 'prompt'")
	}
	if c.rubric != "" {
		c.rubric = strings.TrimSpace(c.rubric)
		if c.text, err = rubricText(c.rubric); err != nil {
			return nil, err
		}
	}
	ts := s
	if !s.has("target") {
		ts = spec{"target": defaultJudgeTarget}
	}
	if c.tgt, err = parseTarget(ts, "target"); err != nil {
		return nil, err
	}
	if c.threshold, c.dynamic, err = e.readThreshold(s, defaultJudgeThreshold); err != nil {
		return nil, err
	}
	if c.model, err = s.str("model", false); err != nil {
		return nil, err
	}
	if c.cons, err = readConsistency(s); err != nil {
		return nil, err
	}
	if c.compare, err = readCompare(s); err != nil {
		return nil, err
	}
	ep := e.prov.Judge()
	if !ep.Usable() {
		return nil, specErrorf(e.prov.JudgeWhy(), "no judge provider configured")
	}
	if c.model == "" {
		c.model = ep.Model()
	}
	c.client = ep
	if c.calib, err = readRequirement(s, e.cfg.RequireCalibration); err != nil {
		return nil, err
	}
	if c.calib != nil {
		c.certs, c.hash = &e.certs, c.decides().Hash()
	}
	return c, nil
}

// verdict is a judge's answer, as cached.
type verdict struct {
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

func (c *judgeCheck) eval(ctx context.Context, in *input) (outcome, error) {
	ms := c.tgt.resolve(in, nil)
	if len(ms) == 0 {
		return outcome{explanation: c.tgt.notFound()}, nil
	}
	if c.compare != nil {
		o, err := c.evalPair(ctx, in, matchText(in, ms))
		if err != nil {
			return o, err
		}
		return c.gate(o), nil
	}
	user := c.message(in, matchText(in, ms))
	cost := 0.0
	t, err := c.cons.decide(func(i int) (sample, error) {
		v, spent, err := c.ask(ctx, judgeSystem, user, i)
		cost += spent
		return sample{score: v.Score, reason: v.Reason, pass: v.Score >= c.threshold}, err
	})
	if err != nil {
		return outcome{}, err
	}
	return c.gate(c.outcome(&t, cost)), nil
}

// sampleKey is the cache key of sample i of a judge request. Sample 0 has
// the key a single verdict always had, so a cache recorded without
// consistency still serves it; each later sample has its own index in the
// key, so a replay draws the same samples and reaches the same verdict.
func (c *judgeCheck) sampleKey(system, user string, i int) string {
	if i == 0 {
		return provider.CacheKey("judge", c.client.Kind(), c.client.Base(), c.model, system, user)
	}
	return provider.CacheKey("judge", c.client.Kind(), c.client.Base(), c.model, system, user, "sample", strconv.Itoa(i))
}

// ask returns sample i of the judge's verdict on user, from the cache or
// from the provider (a reply that does not parse is asked for once more,
// then it is an error, never a verdict), and what the calls cost.
func (c *judgeCheck) ask(ctx context.Context, system, user string, i int) (verdict, float64, error) {
	key := c.sampleKey(system, user, i)
	var v verdict
	cached := func() bool {
		b, ok := c.p.Cached(key)
		return ok && json.Unmarshal(b, &v) == nil && v.Score >= 0 && v.Score <= 1
	}
	if cached() {
		return v, 0, nil
	}
	// One call for concurrent askers of the same sample (the same answer
	// judged by two assertions, or two traces): the others wait for it and
	// read the cache, or ask themselves if it failed.
	release, wait := c.p.Claim(key)
	if wait != nil {
		select {
		case <-wait:
		case <-ctx.Done():
			return v, 0, ctx.Err()
		}
		if cached() {
			return v, 0, nil
		}
	} else {
		defer release()
		if cached() { // cached between the first look and the claim
			return v, 0, nil
		}
	}
	cost := 0.0
	var why string
	for attempt := 1; attempt <= judgeAttempts; attempt++ {
		msg := user
		if attempt > 1 {
			msg += judgeRetryNote
		}
		text, u, err := c.client.Complete(ctx, c.model, system, msg, true)
		cost += c.p.Cost(c.model, u)
		if err != nil {
			return v, cost, err
		}
		score, reason, perr := parseVerdict(text)
		if perr == nil {
			v = verdict{Score: score, Reason: reason}
			b, _ := json.Marshal(v)
			c.p.Store(key, b)
			return v, cost, nil
		}
		why = perr.Error()
	}
	return v, cost, &provider.Error{
		Message: "judge provider returned an unusable reply twice: " + c.client.Scrub(why),
		Detail: fmt.Sprintf("The judge model '%s' must answer with a JSON object {\"score\": <0..1>, \"reason\": \"...\"}. "+
			"Use a model that follows JSON instructions, or make a custom prompt ask for exactly that object.", c.model),
	}
}

// message is the user message: the rubric or custom prompt with the
// agent's input, output (and, for some rubrics, retrieved context) fenced.
func (c *judgeCheck) message(in *input, output string) string {
	input := inputText(in.trace()["input"])
	if c.rubric == "" {
		return customPrompt(c.prompt, c.criteria, input, output)
	}
	ctx := ""
	if contextRubrics[c.rubric] {
		ctx = retrievedContext(in)
	}
	return rubricPrompt(c.text, contextRubrics[c.rubric], c.criteria, input, output, ctx)
}

// outcome turns the samples' tally into a result, like spec §4's example:
// "<reason> Score 0.91 exceeds threshold 0.75." The score is the median of
// the samples; with more than one the explanation says how many agreed, and
// a split verdict says so and is not a pass.
func (c *judgeCheck) outcome(t *tally, cost float64) outcome {
	score := t.median(c.threshold)
	reason := sentence(t.reason(c.threshold))
	expl := fmt.Sprintf("%s Score %s %s.", reason, fmtScore(score, c.threshold), versus(score, c.threshold))
	o := outcome{pass: t.pass, score: score, cost: cost, explanation: expl}
	if c.cons.mode != modeSingle {
		o.explanation = t.summary(c.cons) + " " + reason + " Median score " + fmtScore(score, c.threshold) + " " + versus(score, c.threshold) + "."
		o.judge = &JudgeInfo{Samples: len(t.samples), Agreeing: t.agreeing(), Split: t.split}
	}
	return o
}

// sentence is a judge's reason ending with a full stop.
func sentence(reason string) string {
	if reason == "" {
		return "The judge gave no reason."
	}
	if r, _ := utf8.DecodeLastRuneInString(reason); !strings.ContainsRune(".!?…", r) {
		reason += "."
	}
	return reason
}

// parseVerdict finds the first JSON object with a "score" in a judge's
// reply (prose around it is allowed: not every provider has a JSON mode)
// and checks it: score a number (or numeric string) within 0..1, reason a
// string. It never fails slowly: only the start of the reply is searched.
func parseVerdict(text string) (score float64, reason string, err error) {
	if len(text) > maxVerdictScan {
		text = text[:maxVerdictScan]
	}
	tried := 0
	for i := 0; i < len(text) && tried < maxVerdictObjects; i++ {
		if text[i] != '{' {
			continue
		}
		tried++
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		dec.UseNumber()
		var obj map[string]any
		if dec.Decode(&obj) != nil {
			continue
		}
		raw, ok := obj["score"]
		if !ok {
			continue
		}
		score, err := verdictScore(raw)
		if err != nil {
			return 0, "", err
		}
		switch r := obj["reason"].(type) {
		case string:
			reason = r
		case nil:
		default:
			reason = jsonText(r)
		}
		reason = clip.String(strings.Join(strings.Fields(reason), " "), maxReasonLen)
		return score, reason, nil
	}
	return 0, "", fmt.Errorf("no JSON object with a \"score\" in %q", clip.String(strings.TrimSpace(text), 120))
}

func verdictScore(raw any) (float64, error) {
	var f float64
	switch x := raw.(type) {
	case json.Number:
		v, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return 0, fmt.Errorf("score %s is not a finite number", x)
		}
		f = v
	case string:
		v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return 0, fmt.Errorf("score %q is not a number", clip.String(x, 40))
		}
		f = v
	default:
		return 0, fmt.Errorf("score is %s, not a number", trace.Kind(raw))
	}
	if math.IsNaN(f) || f < 0 || f > 1 {
		return 0, fmt.Errorf("score %s is outside 0..1", fmtNum(f))
	}
	if f == 0 {
		f = 0 // "-0" is within 0..1, but a result's score is never a negative zero
	}
	return f, nil
}

// inputText is the agent's input as the judge sees it: input.user_message
// when that is all there is, else the whole input as JSON.
func inputText(v any) string {
	switch x := v.(type) {
	case nil:
		return "(no input recorded)"
	case map[string]any:
		if msg, ok := x["user_message"].(string); ok {
			rest := false
			for k, f := range x {
				if k != "user_message" && !emptyValue(f) {
					rest = true
				}
			}
			if !rest {
				return msg
			}
		}
	}
	return jsonText(v)
}

func emptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	}
	return false
}

// retrievedContext lists the results of the trace's tool and retrieval
// steps, for rubrics that check claims against them.
func retrievedContext(in *input) string {
	var b strings.Builder
	for _, s := range in.stepList() {
		st, _ := s.(map[string]any)
		typ, _ := st["type"].(string)
		if !isToolStep(typ) || st["result"] == nil {
			continue
		}
		name, _ := st["name"].(string)
		fmt.Fprintf(&b, "%s (%s): %s\n", name, typ, jsonText(st["result"]))
		if b.Len() > maxJudgeData {
			break
		}
	}
	if b.Len() == 0 {
		return "(no tool or retrieval results in the trace)"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
