// handler_test.go: Handler writes spec §1.3's key order, and every value as slog's JSON handler would.

package logsink

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestHandler(t *testing.T) {
	ts := time.Date(2026, 2, 18, 10, 30, 0, 0, time.UTC)
	tests := []struct {
		name string
		log  func(l *slog.Logger)
		want string
	}{
		{"spec example", func(l *slog.Logger) {
			l.Info("evaluation complete", "trace_id", "trc_abc123", "duration_ms", 142)
		}, `{"level":"info","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"evaluation complete","trace_id":"trc_abc123","duration_ms":142}`},
		{"no attributes", func(l *slog.Logger) { l.Warn("terminating") },
			`{"level":"warn","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"terminating"}`},
		{"values of every kind", func(l *slog.Logger) {
			l.Error("a \"quoted\"\nmsg", "err", errors.New("boom"), "ok", true, "f", 0.5, "d", time.Second, "s", []string{"a"})
		}, `{"level":"error","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"a \"quoted\"\nmsg","err":"boom","ok":true,"f":0.5,"d":1000000000,"s":["a"]}`},
		{"with and groups", func(l *slog.Logger) {
			l.With("session", 2).WithGroup("req").With("id", "7").Debug("read", "bytes", 10)
		}, `{"level":"debug","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"read","session":2,"req":{"id":"7","bytes":10}}`},
		{"the line's own names", func(l *slog.Logger) { l.Info("x", "level", "fake", "msg", "fake", "n", 1) },
			`{"level":"info","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"x","n":1}`},
		{"ts and logger are the line's own too", func(l *slog.Logger) { l.With("logger", "w").Info("x", "ts", "t", "n", 1) },
			`{"level":"info","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"x","n":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			l := slog.New(fixedTime{NewHandler(&out, slog.LevelDebug, "engine"), ts})
			tc.log(l)
			if diff := cmp.Diff(tc.want+"\n", out.String()); diff != "" {
				t.Errorf("line (-want +got):\n%s", diff)
			}
		})
	}
}

func TestHandlerLevel(t *testing.T) {
	var out bytes.Buffer
	l := slog.New(NewHandler(&out, slog.LevelWarn, "engine"))
	l.Info("hidden")
	l.Warn("shown")
	if got := strings.Count(out.String(), "\n"); got != 1 || !strings.Contains(out.String(), `"msg":"shown"`) {
		t.Errorf("at warn, wrote %q", out.String())
	}
}

// fixedTime sets every record's time, so lines can be compared whole.
type fixedTime struct {
	slog.Handler
	at time.Time
}

func (f fixedTime) Handle(ctx context.Context, r slog.Record) error {
	r.Time = f.at
	return f.Handler.Handle(ctx, r)
}

func (f fixedTime) WithAttrs(as []slog.Attr) slog.Handler {
	return fixedTime{f.Handler.WithAttrs(as), f.at}
}

func (f fixedTime) WithGroup(name string) slog.Handler {
	return fixedTime{f.Handler.WithGroup(name), f.at}
}
