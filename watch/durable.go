// durable.go: what --state-dir adds to the input so that what is read (or
// answered 200) is judged and counted exactly once across crashes: the
// ledger of unsettled items, the input checkpoint, and the torn tail of
// the result file cut.

package watch

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"attest-engine/ingest"
	"attest-engine/safedir"
	"attest-engine/spool"
)

type durable struct {
	c    *command
	led  *ledger
	file *os.File // --in FILE: checkpointed; nil for stdin and --listen
	base int64    // the offset reading started at
	mark int64    // the watermark there
	// resumed: --in goes on from its checkpoint, numbering its items as
	// the reads before did.
	resumed bool
	dir     *safedir.Dir
	// borrowed: dir is the history's (closed by it)
	borrowed bool
	// spool holds what --listen answered 200 until it is settled.
	spool *spool.Spool

	mu      sync.Mutex
	written uint64 // Seq of the last checkpoint written (+1), 0 for none
	warned  bool
}

// resume reads the checkpoint and, when it is a position in the input
// file, starts reading there.
func (d *durable) resume(f *os.File) error {
	c := d.c
	if f == nil {
		c.log.Info("--in -: no input checkpoint for stdin; the history still refuses results it holds")
		return nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		c.log.Info("--in is not a regular file: no input checkpoint; the history still refuses results it holds")
		return nil
	}
	if err := d.openDir(); err != nil {
		return err
	}
	d.dir.RemoveTemps(checkpointFile) // under the history's lock: no write in flight
	if names, err := d.dir.Names(); err == nil {
		for _, n := range names {
			if fi, err := d.dir.Lstat(n); err == nil && strings.HasPrefix(n, "spool-") && fi.Size() > 8 { // more than its header
				c.log.Warn("--state-dir holds a --listen spool: requests it holds are replayed only by watch --listen with this dir", "file", n)
				break
			}
		}
	}
	cp, err := readCheckpoint(d.dir)
	switch {
	case err != nil:
		c.log.Warn("input checkpoint unreadable: reading --in from its start (the history refuses results it holds)", "error", err.Error())
	case cp == nil:
	default:
		if cp.Suite != d.suiteKey() {
			c.log.Info("input checkpoint is for another suite or engine version: reading --in from its start (the history replaces those verdicts)")
			break
		}
		if ok, why := cp.resumes(f); !ok {
			c.log.Info("input checkpoint is not for this file: reading --in from its start", "why", why, "checkpoint_path", cp.Path)
			break
		}
		if _, err := f.Seek(cp.Offset, io.SeekStart); err != nil {
			return fmt.Errorf("--in: %v", err)
		}
		d.base, d.mark, d.resumed = cp.Offset, cp.Mark, true
		c.stats.lines = int(cp.Seq)
		d.written = cp.Seq + 1
		c.log.Info("resuming --in from its checkpoint", "item", cp.Seq+1, "offset", cp.Offset)
	}
	d.file = f
	d.led = newLedger(uint64(c.stats.lines)+1, d.base, d.mark)
	if !d.resumed {
		// Read from its start: the file is named at once, so that a
		// restart before the first periodic checkpoint goes on in this
		// read's numbering (attach) rather than from the start again.
		d.checkpoint()
	}
	return nil
}

// openDir opens the state dir for the files this package keeps there: the
// directory the history opened, checked private and locked, when the
// recorder has it (the path may name another directory by now), else the
// path.
func (d *durable) openDir() error {
	if d.dir != nil {
		return nil
	}
	if r, ok := d.c.rec.(interface{ StateDir() *safedir.Dir }); ok {
		if dir := r.StateDir(); dir != nil {
			d.dir, d.borrowed = dir, true
			return nil
		}
	}
	dir, err := safedir.Open(d.c.o.history.Dir)
	if err != nil {
		return fmt.Errorf("--state-dir: %v", err)
	}
	d.dir = dir
	return nil
}

// close releases the spool and the state dir.
func (d *durable) close() {
	if d.spool != nil {
		d.spool.Close()
	}
	if d.dir != nil && !d.borrowed {
		d.dir.Close()
	}
}

// suiteKey names what the input is read for: the suite and the engine.
func (d *durable) suiteKey() string { return d.c.suite.Hash + " " + d.c.ev.version }

// attach wires the feed to the ledger and, when the input goes on where
// an earlier read left it (a resumed --in, the spool of --listen), to the
// history's verdicts. A verdict's Through is an input position of the
// read that gave it: it tells which spans were judged only in the same
// numbering. Read from its start (no checkpoint, another file, stdin), the
// input may hold the same spans at other positions, which would read as
// late spans of traces judged whole; there every trace is evaluated again,
// and the history refuses the results it holds by result_id.
func (d *durable) attach(feed *ingest.Feed) {
	c := d.c
	if d.led != nil {
		feed.OnSettle(d.led.settle)
		feed.SetMark(d.mark)
	}
	v, ok := c.rec.(Verdicts)
	if !ok || len(c.suite.Assertions) == 0 || (!d.resumed && d.spool == nil) {
		return
	}
	last, lastKey := d.lastAssertion()
	feed.KnownBy(func(traceID string) (ingest.Prior, bool) {
		rid, through, spans, ok := v.Prior(traceID, lastKey)
		if !ok {
			return ingest.Prior{}, false
		}
		// A verdict of this suite and engine version only: the same traces
		// judged by another suite into the same dir are judged anew.
		base := resultID(traceID, last, c.suite.Hash, c.ev.version)
		switch rid {
		case base:
			return ingest.Prior{Through: through, Spans: spans, First: true}, true
		case revisionID(base, spans):
			return ingest.Prior{Through: through, Spans: spans}, true
		}
		return ingest.Prior{}, false
	})
}

