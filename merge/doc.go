// Package merge is `attest-engine merge DST SRC...`: it adds the result
// histories of shards (the --state-dir of each) into one state dir with
// history.Merge. Its flags, usage and exit status live here; the storage
// rules (what a merge sums, what it refuses) live in package history.
//
// Exit status: 0 merged or -h, 1 the merge failed (nothing merged: among
// others, sources naming more assertion keys than a state dir summarizes,
// history.TooManyKeys), 2 usage.
package merge
