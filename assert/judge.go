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
	ep := e.prov.Judge()
	if !ep.Usable() {
		return nil, specErrorf(e.prov.JudgeWhy(), "no judge provider configured")
	}
	if c.model == "" {
		c.model = ep.Model()
	}
	c.client = ep
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
	user := c.message(in, matchText(in, ms))
	key := provider.CacheKey("judge", c.client.Kind(), c.client.Base(), c.model, judgeSystem, user)
	var v verdict
	cost := 0.0
	if b, ok := c.p.Cached(key); ok && json.Unmarshal(b, &v) == nil && v.Score >= 0 && v.Score <= 1 {
		return c.outcome(v, 0), nil
	}
	var why string
	for attempt := 1; attempt <= judgeAttempts; attempt++ {
		msg := user
		if attempt > 1 {
			msg += judgeRetryNote
		}
		text, u, err := c.client.Complete(ctx, c.model, judgeSystem, msg, true)
		cost += c.p.Cost(c.model, u)
		if err != nil {
			return outcome{}, err
		}
		score, reason, perr := parseVerdict(text)
		if perr == nil {
			v = verdict{Score: score, Reason: reason}
			b, _ := json.Marshal(v)
			c.p.Store(key, b)
			return c.outcome(v, cost), nil
		}
		why = perr.Error()
	}
	return outcome{}, &provider.Error{
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

// outcome turns a verdict into a result, like spec §4's example:
// "<reason> Score 0.91 exceeds threshold 0.75."
func (c *judgeCheck) outcome(v verdict, cost float64) outcome {
	reason := v.Reason
	if reason == "" {
		reason = "The judge gave no reason."
	} else if r, _ := utf8.DecodeLastRuneInString(reason); !strings.ContainsRune(".!?…", r) {
		reason += "."
	}
	return outcome{
		pass:        v.Score >= c.threshold,
		score:       v.Score,
		cost:        cost,
		explanation: fmt.Sprintf("%s Score %s %s.", reason, fmtScore(v.Score, c.threshold), versus(v.Score, c.threshold)),
	}
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
