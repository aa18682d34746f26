// spooled.go: --listen with --state-dir: a request is answered 200 only
// once its body is in the spool (package spool), in the order the pipeline
// takes it; the spool is replayed at start and released as what it holds
// is settled.

package watch

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"attest-engine/ingest"
	"attest-engine/spool"
)

// retryAfter is the Retry-After of a 503 (seconds): the spool full or the
// engine shutting down. OTLP/HTTP clients retry 503 and honour it.
const retryAfter = "2"

// delivered is deliver's answer when the client went away: nothing to say.
const delivered = -1

// deliver hands a request's spans to the pipeline and says what to answer:
// 0 for 200, delivered when the client is gone, else an HTTP status and
// message. With a spool the body is appended first, under spoolMu so that
// the spool's order is the pipeline's, and cut off again when the pipeline
// does not take it: an answer other than 200 leaves nothing spooled, and a
// client's retry is not held twice.
func (c *command) deliver(stop, req context.Context, items chan<- ingest.Item, spans []ingest.Span, protobuf bool, body []byte) (int, string) {
	c.taking.RLock()
	defer c.taking.RUnlock()
	if c.stopped {
		return http.StatusServiceUnavailable, "shutting down"
	}
	var sp *spool.Spool
	if c.dur != nil {
		sp = c.dur.spool
	}
	it := ingest.Item{Spans: spans}
	if sp != nil {
		c.spoolMu.Lock()
		defer c.spoolMu.Unlock()
		enc := spool.JSON
		if protobuf {
			enc = spool.Protobuf
		}
		seq, err := sp.Append(enc, body)
		if errors.Is(err, spool.ErrFull) {
			return http.StatusServiceUnavailable, fmt.Sprintf("the spool in --state-dir is full (%d bytes held until what they hold is evaluated): retry later", sp.Bytes())
		}
		if err != nil {
			c.log.Error("spooling a request failed: answered 503", "error", err.Error())
			return http.StatusServiceUnavailable, "the spool in --state-dir cannot be written: retry later"
		}
		it.Seq = seq
		undo := func() {
			if err := sp.Undo(seq); err != nil {
				c.log.Error("taking back a spooled request failed: it will be evaluated after a restart", "error", err.Error())
			}
		}
		select {
		case items <- it:
			return 0, ""
		case <-req.Done():
			undo()
			return delivered, ""
		case <-stop.Done():
			undo()
			return http.StatusServiceUnavailable, "shutting down"
		}
	}
	select {
	case items <- it:
		return 0, ""
	case <-req.Done():
		return delivered, ""
	case <-stop.Done():
		return http.StatusServiceUnavailable, "shutting down"
	}
}

// stopTaking makes deliver refuse requests from now on (503), once every
// request it is handing over has been taken or refused: the source calls
// it when it stops, before its last read of items, so that a request
// answered 200 is never left in items unread. A deliver waiting for the
// pipeline sees stop done and returns at once.
func (c *command) stopTaking() {
	c.taking.Lock()
	c.stopped = true
	c.taking.Unlock()
}

// openSpool opens the spool in the state dir and starts the ledger at its
// first request.
func (d *durable) openSpool() error {
	if err := d.openDir(); err != nil {
		return err
	}
	sp, err := spool.Open(d.dir, spool.Options{MaxBytes: d.c.o.maxSpool, MaxBody: d.c.o.maxLine, Sync: d.c.o.history.Fsync == "always"})
	if err != nil {
		return fmt.Errorf("--state-dir: %v", err)
	}
	if len(sp.Corrupt) > 0 {
		d.c.log.Warn("spool: corrupt frames in sealed segments; their later requests are lost", "where", sp.Corrupt)
	}
	if sp.TornBytes > 0 {
		d.c.log.Info("spool: a request torn by a crash was cut (it was never answered 200)", "bytes", sp.TornBytes)
	}
	d.spool = sp
	d.led = newLedger(sp.First(), 0, 0)
	return nil
}

// replaySpool feeds the spooled requests to the pipeline, in order, before
// any new one is taken: they were answered 200 and may not have been
// evaluated.
func (c *command) replaySpool(stop context.Context, items chan<- ingest.Item) error {
	if c.dur == nil || c.dur.spool == nil {
		return nil
	}
	sp := c.dur.spool
	first, next := sp.First(), sp.Next()
	if first == next {
		return nil
	}
	c.log.Info("spool: replaying requests answered 200 before a restart", "requests", next-first)
	err := sp.Replay(func(r spool.Record) error {
		parse := ingest.ParseOTLP
		if r.Encoding == spool.Protobuf {
			parse = ingest.ParseOTLPProto
		}
		spans, err := parse(r.Body)
		if err != nil {
			// It decoded when it was taken: a parser that changed since.
			c.log.Warn("spool: a spooled request does not decode; skipped", "seq", r.Seq, "error", err.Error())
		}
		select {
		case items <- ingest.Item{Spans: spans, Seq: r.Seq}:
			return nil
		case <-stop.Done():
			return stop.Err()
		}
	})
	if err != nil && stop.Err() == nil {
		return fmt.Errorf("--state-dir: spool replay: %v", err)
	}
	return nil
}
