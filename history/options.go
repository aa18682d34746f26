// options.go: what a Store is opened with, and the defaults.

package history

import (
	"log/slog"
	"time"
)

// Defaults of Options.
const (
	DefaultWindowTraces = 20
	DefaultSyncEvery    = time.Second
	DefaultSegmentBytes = 64 << 20
	DefaultMaxBytes     = 1 << 30
	DefaultMaxAge       = 30 * 24 * time.Hour
	DefaultMaxKeys      = 1024
	DefaultMaxWindows   = 8192
)

// Options configure a Store. Zero fields take the defaults.
type Options struct {
	// Sync: default SyncNever. A process crash (SIGKILL included) loses
	// nothing under any policy; the policy decides what recent records a
	// power loss can take (summaries.json is synced under every policy).
	// SyncInterval's fsync, once a second, stalled the appends behind it on
	// a contended disk (doc.go, "Performance"), and history is a drift
	// signal, not a system of record.
	Sync      SyncPolicy
	SyncEvery time.Duration // for SyncInterval; default 1s
	// SegmentBytes: the log rolls to a new segment file past this size.
	SegmentBytes int64
	// MaxBytes and MaxAge bound the log: sealed segments are removed,
	// oldest first, while the log is larger than MaxBytes or a segment was
	// last written more than MaxAge ago. Negative disables a bound.
	MaxBytes int64
	MaxAge   time.Duration
	// WindowTraces: count windows of this many traces, by Result.Seq (the
	// default, 20). WindowDuration > 0 selects time windows by
	// Result.Timestamp instead. A state dir keeps the windowing it was
	// created with; Open with another is an error.
	WindowTraces   int
	WindowDuration time.Duration
	// WindowRuns makes each window one run of a suite: Result.Seq is the
	// run's number (a server session's: Store.LastRun + 1), so a key's
	// windows are its CI runs (WindowTraces is then 1).
	WindowRuns bool
	// AdoptWindowing opens an existing dir with the windowing it was
	// created with, whatever the options ask; they apply to a new dir only.
	AdoptWindowing bool
	// MaxKeys bounds the assertions summarized (default 1024): results of
	// further keys are logged but not summarized. MaxWindows bounds each
	// key's windows (default 8192).
	MaxKeys    int
	MaxWindows int
	// Verdicts bounds the verdict index (doc.go, "Verdicts"): a result id
	// among the last Verdicts recorded is refused, and a new verdict for
	// one of their (trace, assertion)s replaces the old. Default
	// DefaultVerdicts; negative turns the index off.
	Verdicts int
	Drift    DriftConfig
	// AlertFile receives one JSON line per alert; default
	// <dir>/alerts.ndjson. NoAlertFile turns it off.
	AlertFile   string
	NoAlertFile bool
	// Webhook, when set, also receives every alert (sink.go).
	Webhook *WebhookConfig
	// OnAlert, when set, is called with every alert, under the store's
	// lock: it must not block.
	OnAlert func(Alert)
	Logger  *slog.Logger
	Now     func() time.Time // clock for retention and time windows; default time.Now
}

func (o Options) withDefaults() Options {
	if o.Sync == 0 {
		o.Sync = SyncNever
	}
	if o.SyncEvery <= 0 {
		o.SyncEvery = DefaultSyncEvery
	}
	if o.SegmentBytes <= 0 {
		o.SegmentBytes = DefaultSegmentBytes
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxAge == 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.WindowRuns {
		o.WindowTraces, o.WindowDuration = 1, 0
	}
	if o.WindowTraces <= 0 {
		o.WindowTraces = DefaultWindowTraces
	}
	if o.MaxKeys <= 0 {
		o.MaxKeys = DefaultMaxKeys
	}
	if o.Verdicts == 0 {
		o.Verdicts = DefaultVerdicts
	}
	if o.MaxWindows <= 0 {
		o.MaxWindows = DefaultMaxWindows
	}
	o.Drift = o.Drift.withDefaults()
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}
