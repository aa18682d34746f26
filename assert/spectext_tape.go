// spectext_tape.go: a spec known by its text, looked up by the whole text of a spec object read from a tape.

package assert

// KnownSpecText is KnownSpec for text that is exactly one whole spec object
// (a tape value's Text, as rpc reads params.assertions): the value
// RememberSpec was given with that text, without scanning the text for the
// object's end again. The value is shared: no one may modify it.
func (e *Engine) KnownSpecText(text []byte) (map[string]any, bool) {
	if len(text) > specTextMax {
		return nil, false
	}
	st := &e.specs
	st.mu.Lock()
	defer st.mu.Unlock()
	ent, ok := st.byText[string(text)]
	if !ok {
		return nil, false
	}
	st.order.MoveToFront(ent.elem)
	return ent.spec, true
}
