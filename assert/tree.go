// tree.go: the trace tree (spec §3.3 agent_call sub_trace): walk, agents, parent links, aggregates, value search.

package assert

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"attest-engine/clip"
	"attest-engine/jsonschema"
	"attest-engine/tape"
)

// maxTreeLevels bounds the walk. Validated traces nest at most 5 levels
// (spec §7 "Max sub-trace depth | 5 levels"); validate_trace_tree also walks
// traces that failed validation, and the decoder already caps nesting, so
// this is only a second fence.
const maxTreeLevels = 64

// treeNode is one trace of the tree: the root, or the sub_trace of an
// agent_call step (spec §3.3).
type treeNode struct {
	trace   map[string]any
	agentID string // "" when the trace has none
	traceID string
	depth   int // 0 for the root, 1 for a sub_trace of a root step, …
	parent  *treeNode
	step    map[string]any // the parent's agent_call step carrying it; nil for the root
	at      int            // that step's index in the parent's steps
	where   string         // "sub_trace of step 'x' (steps[1]): …", "" for the root
}

// label names a node in explanations: its agent_id, or its trace_id.
func (n *treeNode) label() string {
	if n.agentID != "" {
		return "'" + n.agentID + "'"
	}
	return "trace '" + n.traceID + "' (no agent_id)"
}

// buildTree lists the traces of the tree depth first, parents before their
// children, children in step order: the root is nodes[0].
func buildTree(root map[string]any) []*treeNode {
	var nodes []*treeNode
	var walk func(t map[string]any, parent *treeNode, step map[string]any, at int, where string)
	walk = func(t map[string]any, parent *treeNode, step map[string]any, at int, where string) {
		n := &treeNode{trace: t, parent: parent, step: step, at: at, where: where}
		n.agentID, _ = t["agent_id"].(string)
		n.traceID, _ = t["trace_id"].(string)
		if parent != nil {
			n.depth = parent.depth + 1
		}
		nodes = append(nodes, n)
		if n.depth >= maxTreeLevels {
			return
		}
		steps, _ := t["steps"].([]any)
		for i, s := range steps {
			st, ok := s.(map[string]any)
			if !ok {
				continue
			}
			sub, ok := st["sub_trace"].(map[string]any)
			if !ok {
				continue
			}
			name, _ := st["name"].(string)
			walk(sub, n, st, i, where+"sub_trace of step '"+name+"' (steps["+strconv.Itoa(i)+"]): ")
		}
	}
	walk(root, nil, nil, 0, "")
	return nodes
}

// value is n's trace read in place in root, the tape of the tree's root
// trace: reached step by step, as buildTree reached it in the decoded trace
// (the tape refuses duplicate member names, so both name the same value).
func (n *treeNode) value(root tape.Value) tape.Value {
	if n.parent == nil {
		return root
	}
	return n.parent.value(root).Get("steps").Index(n.at).Get("sub_trace")
}

// tree returns the trace tree of the input, built once per batch and
// shared, read-only, by its trace_tree checks and agent scopes.
func (in *input) tree() []*treeNode {
	in.treeOnce.Do(func() { in.nodes = buildTree(in.trace()) })
	return in.nodes
}

// treeDepth is the number of sub-trace levels below the root, counted as
// spec §7 counts them: a trace without sub-traces has depth 0.
func treeDepth(nodes []*treeNode) int {
	d := 0
	for _, n := range nodes {
		d = max(d, n.depth)
	}
	return d
}

// agentIDs lists the distinct agent_id values of the tree's traces, depth
// first; traces without one are left out.
func agentIDs(nodes []*treeNode) []string {
	seen := map[string]bool{}
	out := []string{}
	for _, n := range nodes {
		if n.agentID != "" && !seen[n.agentID] {
			seen[n.agentID] = true
			out = append(out, n.agentID)
		}
	}
	return out
}

// byAgent returns the traces whose agent_id is id, depth first.
func byAgent(nodes []*treeNode, id string) []*treeNode {
	var out []*treeNode
	for _, n := range nodes {
		if n.agentID == id {
			out = append(out, n)
		}
	}
	return out
}

// quoteList renders names for explanations: 'a', 'b' (or "none").
func quoteList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return "'" + strings.Join(names, "', '") + "'"
}

