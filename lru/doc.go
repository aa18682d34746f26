// Package lru is the engine's one bounded cache: a least-recently-used map,
// safe for concurrent use, bounded in entries and optionally in the total
// weight (bytes) of its values. Every cache in the engine is one of these,
// so no input can make memory grow without bound (docs/security.md).
package lru
