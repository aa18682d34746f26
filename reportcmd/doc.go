// Package reportcmd is `attest-engine report --state-dir DIR --html FILE`:
// the HTML history page of a state dir (package history's series drawn by
// package report). The package is not named report: that name is the
// results model and its writers, which this command uses.
//
// Exit status: 0 written, 1 the dir could not be read or the page not
// written, 2 usage.
package reportcmd
