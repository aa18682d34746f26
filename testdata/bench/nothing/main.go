// Command nothing is the SDK-workload benchmarks' floor: a do-nothing engine
// that reads each request line and writes a canned answer of the engine's own
// size, with the request's id put in. What it costs is the pipe, the line
// framing and the process wake-ups, which every engine pays.
//
//	nothing ANSWER_FILE [BUSY]
//
// ANSWER_FILE holds one answer line with the id written as "id":0; the first
// line read (initialize) is answered the same way. With BUSY (a Go duration),
// it spins that long on the CPU before each answer: the floor of an engine
// whose work per request takes that long.

package main

import (
	"bufio"
	"bytes"
	"os"
	"time"
)

func main() {
	canned, err := os.ReadFile(os.Args[1])
	if err != nil {
		os.Exit(2)
	}
	var busy time.Duration
	if len(os.Args) > 2 {
		if busy, err = time.ParseDuration(os.Args[2]); err != nil {
			os.Exit(2)
		}
	}
	canned = bytes.TrimRight(canned, "\n")
	head, tail, ok := bytes.Cut(canned, []byte(`"id":0`))
	if !ok {
		os.Exit(2)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<16)
	out := bufio.NewWriterSize(os.Stdout, 1<<16)
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			out.Flush()
			return
		}
		for start := time.Now(); time.Since(start) < busy; {
		}
		out.Write(head)
		out.WriteString(`"id":`)
		out.Write(requestID(line))
		out.Write(tail)
		out.WriteByte('\n')
		// Flush when no further input is buffered: the client waits on us.
		if in.Buffered() == 0 {
			out.Flush()
		}
	}
}

// requestID returns the raw id token of a compact request line (up to the
// next comma), or 0 when there is none.
func requestID(line []byte) []byte {
	_, rest, ok := bytes.Cut(line, []byte(`"id":`))
	if !ok {
		return []byte("0")
	}
	if i := bytes.IndexByte(rest, ','); i >= 0 {
		return rest[:i]
	}
	return []byte("0")
}
