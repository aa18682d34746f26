// sink.go: where alerts go: the NDJSON alert file, OnAlert, the webhook.

package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"attest-engine/safedir"
)

// emit hands alerts to every configured sink. It never blocks on the
// network: the webhook has its own bounded queue.
func (s *Store) emit(alerts []Alert) {
	for _, a := range alerts {
		if s.alertF != nil {
			line, _ := json.Marshal(a) // an Alert always marshals: finite numbers, valid strings
			s.writeAlertLine(append(line, '\n'))
		}
		if s.opts.OnAlert != nil {
			s.opts.OnAlert(a)
		}
		if s.hook != nil {
			s.hook.enqueue(a)
		}
	}
}

// writeAlertLine appends one line to the alert file. A failed write (a
// full disk) may have left part of the line: it is cut, so the next alert
// starts a line of its own.
func (s *Store) writeAlertLine(line []byte) {
	n, err := s.alertF.Write(line)
	if err == nil {
		s.alertSize += int64(n)
		return
	}
	s.opts.Logger.Error("history: alert file write failed", "err", err.Error())
	if n > 0 {
		s.alertF.Truncate(s.alertSize)
	}
}

// alertFile is the state dir's alert file.
const alertFile = "alerts.ndjson"

// maxAlertLine bounds where a torn alert line is looked for: an alert's
// line is far shorter (its strings are bounded by MaxField).
const maxAlertLine = 1 << 20

// openAlertFile opens the NDJSON alert file for appending and returns it
// with its length. A last line without its newline was torn by a crash (a
// write cut short by SIGKILL or a full disk): it is cut off, as the log's
// torn tail is, so that the next alert does not run on from it and every
// line stays one JSON object. A file whose last maxAlertLine bytes hold no
// newline is no torn alert: it is left whole and a newline appended.
//
// A named pipe is refused: opened read-write it opens at once, and once
// its buffer is full (no reader, or one that stalls) every alert written
// waits for a reader, holding the store's lock, and with it every result
// recorded: the engine would stop. OnAlert and the webhook stream alerts
// without that.
//
// The default, the state dir's alerts.ndjson (path ""), is opened through
// d: a link there is refused, never followed, and so is anything but a
// regular file with one link. Options.AlertFile is a path the caller
// chose, opened as named.
func openAlertFile(d *safedir.Dir, path string) (*os.File, int64, error) {
	var f *os.File
	var err error
	if path == "" {
		path = d.Join(alertFile)
		f, err = d.OpenFile(alertFile, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	} else {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	}
	if errors.Is(err, safedir.ErrNotRegular) {
		err = fmt.Errorf("%s is not a regular file (a named pipe? writes to it would wait for its reader, and stop the store: stream alerts with the webhook instead)", path)
	}
	if err != nil {
		return nil, 0, err
	}
	if fi, err := f.Stat(); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		f.Close()
		return nil, 0, fmt.Errorf("%s is a named pipe: writes to it would wait for its reader, and stop the store (stream alerts with the webhook instead)", path)
	}
	size, end, err := lastLineEnd(f)
	switch {
	case err != nil || end == size:
	case end >= 0:
		err = f.Truncate(end)
	default:
		_, err = f.Write([]byte{'\n'})
		end = size + 1
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, end, nil
}

// lastLineEnd returns f's size and the offset just after its last newline:
// 0 when it has none, -1 when its last maxAlertLine bytes have none.
func lastLineEnd(f *os.File) (size, end int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size = fi.Size()
	n := min(size, maxAlertLine)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return 0, 0, fmt.Errorf("read: %w", err)
	}
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		return size, size - n + int64(i) + 1, nil
	}
	if n < size {
		return size, -1, nil
	}
	return size, 0, nil
}
