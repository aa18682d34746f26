// flags_test.go: duration flags, -h and bad flags, log levels.

package cli

import (
	"flag"
	"io"
	"testing"
	"time"
)

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in     string
		want   time.Duration // 0: an error
		reason string
	}{
		{"30s", 30 * time.Second, "a Go duration"},
		{"30000", 30 * time.Second, "a bare number is milliseconds"},
		{"9223372036854", 9223372036854 * time.Millisecond, "the largest count of milliseconds a Duration holds"},
		{"9223372036855", 0, "one more overflowed to a negative Duration"},
		{"18446744073709552", 0, "this one wrapped to 384µs, an instant timeout"},
		{"0", 0, "zero is not a time limit"},
		{"0s", 0, "nor as a duration"},
		{"-5", 0, "nor is a negative count"},
		{"-1s", 0, "nor a negative duration"},
		{"soon", 0, "neither a duration nor a number"},
	}
	for _, tc := range tests {
		got, err := ParseDuration("eval-timeout", tc.in)
		if (err != nil) != (tc.want == 0) || got != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v: %s", tc.in, got, err, tc.want, tc.reason)
		}
	}
}

// TestDurationVar: a duration flag takes what ParseDuration takes, and its
// default stands when the flag is not given.
func TestDurationVar(t *testing.T) {
	tests := []struct {
		args []string
		want time.Duration
		ok   bool
	}{
		{nil, 5 * time.Second, true},
		{[]string{"--d", "30000"}, 30 * time.Second, true},
		{[]string{"--d=2m"}, 2 * time.Minute, true},
		{[]string{"--d", "0"}, 0, false},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var d time.Duration
		DurationVar(fs, &d, "d", 5*time.Second, "a time")
		_, ok := Parse(fs, tc.args)
		if ok != tc.ok || (ok && d != tc.want) {
			t.Errorf("%q: %v, ok %v; want %v, ok %v", tc.args, d, ok, tc.want, tc.ok)
		}
	}
}

// TestParse: -h and --help print the usage and exit 0 (asked for, it is
// not an error); a bad flag or value exits 2.
func TestParse(t *testing.T) {
	tests := []struct {
		args []string
		code int
		ok   bool
	}{
		{[]string{"-h"}, 0, false},
		{[]string{"--help"}, 0, false},
		{[]string{"--bogus"}, 2, false},
		{[]string{"--n", "x"}, 2, false},
		{[]string{"--n", "3", "rest"}, 0, true},
	}
	for _, tc := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 0, "a number")
		if code, ok := Parse(fs, tc.args); code != tc.code || ok != tc.ok {
			t.Errorf("Parse(%q) = %d, %v; want %d, %v", tc.args, code, ok, tc.code, tc.ok)
		}
	}
}
