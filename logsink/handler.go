// handler.go: the spec's log line (§1.3) as a slog.Handler: level, ts, logger and msg first, in that order.

package logsink

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// Handler writes one JSON object per record in the order spec §1.3 shows,
//
//	{"level":"info","ts":"2026-02-18T10:30:00.000Z","logger":"engine","msg":"evaluation complete","trace_id":"trc_abc123","duration_ms":142}
//
// then the record's attributes as slog's JSON handler writes them (its
// encoding of every kind of value, groups and LogValuers included). slog's
// own handler puts time, level and msg first, and an attribute such as
// logger only after msg. Attributes named level, ts, logger, msg or time
// at the top are dropped: the first four are the line's own (a second
// member of the same name would make the line's JSON ambiguous), and
// slog's time is ts.
type Handler struct {
	w      io.Writer
	level  slog.Leveler
	logger string
	// with is what WithAttrs and WithGroup were given, in order, replayed
	// on the attribute encoder for every record.
	with []with
	mu   *sync.Mutex // one Write per line, lines never interleaved
}

// NewHandler returns a Handler writing records of level and above to w,
// each naming logger.
func NewHandler(w io.Writer, level slog.Leveler, logger string) *Handler {
	return &Handler{w: w, level: level, logger: logger, mu: new(sync.Mutex)}
}

func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	var b bytes.Buffer
	b.WriteString(`{"level":`)
	writeJSON(&b, strings.ToLower(r.Level.String()))
	b.WriteString(`,"ts":"`)
	b.WriteString(r.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	b.WriteString(`","logger":`)
	writeJSON(&b, h.logger)
	b.WriteString(`,"msg":`)
	writeJSON(&b, r.Message)
	// The attributes, encoded by slog's JSON handler with its own keys
	// dropped: {"k":v,…}\n or {}\n.
	var rest bytes.Buffer
	var enc slog.Handler = slog.NewJSONHandler(&rest, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 {
				switch a.Key {
				case slog.TimeKey, slog.LevelKey, slog.MessageKey, "ts", "logger":
					return slog.Attr{}
				}
			}
			return a
		},
	})
	for _, w := range h.with {
		if w.group != "" {
			enc = enc.WithGroup(w.group)
		} else {
			enc = enc.WithAttrs(w.attrs)
		}
	}
	attrs := slog.NewRecord(r.Time, r.Level, "", 0)
	r.Attrs(func(a slog.Attr) bool { attrs.AddAttrs(a); return true })
	if err := enc.Handle(context.Background(), attrs); err != nil {
		return err
	}
	if more := bytes.TrimPrefix(rest.Bytes(), []byte("{")); len(more) > 0 && more[0] != '}' {
		b.WriteByte(',')
		b.Write(more)
	} else {
		b.WriteString("}\n")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := h.w.Write(b.Bytes())
	return err
}

// with is one call of WithAttrs (attrs) or WithGroup (group).
type with struct {
	attrs []slog.Attr
	group string
}

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	c := *h
	c.with = append(h.with[:len(h.with):len(h.with)], with{attrs: as})
	return &c
}

func (h *Handler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	c := *h
	c.with = append(h.with[:len(h.with):len(h.with)], with{group: name})
	return &c
}

func writeJSON(b *bytes.Buffer, s string) {
	q, _ := json.Marshal(s) // a string always encodes
	b.Write(q)
}
