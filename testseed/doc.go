// Package testseed gives the engine's seeded tests their seed: a whole
// number from an environment variable named by the test, else the test's
// default, logged either way, so that anyone can rerun a seeded simulation
// or fuzz-like test with another seed (`ATTEST_DIFF_SEED=7 go test
// ./rundiff -run Sim`). It is imported by tests only.
package testseed
