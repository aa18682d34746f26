// Package serve is the engine's server command, `attest-engine [flags]`
// with no subcommand: the Attest protocol on stdin and stdout (package rpc),
// as the SDKs start it. It reads the server's flags and config, builds the
// evaluation engine, opens the result history (--state-dir) and the
// session's report (--report), and serves until stdin ends or a signal
// comes.
//
// Exit status: 0 when serving ended (whatever the session's answers were),
// 2 on bad flags, a bad config or a state dir that cannot be opened.
package serve
