//go:build !unix

// cpu_other_test.go: no CPU time where getrusage is missing.

package rpc

func cpuTime() int64 { return 0 }
