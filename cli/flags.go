// flags.go: flag parsing as every command does it: -h, duration flags, --offline, --log-level.

package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"attest-engine/assert"
	"attest-engine/logsink"
)

// Parse parses args with fs (built with flag.ContinueOnError, its output
// stderr). ok is false when the command must end, with code its exit
// status: 0 for -h or --help (the usage was printed: asked for, it is not
// an error), 2 for a bad flag (flag has said why).
func Parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}

// ParseDuration reads a duration flag's value: a Go duration ("30s",
// "1m30s") or a bare whole number of milliseconds ("30000", as the SDKs
// pass --eval-timeout). It must be positive; name is the flag's, for the
// message.
func ParseDuration(name, s string) (time.Duration, error) {
	text := s
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil {
		if ms <= 0 {
			return 0, fmt.Errorf("--%s must be positive", name)
		}
		text += "ms" // ParseDuration rejects a count that overflows a Duration
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("--%s %q: want a positive Go duration (30s) or milliseconds (30000)", name, s)
	}
	return d, nil
}

// duration is a flag.Value read by ParseDuration.
type duration struct {
	name string
	d    *time.Duration
}

func (v duration) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v duration) Set(s string) error {
	d, err := ParseDuration(v.name, s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}

// DurationVar defines a duration flag read by ParseDuration.
func DurationVar(fs *flag.FlagSet, p *time.Duration, name string, value time.Duration, usage string) {
	*p = value
	fs.Var(duration{name, p}, name, usage+": a Go duration (30s) or milliseconds (30000)")
}

// OfflineUsage is --offline's help text, the same for every command that
// takes a config.
const OfflineUsage = "make no network call at all: provider and simulated-user results come from cache_dir, a miss is an error"

// OfflineVar defines --offline (config "offline": true, package provider).
func OfflineVar(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "offline", false, OfflineUsage)
}

// LogLevelVar defines --log-level, read by ParseLevel.
func LogLevelVar(fs *flag.FlagSet, p *string) {
	fs.StringVar(p, "log-level", "info", "log level: debug, info, warn or error")
}

// ParseLevel reads --log-level.
func ParseLevel(s string) (slog.Level, error) {
	switch strings.ToLower(s) {
	case "debug":
		return slog.LevelDebug, nil
	case "info":
		return slog.LevelInfo, nil
	case "warn", "warning":
		return slog.LevelWarn, nil
	case "error":
		return slog.LevelError, nil
	}
	return 0, fmt.Errorf("--log-level %q: want debug, info, warn or error", s)
}

// NewLogger writes the spec's log lines (§1.3) to w:
// {"level","ts","logger":"engine","msg",...}.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(logsink.NewHandler(w, level, "engine"))
}

// LoadConfig reads the config file at path ("" for none: every default),
// with --offline (offline) making it "offline": true whatever the file
// says.
func LoadConfig(path string, offline bool) (assert.Config, error) {
	var cfg assert.Config
	if path != "" {
		var err error
		if cfg, err = assert.LoadConfig(path); err != nil {
			return cfg, err
		}
	}
	cfg.Offline = cfg.Offline || offline
	return cfg, nil
}

// LoadEngine is LoadConfig, and the evaluation engine built from the
// config. The server, eval and watch commands build theirs so; each shows
// engine.Warnings() its own way.
func LoadEngine(path string, offline bool) (*assert.Engine, assert.Config, error) {
	cfg, err := LoadConfig(path, offline)
	if err != nil {
		return nil, cfg, err
	}
	engine, err := assert.New(cfg)
	return engine, cfg, err
}

// FlushLogs bounds how long a command's exit waits for its queued log lines
// (package logsink): stderr may never be read.
const FlushLogs = 100 * time.Millisecond

// NewFlagSet is a command's flag set: parse errors and the usage go to
// stderr, and the usage is the text usage followed by the flags' defaults.
func NewFlagSet(name, usage string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	return fs
}
