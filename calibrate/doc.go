// doc.go: the package documentation: the calibrate command, its inputs, its certificate and exit codes.

// Package calibrate is `attest-engine calibrate`: it runs the judge
// (llm_judge) assertions of a suite over items that people have labelled,
// reports how well each judge agrees with them (package agreement), and
// writes a certificate keyed by the hash of what decides each judge's
// verdicts (assert.JudgeDecides), which require_calibration reads to gate
// the judge (docs/judges.md).
//
// The suite is a watch suite file ({"assertions": [{"name", "type",
// "spec"}, …]}) or an eval assertions list; only its llm_judge assertions
// are calibrated, each without its own require_calibration. The labels are
// NDJSON, one item a line:
//
//	{"trace": {…}, "label": true | false | "pass" | "fail" | 0.0–1.0,
//	 "labels": [<one such value per person>, …], "assertion": "<name>"}
//
// label is the consensus (or the only) human label; labels, when there are
// several people, each one's; a line may carry either or both (without
// label, the consensus is the majority of labels, a tie counted as fail).
// assertion names the judge the item is for (one of the suite's: another
// name is bad input); without it the item counts for every judge. A numeric label passes at the judge's threshold and,
// with the judge's score, on five ordinal levels (the score × 4, rounded)
// gives the quadratic-weighted κ.
//
// Items are judged as eval judges them (assert.Engine.Run, the provider
// cache, --offline replaying it); a judge that cannot answer for an item
// (a provider failure, an offline cache miss) leaves the judge without a
// certificate. Statistics: accuracy, the confusion table, Cohen's κ,
// quadratic-weighted κ (numeric labels), Krippendorff's α (nominal, the
// people and the judge as raters; and among the people alone when there
// are several), the majority-class baseline, and percentile bootstrap 95%
// intervals seeded by --seed.
//
// Exit status: 0 when every judge was calibrated (and the certificate
// written); 1 when a judge could not answer for some item (no certificate
// is written); 2 on bad input or flags.
package calibrate
