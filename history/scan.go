// scan.go: reading a state dir's log without opening it for writing.

package history

import (
	"fmt"

	"attest-engine/safedir"
)

// Scan calls fn for every record of dir's log, oldest first, and changes
// nothing: past a corrupt frame it goes on at the next valid one, and a
// torn tail ends its segment's records. It may run beside the process
// writing dir (it then sees a prefix of the log).
func Scan(dir string, fn func(Result) error) error {
	d, err := safedir.Open(dir)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer d.Close()
	segs, err := listSegments(d)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	for _, n := range segs {
		if _, err := scanSegment(d, n, 0, func(r Result, _ pos) error { return fn(r) }); err != nil {
			return fmt.Errorf("history: %w", err)
		}
	}
	return nil
}
