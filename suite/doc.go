// Package suite reads a suite file, the named assertions that the watch and
// calibrate commands evaluate:
//
//	{"assertions": [{"name", "type", "spec", "agent_id"?}, …],
//	 "sample_rates": {"<agent_id>": 0.1, …},
//	 "filter": {"agent_ids": ["<agent_id>", …]}}
//
// A name is the assertion's stable name (for result ids), unique in the
// suite, and part of its assertion key (package resultkey: with its type,
// spec and agent_id), the key of history and drift; the suite's hash is of
// its canonical JSON,
// so that re-indenting the file keeps result ids. A file is untrusted:
// at most MaxBytes, MaxAssertions, names of MaxNameBytes, MaxAgentRates and
// MaxFilterAgent agents (docs/security.md).
package suite
