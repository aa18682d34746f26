// Package rundiff is `attest-engine diff --base A --head B`: a statistical regression gate between two
// runs of the same evaluations. It reads the result sets the engine writes — a JSON report (eval --format
// json, a server's --report x.json) or watch's result lines — pairs their results, and decides for each
// assertion key whether the head run regressed, improved, stayed the same, or cannot tell. No network, no
// re-run: only the two files.
//
// # Pairing
//
// A result is identified by its case key (what was evaluated), its assertion key (what checked it) and
// its repeat. The keys are the results' case_key and assertion_key where the run wrote them; else a JSON
// report's trace name and the assertion's id and type, and a result line's trace_id and suite name. The
// repeat is the result's repeat where it names one. Results that share all three pair with their
// counterparts in the other run in order of appearance. Watch's result lines are de-duplicated first, as
// docs/watch.md says: among the lines of one trace and assertion, a result_id seen before is skipped, and a
// line that supersedes a result_id takes that line's place. A result without a counterpart is listed, never
// dropped: text and Markdown name the first 20 of each run, JSON all of them.
//
// # Tests
//
// For each assertion key, over its pairs where both sides have a verdict (pass, soft_fail or hard_fail;
// a skipped or error result — a JSON report's soft_fail with "skipped": true or "calibrated": false
// included — is counted as not comparable), a pass is status pass:
//
//   - pass/fail: McNemar's exact conditional test on the discordant pairs, one-sided toward a regression
//     (and separately toward an improvement), with Lancaster's mid-p: P(X > r) + ½·P(X = r), X ~
//     Binomial(pass→fail + fail→pass, ½), r the pairs that moved that way. The conventional exact p-value
//     is conservative (its size falls well below α); the mid-p keeps the false-regression rate at α.
//   - graded scores (a key with a score other than 0 and 1): the paired sign-flip permutation test on the
//     score differences, one-sided each way; every assignment of signs when at most 16 pairs differ, else
//     assignments drawn from a PCG generator seeded by --seed and the key's text (FNV-1a), both directions
//     counted on the same draws, each with Besag and Clifford's sequential p-value: it stops once 50 draws
//     reached the observed sum (p = 50/draws), else after 20,000 (p = (1 + count)/(1 + 20,000)). Pairs
//     whose |difference| is the same are drawn together (their sum is that value times the signs'
//     balance, a count of ones in random bits), so a draw costs a word per 64 pairs when the scores take
//     few values; magnitudes that occur at most four times in a row are taken together, their signed sum
//     looked up from their bits, so scores that all differ cost a lookup per four pairs.
//
// Each direction's hypotheses (every key's pass/fail test, and score test where graded) form one family,
// adjusted with Holm's step-down method, so the chance of calling any key regressed when none did is at
// most α (--alpha, 0.05). A key is regressed when one of its hypotheses' adjusted p-values is at most α,
// else improved likewise, else unchanged when the data could have shown a drop in pass rate of --detectable
// (10 points) with power 0.8 — the smallest such drop is reported, from the normal approximation to the
// one-sided test over the key's pairs and discordance, at level α/m for the m hypotheses of the family (the
// threshold a lone regression must pass at Holm's first step) —, else underpowered. The pass-rate difference
// (head − base) carries Newcombe's 95% interval for paired proportions (1998, method 10).
//
// # Output and exit status
//
// --format text (default), json (every figure), junit (one testcase per key; a regressed key is a
// failure) or markdown (a table for a pull-request comment). Exit status: 1 when a key regressed, 0
// otherwise, 2 on bad input or flags.
//
// # Bounds
//
// Inputs are regular files (what results have no pair is read again, to name them, from the nearest of
// the line starts noted every MiB of the first read; a pipe or FIFO is refused, and a file changed between
// the reads — another size or modification time, or fewer results — is an error). A line is at most 64
// MiB and a run at most 100,000 assertion keys. While pairing, a result takes 40 bytes (its identity is a
// 16-byte digest, and 8 bytes of a watch line's result_id), in 256 buckets by its identity's top bits
// that grow one at a time; what is kept per key is its counts, and for graded keys one 8-byte difference
// per pair.
package rundiff
