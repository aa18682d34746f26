//go:build !unix

// lock_other.go: no advisory lock where flock is missing.

package history

func lockDir(string) (func(), error) { return func() {}, nil }
