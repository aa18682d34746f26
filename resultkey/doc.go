// Package resultkey names results across runs: a result's assertion key is
// a content address of what the assertion checks, its case key one of what
// was evaluated. Two runs of the same suite give their results the same
// keys, whatever random ids the runs drew; history, query_drift, merge,
// reports and `attest-engine diff` pair and accumulate results by them
// (docs/compare.md, "Stable keys"). The functions are pure: the same
// arguments give the same key in any process, on any platform, in any
// version that keeps the prefixes below.
//
// # Assertion key
//
//	fields = ["attest-assertion-key-v1", type, canonical spec, agent_id, name]
//	key    = "ak_" + hex(SHA-256(concatenation over fields of uint64_be(len(field)) || field)[0:16])
//
// type is the assertion's type; canonical spec is the RFC 8785 text of its
// spec (simulate.Canonical: members sorted, numbers as ECMAScript writes
// their double, so 1, 1.0 and 1e0 are one value); agent_id the additive
// scope of the assertion ("" for the trace itself); name the stable name a
// watch suite gives it ("" where there is none). The assertion_id the
// protocol carries is a label, never part of the key: the Python SDK draws
// it at random for every assertion of every run ("assert_" + 8 hex
// digits). Any change to the spec — a threshold, a tool name, "soft" — is
// another check, hence another key: its history starts afresh, and diff
// lists its results as unpaired.
//
// # Case key
//
//	fields = ["attest-case-key-v1", "trace", agent_id, input]     a trace
//	fields = ["attest-case-key-v1", "scenario", scenario_id]      a run of a simulated scenario
//	key    = "ck_" + hex(SHA-256(as above)[0:16])
//
// agent_id is the trace's agent_id ("" when absent) and input the RFC 8785
// text of the trace's input ("" when the trace has none: no canonical text
// is empty, so an absent input differs from null). A scenario's runs share
// its case key; the repeat index is kept apart, as the result's repeat, so
// that run 3 of the base pairs with run 3 of the head. trace_id, timestamps,
// the output and the steps are not part of it: they are what the case
// produced, and what is compared.
//
// # Two tests with both keys equal
//
// Two results that share their case key and assertion key (and repeat) are
// the same check of the same case: history counts both under one key, as
// it should, and diff pairs them with their counterparts in the other run
// in order of appearance, which holds while the tests run in a fixed
// order. To keep them apart, make what they evaluate differ (an input
// field naming the test, or an agent_id), or, in a watch suite, give the
// assertions different names.
//
// # Cost
//
// A key is one canonical encoding and one SHA-256 over it: a few
// microseconds for a typical spec (BenchmarkAssertion; the hash alone,
// BenchmarkAssertionOf, two allocations). The engine computes keys only
// when something keeps them (a report, a history, watch's result lines),
// and the server knows a spec's key by its exact text (rpc/keys.go).
package resultkey
