// Package trajectory matches an agent's trajectory — the steps of a trace
// (spec §3) — against step patterns with arguments, reference trajectories,
// and temporal constraints, deterministically, and names the step where a
// trajectory departs from what was asked. It adds four trace check kinds to
// the spec's layer 3 (spec §4), which the engine advertises as the
// capability "trajectory" (spec §2.1: "Capabilities are additive. New
// capabilities never remove or alter old ones."):
//
//	tool_args             every call of a tool matches a pattern (args, result)
//	trajectory_match      the steps match a reference: strict, unordered, subset, superset
//	trajectory_alignment  a score in [0, 1]: an optimal alignment with the reference, against a threshold
//	temporal              before, never_after, immediately_after, at_most, between, eventually
//
// docs/trajectory.md has an example of each.
//
// # Step patterns
//
// A pattern is a tool name ("lookup_order") or an object {tool?, type?,
// args?, result?}: tool and type compare exactly (absent: any), and each
// member listed in args or result must be present and match; members not
// listed are not looked at. A member's matcher is a value (matched exactly)
// or an object naming one of
//
//	exact   equal by value: numbers by value (1 = 1.0), objects member by member
//	subset  an object whose members are present and equal (nested objects as subsets)
//	regex   an RE2 pattern the string matches (unanchored, as Go's MatchString)
//	schema  a JSON Schema the value is valid against (the engine's validator)
//	any     true: present, whatever its value (null included)
//	ref     a JSONPath (the engine's subset) into the trace evaluated; equal to a value it selects
//
// with "tolerance" (a number ≥ 0) beside exact or ref: numbers within it
// match. An object meant literally is written {"exact": {...}}. A ref path
// is read from the trace the assertion evaluates ("$" is that trace, so
// input.order_id is its input); when it selects several values, one equal
// value is enough; when it selects none, the member does not match. The
// ref is not required to come from an earlier step: order is what before
// and the reference say.
//
// # The steps read
//
// A check reads the steps of the trace it evaluates (the root, or the
// trace of the assertion's agent_id) — scope "trace", the default, as the
// spec's own checks read them — or, with scope "tree", that trace and every
// sub_trace below it (spec §3.3), each agent_call step followed by its
// sub-trace's steps, in the order they ran. Of these, a check reads the
// tool calls by type (tool_call and retrieval) and, whatever its type, any
// step bearing a name (or type) one of its patterns names: the rule of the
// spec's checks (assert's layer 3, sdk-compat "Tool names as SDK users write
// them"), so an unnamed reasoning llm_call never counts as an unexpected
// step, and "immediately" skips it. tool_args reads every step bearing its
// tool's name (and its type, when it gives one).
//
// # Reference counts and modes
//
// A reference pattern occurs exactly once by default; min, max (1..64 or
// "unbounded"; defaults to min, at least 1), optional: true (min 0) change
// that. The modes are agentevals' four:
//
//	strict     the steps are p1^k1 … pm^km, in order, Min_i ≤ k_i ≤ Max_i, nothing else
//	unordered  every step is assigned to a pattern it matches, each pattern Min..Max times
//	subset     every step is assigned to a pattern, each at most Max times (min not required)
//	superset   each pattern is matched Min times by distinct steps; other steps are allowed
//
// In superset, max has no effect (extra steps are allowed there); in
// subset, min has none.
//
// # Alignment
//
// trajectory_alignment scores how close the steps are to the reference:
// cost = Σ Cost_i per missing required occurrence of pattern i (cost,
// default 1) + unexpected_cost (default 1) per step left unmatched (and per
// step beyond a pattern's max), and score = 1 − cost / (the cost of
// matching nothing: every required occurrence missing, every step
// unexpected), 1 when that is 0. order "ordered" (default) is an edit
// distance: matched steps keep the reference's order, unexpected ones may
// come anywhere; "unordered" is an optimal assignment. The check passes
// when score ≥ threshold. The explanation lists matched, missing and
// unexpected steps. A score of 1 means exactly what strict (ordered) or
// unordered trajectory_match accepts.
//
// # Temporal constraints
//
// Each constraint is {rule, a, b?, c?, n?, scope?}; the steps it
// constrains are b's (c's for between), and a constraint none of them
// triggers holds:
//
//	before(a, b)              every b has an a earlier
//	never_after(a, b)         no b after an a
//	immediately_after(a, b)   every b comes right after an a (the previous step read)
//	at_most(n, a)             at most n steps match a
//	between(a, b, c)          every c lies inside a window opened by an a and closed by the next b
//	eventually(a)             some step matches a
//
// Each constraint reads the tool calls and the steps its own patterns
// name, and takes its scope from its own scope or the check's.
//
// # The step that failed
//
// Every failure names one step (Failure, sent as the additive result field
// "failed_step", and at the end of the explanation): the first step where
// the trajectory departs from what was asked. strict: the first step no
// reading of the reference can take (every shorter prefix can still be
// completed). Order-free modes and alignment: the earliest step that costs
// — an unexpected step, or for a missing pattern its near miss (the first
// step bearing its tool name that its members reject, with the member and
// the values: "args.order_id 'ORD-9' ≠ input.order_id 'ORD-123'") or, with
// none, where the alignment closed it (the end of the trace, order-free).
// temporal: the step that breaks the rule, the earliest over the violated
// constraints; eventually names its near miss or the end. tool_args: the
// first call that does not match, or the end when there is none.
//
// # Bounds and worst cases
//
// n is the number of steps read (≤ 10,000, spec §7), P the patterns of a
// reference (≤ 64) and S = Σ(Max_i+1) its count states (Min_i+1 for an
// unbounded pattern; ≤ 1,024); each pattern ≤ 64 args and result members, a
// check ≤ 64 distinct ref paths and ≤ 64 constraints.
//
//   - Matching steps to patterns: patterns are looked up by tool name, so
//     O(n · P) member tests at worst, each bounded by what it reads (a
//     schema by the validator's own bounds); each ref path is evaluated once
//     per evaluation. One 64-bit mask per step.
//   - strict: an NFA over the S states, O(n · S) time, O(S) memory.
//   - unordered, subset, superset and unordered alignment: augmenting paths
//     searched over the P patterns (assign.go), O((n + P) · P²) time, O(n ·
//     P) memory at worst (one entry per step and pattern it matches).
//   - ordered alignment: dynamic programming, O(n · S) time, n · (S/4 + P)
//     bytes of back-pointers (≤ 3.2 MB at n = 10,000).
//   - temporal: one pass per constraint, O(n) per pattern.
//
// Every loop over the steps looks at the batch's context every 256 steps,
// so the engine's --eval-timeout bounds a check whatever it meets. Memory
// is linear in the trace.
package trajectory
