// stubs.go: assertion types not implemented yet; each answers ASSERTION_ERROR.

package assert

func notImplemented(t string) error {
	return specErrorf("This engine build does not evaluate '"+t+"' assertions yet; check the capabilities of initialize.", "unknown assertion type '%s'", t)
}

func compileSchema(*Engine, spec) (check, error)     { return nil, notImplemented("schema") }
func compileConstraint(*Engine, spec) (check, error) { return nil, notImplemented("constraint") }
func compileTrace(*Engine, spec) (check, error)      { return nil, notImplemented("trace") }
func compileContent(*Engine, spec) (check, error)    { return nil, notImplemented("content") }
func compileEmbedding(*Engine, spec) (check, error)  { return nil, notImplemented("embedding") }
func compileJudge(*Engine, spec) (check, error)      { return nil, notImplemented("llm_judge") }

// ProviderSettings is the configuration of the embedding and judge providers.
type ProviderSettings struct{}

type providers struct{}

func newProviders(ProviderSettings) (*providers, error) { return &providers{}, nil }

func (p *providers) usable() bool { return false }