// linkErrors checks parent_trace_id links: a sub-trace's parent_trace_id,
// when present and a string, must equal its parent's trace_id.
func linkErrors(nodes []*treeNode) []string {
	var errs []string
	for _, n := range nodes[1:] {
		pid, ok := n.trace["parent_trace_id"].(string)
		if !ok || pid == n.parent.traceID {
			continue
		}
		errs = append(errs, fmt.Sprintf("%sparent_trace_id '%s' does not match the parent trace_id '%s'", n.where, pid, n.parent.traceID))
	}
	return errs
}

// aggregate sums metadata.<field> over every trace of the tree, exactly (in
// decimal), and says how many traces carry the field.
func aggregate(nodes []*treeNode, field string) (sum *big.Rat, carriers int) {
	sum = new(big.Rat)
	for _, n := range nodes {
		md, _ := n.trace["metadata"].(map[string]any)
		if r, ok := ratOf(md[field]); ok {
			sum.Add(sum, r)
			carriers++
		}
	}
	return sum, carriers
}

// maxExactText bounds the text of a number ratOf reads digit for digit: far
// more digits than a cost, a token count or a latency carries, few enough
// that sums stay cheap. Parsing and adding rationals costs the square of
// their digits: two traces with 1,000,000-digit costs took seconds.
const maxExactText = 64

// ratOf converts a JSON number to an exact rational. Plain decimals of at
// most maxExactText characters are read digit for digit (0.1 + 0.2 is 0.3);
// longer ones and numbers with an exponent go through float64, so no input
// can ask for a 10^1000000000 rational or a million-digit sum.
func ratOf(v any) (*big.Rat, bool) {
	f, ok := jsonschema.Float(v)
	if !ok {
		return nil, false
	}
	if s, isText := v.(interface{ String() string }); isText {
		if t := s.String(); len(t) <= maxExactText && !strings.ContainsAny(t, "eE") {
			if r, ok := new(big.Rat).SetString(t); ok {
				return r, true
			}
		}
	}
	return new(big.Rat).SetFloat64(f), true
}

// ratText prints a rational the way explanations quote numbers: 0.0123, 1350.
func ratText(r *big.Rat) string {
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// TreeSummary is what validate_trace_tree reports of a trace tree.
type TreeSummary struct {
	Depth      int      // sub-trace levels below the root (spec §7 counting)
	AgentCount int      // traces in the tree, the root included
	AgentIDs   []string // distinct agent_id values, depth first
	Tokens     float64  // sum of metadata.total_tokens
	CostUSD    float64  // sum of metadata.cost_usd
	LatencyMS  float64  // sum of metadata.latency_ms
	LinkErrors []string // parent_trace_id inconsistencies
}

// SummarizeTree walks the tree under root; root need not have passed
// validation (validate_trace_tree reports on invalid trees too).
func SummarizeTree(root map[string]any) TreeSummary {
	nodes := buildTree(root)
	sum := func(field string) float64 {
		r, _ := aggregate(nodes, field)
		f, _ := r.Float64()
		return f
	}
	return TreeSummary{
		Depth:      treeDepth(nodes),
		AgentCount: len(nodes),
		AgentIDs:   agentIDs(nodes),
		Tokens:     sum("total_tokens"),
		CostUSD:    sum("cost_usd"),
		LatencyMS:  sum("latency_ms"),
		LinkErrors: linkErrors(nodes),
	}
}

// containsText reports whether some string in v contains n, matched as the
// content layer matches (content.go: case folding included).
func containsText(v any, n needle) bool {
	switch x := v.(type) {
	case string:
		var room [512]byte
		_, _, ok := n.find(x, lowerASCII(x, room[:0]))
		return ok
	case []any:
		for _, e := range x {
			if containsText(e, n) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if containsText(e, n) {
				return true
			}
		}
	}
	return false
}

// reaches reports whether v occurs in doc: equal to doc or to a value inside
// it, or, for a non-empty string, contained in one of its strings.
func reaches(v, doc any) bool {
	if doc == nil {
		return false
	}
	if jsonschema.Equal(v, doc) {
		return true
	}
	switch d := doc.(type) {
	case string:
		s, ok := v.(string)
		return ok && s != "" && strings.Contains(d, s)
	case []any:
		for _, e := range d {
			if reaches(v, e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range d {
			if reaches(v, e) {
				return true
			}
		}
	}
	return false
}

// short quotes a value for an explanation, cut to a readable length.
func short(v any) string {
	return clip.String(canonical(v), 80)
}
