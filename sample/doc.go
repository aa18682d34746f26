// doc.go: the package comment: deterministic sampling and sharding of traces by id.

// Package sample decides, from a trace id alone, whether a process keeps a
// trace: sampling at a rate, and sharding over N processes. Both are pure
// functions of the id, so every process, every re-run and every
// OpenTelemetry threshold sampler agree.
//
// # Sampling
//
// For an id of 32 hex digits (a W3C / OpenTelemetry trace id) the
// randomness R is its last 56 bits, as OpenTelemetry's probability
// sampling specification defines it (the rule its threshold samplers record
// in TraceState as ot=th; W3C Trace Context level 2's "random" flag marks
// ids random there), and the trace is kept iff R ≥ T with the rejection
// threshold T = round((1 − rate)·2⁵⁶). The SDKs' classic TraceIdRatioBased
// samplers use other, per-language rules: a trace one kept at a rate is
// not always kept here at that rate. T is computed exactly
// from the rate's decimal text (math/big), rounding halves up, so the
// decision does not depend on float arithmetic. Any other id (such as an
// Attest "trc_…" id) takes R from the first 56 bits of SHA-256(id). Since
// T falls as the rate grows, the traces kept at a lower rate are kept at
// every higher rate: the sampled sets nest.
//
// # Sharding
//
// A trace's shard is ⌊h·N / 2⁶⁴⌋ for h the first 64 bits of
// SHA-256("attest-shard\x00" + id): a hash of its own, independent of the
// sampling randomness, so each shard samples at the same rate. Shards are
// numbered from 0. [FromEnv] reads the shard from the environment of the
// engines that run the command: JOB_COMPLETION_INDEX (Kubernetes Indexed
// Jobs; the count comes from --shards, as Kubernetes publishes none), or
// SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN out of SLURM_ARRAY_TASK_COUNT
// (Slurm array jobs, whose ids need not start at 0).
package sample
