//go:build !unix

// owner_other.go: no Unix owners or flock: Private and Lock check nothing.

package safedir

import "io/fs"

func links(fs.FileInfo) uint64 { return 1 }

// Private checks nothing where files have no Unix owner and mode.
func (d *Dir) Private() error { return nil }

// Lock takes no lock where the system has no flock.
func (d *Dir) Lock() error { return nil }
