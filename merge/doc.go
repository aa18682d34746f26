// Package merge is `attest-engine merge DST SRC...`: it adds the result
// histories of shards (the --state-dir of each) into one state dir with
// history.Merge. Its flags, usage and exit status live here; the storage
// rules (what a merge sums, what it refuses) live in package history.
//
// Exit status: 0 merged (a note on stderr when assertions beyond a state
// dir's bound were left out, history.KeysDropped) or -h, 1 the merge
// failed, 2 usage.
package merge
