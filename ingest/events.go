// events.go: the GenAI events of a span, as span events or log records joined to it, read into messages.

package ingest

// spanEvents are a span's events then the log records joined to it (in
// the order they arrived), joined once per trace.
func (m *mapper) spanEvents(i int) []Event {
	if m.events != nil && m.events[i] != nil {
		return m.events[i]
	}
	return m.spans[i].Events
}

// joinLogs sets each span's events with its log records after them.
func (m *mapper) joinLogs() {
	if len(m.logs) == 0 {
		return
	}
	m.events = make([][]Event, len(m.spans))
	for i := range m.spans {
		sp := &m.spans[i]
		if logs := m.logs[sp.SpanID]; len(logs) > 0 {
			m.events[i] = append(append(make([]Event, 0, len(sp.Events)+len(logs)), sp.Events...), logs...)
		}
	}
}

func delivery(e *Event) string {
	if e.Log {
		return delivLogs
	}
	return delivEvents
}

// eventFields are the fields of an event-per-message event: a log
// record's body, or a span event's attributes (a span event has no body;
// producers put the body's fields there).
func eventFields(e *Event) any {
	if e.Log {
		if e.Body != nil {
			return e.Body
		}
	}
	return e.Attrs
}

// evMsgs are a span's event-per-message messages (eventMessages).
type evMsgs struct {
	in, out []any
	deliv   string
}

// eventMsgs reads span i's event-per-message messages once.
func (m *mapper) eventMsgs(i int) evMsgs {
	if m.evCache == nil {
		m.evCache = map[int]evMsgs{}
	}
	if e, ok := m.evCache[i]; ok {
		return e
	}
	in, out, deliv := eventMessages(m.spanEvents(i))
	e := evMsgs{in, out, deliv}
	m.evCache[i] = e
	return e
}

// eventMessages reads the event-per-message events (gen_ai.system.message,
// gen_ai.user.message, gen_ai.assistant.message, gen_ai.tool.message: the
// input; gen_ai.choice: the output), in the order they came. deliv is the
// delivery of the first such event ("" when there is none).
func eventMessages(evs []Event) (in, out []any, deliv string) {
	for k := range evs {
		e := &evs[k]
		role, ok := eventRole[e.Name]
		if !ok {
			continue
		}
		if deliv == "" {
			deliv = delivery(e)
		}
		msg := normMessage(eventFields(e), role)
		if msg == nil {
			msg = map[string]any{"role": role, "parts": []any{}}
		}
		if e.Name == evChoice {
			out = append(out, msg)
		} else {
			in = append(in, msg)
		}
	}
	return in, out, deliv
}

// detailsAttr is an attribute of the operation-details event
// (gen_ai.client.inference.operation.details), which carries the span's
// attributes (the messages among them) apart from the span; its delivery.
func detailsAttr(evs []Event, name string) (any, string, bool) {
	for k := range evs {
		e := &evs[k]
		if e.Name != evDetails {
			continue
		}
		if v, ok := e.Attrs[name]; ok && v != nil {
			return v, delivery(e), true
		}
		if b, ok := e.Body.(map[string]any); ok { // a producer that puts them in the body
			if v, ok := b[name]; ok && v != nil {
				return v, delivery(e), true
			}
		}
	}
	return nil, "", false
}
