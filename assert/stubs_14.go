// stubs_14.go: layers 1–4 until they land; each answers ASSERTION_ERROR.

package assert

func notImplemented(t string) error {
	return specErrorf("This engine build does not evaluate '"+t+"' assertions yet; check the capabilities of initialize.", "unknown assertion type '%s'", t)
}

func compileSchema(*Engine, spec) (check, error)     { return nil, notImplemented("schema") }
func compileConstraint(*Engine, spec) (check, error) { return nil, notImplemented("constraint") }
func compileTrace(*Engine, spec) (check, error)      { return nil, notImplemented("trace") }
func compileContent(*Engine, spec) (check, error)    { return nil, notImplemented("content") }
