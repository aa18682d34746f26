// doc.go: the package documentation: agreement statistics between a judge and people, with their references.

// Package agreement computes how well raters agree: a judge's verdicts
// against human labels, or several people with one another. It holds the
// statistics of judge calibration (docs/judges.md) and nothing else: no
// I/O, no JSON, no judge.
//
//   - Confusion and Accuracy: a square table of counts, truth by row and
//     prediction by column, and the share on its diagonal.
//   - CohenKappa: Cohen's κ (Cohen 1960), (p_o − p_e) / (1 − p_e), the
//     chance agreement p_e from the two raters' own marginals.
//   - WeightedKappa: Cohen's weighted κ with quadratic weights (Cohen
//     1968; Fleiss and Cohen 1973) for ordinal categories 0..k−1: one minus
//     the observed over the chance-expected sum of squared differences.
//   - FleissKappa: Fleiss' κ for many raters (Fleiss 1971), from a table of
//     how many raters put each subject in each category.
//   - Alpha: Krippendorff's α for any number of raters with missing values
//     (Krippendorff, "Computing Krippendorff's Alpha-Reliability", 2011):
//     1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck over the coincidence matrix
//     of pairable values, with the nominal, ordinal, interval and ratio
//     difference functions.
//   - MajorityBaseline: the accuracy of always predicting the most frequent
//     true label: what a judge must beat to be worth its cost.
//   - Bootstrap: a seeded percentile bootstrap 95% interval of any of these
//     over resampled items, a pure function of the data, the statistic, the
//     seed and the number of replicates.
//
// Degenerate inputs have defined answers rather than NaN: a κ or α whose
// chance agreement is perfect (every rating the same) is 1 when the raters
// agree everywhere and 0 otherwise; an empty table has accuracy 0. The
// tests check each statistic to 1e-9 against the worked examples published
// with it and against a brute-force computation in exact rational
// arithmetic.
package agreement