// judged reports whether t is a whole trace whose verdict the history
// holds from this very input item (read again after a restart): its lines
// were written, so it is not evaluated again. The same trace on another
// line is evaluated (and the history refuses its results).
func (d *durable) judged(t ingest.Trace) bool {
	if d == nil || t.Doc == nil || t.Err != nil || t.Through == 0 || len(d.c.suite.Assertions) == 0 {
		return false
	}
	v, ok := d.c.rec.(Verdicts)
	if !ok {
		return false
	}
	last, lastKey := d.lastAssertion()
	rid, through, _, ok := v.Prior(t.ID, lastKey)
	return ok && through == t.Through && rid == resultID(t.ID, last, d.c.suite.Hash, d.c.ev.version)
}

// lastAssertion is the assertion (its id and its key, under which the
// history records it) whose verdict tells that the history holds a
// trace's: a trace's results are recorded in suite order with one write
// call, and a write cut short by a crash leaves a prefix of them (the
// log's recovery cuts the torn frame), so the last one's presence means
// all of them are there; the first one's did not.
func (d *durable) lastAssertion() (id, key string) {
	as := d.c.suite.Assertions
	return as[len(as)-1].ID, d.c.suite.Keys[len(as)-1]
}

// item counts an item's spans (or its trace) in the ledger. The chunks of
// one line or request share a Seq: the first holds the item unsettled
// (one more) until the last is counted (ledger.more).
func (d *durable) item(it ingest.Item) {
	if d.led == nil {
		return
	}
	n := len(it.Spans)
	if it.Trace != nil {
		n = 1
	}
	switch {
	case it.Part == 0 && it.More:
		d.led.add(it.Seq, n+1)
	case it.Part == 0:
		d.led.add(it.Seq, n)
	case it.More:
		d.led.more(it.Seq, n)
	default:
		d.led.more(it.Seq, n-1)
	}
}

// read notes where an item ended.
func (d *durable) read(it ingest.Item, mark int64) {
	if d.led != nil {
		d.led.read(d.base+it.End, mark)
	}
}

// start writes the input checkpoint every --checkpoint-every while it
// moves (and releases the spool): what a restart reads again is at most
// what was read in that time plus what was still held. The function
// returned stops that and writes the last one.
func (d *durable) start() func() {
	if d.file == nil && d.spool == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(d.c.o.checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				d.checkpoint()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
		d.checkpoint()
	}
}

// checkpoint writes the first unsettled item's position, when it moved;
// with a spool, it releases what is settled.
func (d *durable) checkpoint() {
	d.mu.Lock()
	defer d.mu.Unlock()
	seq, start, mark := d.led.low()
	if d.spool != nil {
		if err := d.spool.Release(seq); err != nil && !d.warned {
			d.c.log.Warn("spool: releasing settled requests failed", "error", err.Error())
			d.warned = true
		}
		return
	}
	if seq == d.written {
		return
	}
	dev, ino, fp, n, err := identity(d.file)
	if err == nil {
		abs, _ := filepath.Abs(d.c.o.in)
		err = writeCheckpoint(d.dir, checkpoint{Version: 1, Path: abs, Suite: d.suiteKey(), Dev: dev, Inode: ino, Fingerprint: fp,
			FingerBytes: n, Offset: start, Seq: seq - 1, Mark: mark}, d.c.o.history.Fsync == "always")
	}
	if err != nil {
		if !d.warned {
			d.c.log.Warn("writing the input checkpoint failed; a restart reads again from the last one written", "error", err.Error())
			d.warned = true
		}
		return
	}
	d.written = seq
}

// maxTornLine bounds where the result file's torn last line is looked for.
const maxTornLine = 1 << 20

// cutTornLine cuts a last line without its newline off the result file: a
// write cut short by a crash. The lines are written again after the
// restart, so that every line of the file stays one JSON object. A file
// whose last maxTornLine bytes hold no newline is left whole and a newline
// appended.
func cutTornLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return err
	}
	size := fi.Size()
	n := min(size, maxTornLine)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, size-n); err != nil && err != io.EOF {
		return err
	}
	if buf[n-1] == '\n' {
		return nil
	}
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 || n == size {
		return f.Truncate(size - n + int64(i) + 1)
	}
	_, err = f.Write([]byte{'\n'})
	return err
}
