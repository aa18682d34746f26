// readonly.go: a state dir opened for reading only, beside its writer: reports and charts.

package history

import (
	"errors"
	"time"
)

// ErrReadOnly is returned by Add on a Store from OpenReadOnly.
var ErrReadOnly = errors.New("history: the store is open for reading only")

// OpenReadOnly reads the state dir dir as it is now, changing nothing: its
// summaries, plus the log records after their checkpoint. It takes no lock,
// so it runs beside the process writing dir (a watch, a server) and sees
// the records written before it read them; a frame being written at that
// moment is left out, not cut. Keys, Series, Drift and Threshold answer
// from what was read; Add fails with ErrReadOnly and Close does nothing.
func OpenReadOnly(dir string) (*Store, error) {
	var snap *snapshot
	var rec Recovery
	var err error
	// A writer rolling its log while the dir is read may remove (retention)
	// a segment listed a moment before: read again from the new summaries.
	for range 3 {
		if snap, rec, err = loadRecovered(dir); err == nil {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	opts := Options{WindowTraces: int(snap.Window.Traces), WindowDuration: time.Duration(snap.Window.DurationNS), WindowRuns: snap.Window.Runs,
		MaxKeys: DefaultMaxKeys, NoAlertFile: true}.withDefaults()
	return &Store{dir: dir, opts: opts, readOnly: true, unlock: func() {}, meta: snap.meta, keys: snap.Keys, rec: rec}, nil
}
