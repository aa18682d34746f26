// trajectory.go: the wiring of package trajectory's checks into layer 3 (capability "trajectory").

package assert

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"attest-engine/clip"
	"attest-engine/jsonpath"
	"attest-engine/jsonschema"
	"attest-engine/trajectory"
)

// FailedStep is where a trajectory check's trajectory departs from what
// was asked, sent as the additive result field "failed_step".
type FailedStep = trajectory.Failure

// trajectoryCheck is a compiled check of package trajectory.
type trajectoryCheck struct{ c *trajectory.Check }

// compileTrajectory compiles the trace checks of package trajectory with
// the engine's own bounded compilers: regexes as regex_match's, schemas
// through the engine's loader, paths through the shared parse cache.
func compileTrajectory(e *Engine, s spec) (check, error) {
	c, err := trajectory.Compile(s, &trajectory.Options{
		Regexp: func(p string) (*regexp.Regexp, error) { return compileRegex(p, false) },
		Schema: func(v any) (*jsonschema.Schema, error) {
			sch, err := jsonschema.Compile(v, &jsonschema.Options{Loader: e.cfg.SchemaLoader})
			if err != nil {
				msg := strings.TrimPrefix(err.Error(), "jsonschema: compile ")
				return nil, specErrorf(fmt.Sprintf("The schema could not be compiled: %s. Fix the schema in the assertion spec; $ref outside the schema resolves only through the engine's schema_dirs.", msg),
					"malformed JSON Schema: %s", clip.String(msg, 200))
			}
			return sch, nil
		},
		Path: func(expr string) (*jsonpath.Path, error) {
			t, err := parseTarget(spec{"ref": expr}, "ref")
			return t.path, err
		},
	})
	if err != nil {
		var te *trajectory.SpecError
		if errors.As(err, &te) {
			return nil, specErrorf(te.Detail, "%s", te.Msg)
		}
		return nil, err // a *specError of the compilers above
	}
	return trajectoryCheck{c}, nil
}

func (t trajectoryCheck) eval(ctx context.Context, in *input) (outcome, error) {
	o, err := t.c.Eval(ctx, in.root)
	if err != nil {
		return outcome{}, err
	}
	return outcome{pass: o.Pass, score: o.Score, explanation: o.Explanation, failed: o.Failed}, nil
}
