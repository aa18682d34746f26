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

// checkers check a request body by its spool encoding (the listener's
// encodings: traces or logs, protobuf or JSON).
var checkers = map[byte]func([]byte, int) (*ingest.Request, error){spool.Protobuf: ingest.CheckOTLPProto,
	spool.JSON: ingest.CheckOTLP, spool.LogsProtobuf: ingest.CheckOTLPLogsProto, spool.LogsJSON: ingest.CheckOTLPLogs}

// take acknowledges a checked request: with a spool its body is appended
// first (under spoolMu, so that the spool's order is the hand-off's, in
// which the ledger counts items), then it is queued for the pipeline. It
// says what to answer: 0 for 200, else 503 and why (the spool full or
// unwritable, or the engine shutting down: nothing of the request is kept,
// and a client's retry is not held twice).
func (c *command) take(req *ingest.Request, held int64, enc byte, body []byte) (int, string) {
	var sp *spool.Spool
	if c.dur != nil {
		sp = c.dur.spool
	}
	if sp == nil {
		if !c.handoff.push(takenReq{req: req, held: held}) {
			return http.StatusServiceUnavailable, "shutting down"
		}
		return 0, ""
	}
	c.spoolMu.Lock()
	defer c.spoolMu.Unlock()
	if c.handoff.closing() {
		return http.StatusServiceUnavailable, "shutting down"
	}
	seq, err := sp.Append(enc, body)
	if errors.Is(err, spool.ErrFull) {
		return http.StatusServiceUnavailable, fmt.Sprintf("the spool in --state-dir is full (%d bytes held until what they hold is evaluated): retry later", sp.Bytes())
	}
	if err != nil {
		c.log.Error("spooling a request failed: answered 503", "error", err.Error())
		return http.StatusServiceUnavailable, "the spool in --state-dir cannot be written: retry later"
	}
	if !c.handoff.push(takenReq{req: req, held: held, seq: seq}) {
		if err := sp.Undo(seq); err != nil {
			c.log.Error("taking back a spooled request failed: it will be evaluated after a restart", "error", err.Error())
		}
		return http.StatusServiceUnavailable, "shutting down"
	}
	return 0, ""
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
		d.c.log.Warn("spool: damaged frames were skipped; the requests they held are lost, those after them are replayed", "where", sp.Corrupt)
	}
	if sp.TornBytes > 0 {
		d.c.log.Info("spool: a request torn by a crash was cut (it was never answered 200)", "bytes", sp.TornBytes)
	}
	d.spool = sp
	d.led = newLedger(sp.First(), 0, 0)
	return nil
}

// replaySpool hands the spooled requests to the pipeline, in order, before
// any new one is taken: they were answered 200 and may not have been
// evaluated. Each is decoded chunk by chunk as a new request is (the
// hand-off's queue), so a spool of large requests replays within the same
// memory.
func (c *command) replaySpool(stop context.Context) error {
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
		check := checkers[r.Encoding]
		if check == nil {
			check = ingest.CheckOTLP // the spool reads no other encoding
		}
		req, err := check(r.Body, c.chunk)
		if err != nil {
			// It decoded when it was taken: a parser that changed since.
			c.log.Warn("spool: a spooled request does not decode; skipped", "seq", r.Seq, "error", err.Error())
			req, _ = ingest.CheckOTLPProto(nil, c.chunk) // no spans: the ledger still counts the item
		}
		held := req.Held()
		if err := c.bodies.acquire(stop, held); err != nil {
			return err
		}
		if !c.handoff.push(takenReq{req: req, held: held, seq: r.Seq}) {
			c.bodies.release(held)
			return stop.Err()
		}
		return nil
	})
	if err != nil && stop.Err() == nil {
		return fmt.Errorf("--state-dir: spool replay: %v", err)
	}
	return nil
}
