// doc.go: the package documentation: what the protocol server does and what it leaves to other packages.

// Package rpc serves the Attest protocol (spec §1–§2): JSON-RPC 2.0 over
// stdio, one compact JSON object per line.
//
// Each line is parsed once, into a tape (package tape): the envelope and
// evaluate_batch's params are read from it in place, and a request keeps
// it until its answer is written. The read loop handles the session methods
// (initialize, shutdown) in order, so a pipelined stream behaves as if sent
// one request at a time. evaluate_batch is answered by the read loop itself
// when the SDK waits on it alone; pipelined, in groups of the lines
// buffered together, by the read loop and a helper per further processor
// (group.go); with a layer 5–6 assertion, on its own goroutine. At most
// MaxInFlight are in flight at once, each until its answer is written: the
// 65th waits, and so does the reading (spec §1.5). Each response is written
// whole, when it is ready or shortly after, to share a write with others
// (framing.go), so answers may come out of order; nothing is ever written
// unasked.
//
// The package is the protocol only: framing, the envelope, session state,
// the methods, concurrency, and the mapping of errors to wire codes.
// The evaluation itself is assert's (assert.Engine.Run, shared with the
// eval command); reports are written by the program (main.go, package
// report) from the results Server.RecordTo hands it as they are recorded. rpc imports neither net/http
// nor encoding/xml.
package rpc
