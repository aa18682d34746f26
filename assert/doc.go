// doc.go: the package documentation: what the package does, and layers 1–4: targets, multi-match, non-strings, soft.

// Package assert evaluates batches of Attest assertions (spec §4, layers 1–6)
// over a trace that has already passed validation.
//
// Each assertion type has a compiler, kept in a table keyed by type
// (engine.go), that decodes and checks the type's spec once and returns a
// check. A failed assertion is a Result; an assertion that cannot be
// evaluated (unknown type, bad spec, bad regex or schema) is an *Error,
// which fails the whole batch with ASSERTION_ERROR, as spec §5 shows.
//
// Engine.Run (batch.go) is the one evaluation core of the program: the
// server's evaluate_batch and the eval command both validate a trace,
// evaluate its batch under the --eval-timeout deadline (a batch finished
// late is a timeout), and recover a panic as an ENGINE_ERROR through it,
// and FailureOf maps whatever stops a batch to its spec §5 code. Config
// (config.go) is the --config file both read. Layers 5–6 call the
// embedding and judge endpoints of package provider, which owns HTTP.
//
// The sections below are the deterministic layers 1–4 (spec §4) and the
// decisions taken where the spec is silent.
//
// # Targets and paths
//
// target (schema, content) and field (constraint) are paths of the
// jsonpath subset, in the Attest short form or the RFC 9535 spelling. A
// path is parsed once; parsed paths are shared through a bounded cache
// (1024 entries) and compiled checks through the engine's compile cache.
// A path outside the subset is an ASSERTION_ERROR "unsupported JSONPath
// expression '<path>'" whose detail gives the parser's byte offset.
// Explanations name a target by the path as written when it can select
// only one value, and by the match's own location (steps[3].result)
// otherwise, so a failure always names the failing step. A target that
// selects nothing is a failure naming the path, never a silent pass.
//
// # Layer 1: schema
//
// The schema (a Draft 2020-12 object or boolean; without $schema, 2020-12
// is assumed) is compiled once with the engine's schema loader; a schema
// that does not compile, an unresolvable $ref included, is an
// ASSERTION_ERROR "malformed JSON Schema: ..." naming the keyword.
// Multi-match: every match is validated and all must be valid. The pass
// explanation follows spec §2.2 ("Tool result for 'lookup_order' matches
// schema: ...", "Tool args for ..." for args; retrieval, agent_call and
// llm_call steps say "Retrieval", "Agent call", "LLM call"). A failure
// names the first failing match and renders the validator's most useful
// unit as spec §4 does: "confidence = 1.23 exceeds maximum 1.0", the
// instance location as a dotted path relative to the target; with several
// matches it adds how many failed and where.
//
// # Layer 2: constraint
//
// field is any path to one number (the spec's five fields and any other,
// such as steps[1].metadata.duration_ms). Numbers are compared exactly on
// their decimal text (0.30000000000000004 is not 0.3; 1e3 is 1000), never
// through float64, and printed as written in the trace and the spec. A
// field that is missing, null, not a number, or that selects several
// values (an ambiguous number: use .length to count) is a failure, hard or
// soft per soft, naming what was found. A trace without steps has
// steps.length 0 and no tool calls (§3.2: steps is optional). An unknown
// operator, a missing or non-numeric value (min and max for between), or
// min > max is an ASSERTION_ERROR.
//
// # Layer 3: trace
//
// Checks read the top-level steps only; the steps of a sub_trace belong to
// the sub-agent (trace_tree checks the whole tree). A tool call is a step
// of type tool_call or retrieval (spec §3.3: retrieval is "semantically
// similar to tool_call"); llm_call and agent_call steps and unknown step
// types (spec §6: opaque) are not, with one exception: tool names as SDK
// users write them (../shared/sdk-compat.md), where a name the assertion lists
// matches any step bearing that name, whatever its type:
//
//   - contains_in_order, required_tools, forbidden_tools and
//     loop_detection (its tool) match a listed name against every
//     top-level step, so tools_called_in_order(["search", "gpt-4"]) passes
//     when gpt-4 is an llm_call, and an agent_call may be required or
//     forbidden.
//   - exact_order: the steps that count as "other tool calls in between"
//     (spec §4) are the steps bearing a listed name plus the tool_call and
//     retrieval steps; an unlisted llm_call (reasoning) or agent_call
//     between them does not break the order. The tools must appear as
//     consecutive steps of that sequence; calls before and after the run
//     are allowed.
//   - no_duplicates reads tool_call and retrieval steps only, even for a
//     name its optional tools list (sdk-compat) names: two reasoning
//     llm_call steps are normal.
//
// The trace checks tool_args, trajectory_match, trajectory_alignment and
// temporal (capability "trajectory") are package trajectory's, compiled
// with this package's regex, schema and path compilers (trajectory.go);
// their failures carry Result.FailedStep.
//
// loop_detection counts calls: max_repetitions is the largest number of
// calls allowed, a non-negative integer (2.0 is 2). transitions is accepted
// and ignored: no check of the spec's table uses it. Explanations list step
// indexes as the spec does ("found in order at steps [1, 2]"), at most 20
// entries; a failure lists the steps the check read ("Tool calls and
// listed steps: ..." when a listed name is borne by a step of another type).
//
// # Layer 4: content
//
// Text of a match: a string is itself; a number is its JSON text as in the
// trace, a boolean true or false, an object or array its compact JSON
// encoding (sorted keys, no HTML escaping); null is a failure naming the
// path. Multi-match: every match must pass the check (for not_contains and
// forbidden: no match may contain a value); the first failing match is
// named. case_sensitive (default false) applies to contains, not_contains,
// keyword_all and keyword_any (spec §4 layer 4), and to forbidden; folding
// is RE2's Unicode simple case folding. regex_match is case-sensitive as
// written, whatever the default: ^RFD-\d+$ does not match rfd-001. An
// explicit case_sensitive: false on a regex still folds (an additive
// extension: the pattern runs under (?i), and (?-i) inside it turns folding
// back off); absent or null, it does not. regex_match is RE2 (Go regexp),
// bounded by its estimated compiled size, not its length (regex.go): at
// most 2¹⁸ RE2 instructions plus character class ranges, a counted repeat
// counting its copies, as the schema validator bounds a pattern; the text
// and its Unicode property classes are counted before parsing, so a
// refusal costs little. A 600-name alternation is valid. An invalid
// pattern is spec §5's "invalid regex '<pattern>'" (quoted up to 200
// bytes); one beyond the bound is "invalid regex: pattern too large (...)".
// Empty value and empty entries of values are ASSERTION_ERRORs: they would
// match every text. forbidden is "hard fail on any match" (spec): it
// ignores soft, and its failures (a match, a missing or null target) are
// always hard_fail.
//
// # Soft failures and scores
//
// soft: true turns a failure into soft_fail (engine.run); soft: null is
// the default, false. Layers 1–4 score 1.0 on pass and 0.0 on failure and
// cost 0.
//
// # Layer 6: judges that can be trusted
//
// An llm_judge may draw several samples (consistency.go: "sequential" and
// "confirm_on_fail"; the score is their median, a split verdict never a
// pass, each sample its own cache key), judge its answer against another in
// both orders (pairwise.go: "compare"; an order-dependent verdict is a
// tie), and be gated by a calibration certificate keyed by the hash of what
// decides its verdicts (calibration.go: "require_calibration"; an
// uncalibrated verdict is soft_fail with calibrated: false). Plan (plan.go)
// counts the paid calls a batch would make, for eval --dry-run; a call the
// provider's budget_usd refuses leaves its assertion skipped. The fields
// these add to a Result are JudgeInfo's; docs/judges.md has the rules.
package assert
