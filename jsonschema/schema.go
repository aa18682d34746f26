// schema.go holds the exported surface: Options, Loader, Schema, Compile and CompileError.

package jsonschema

import (
	"fmt"
)

// Options configures Compile. The zero value (or a nil *Options) means: no external resources and
// format as an annotation only.
type Options struct {
	// Loader resolves a URI that is not found inside the schema being compiled or among
	// already-registered resources. nil means: no external resources at all.
	Loader Loader
	// AssertFormat turns `format` into an assertion (default: annotation only, as 2020-12 requires).
	AssertFormat bool
}

// Loader returns the decoded JSON document (in the engine's value model) for an absolute URI without
// fragment.
type Loader interface {
	Load(uri string) (any, error)
}

// Schema is a compiled schema. It is immutable and safe for concurrent use by many goroutines.
type Schema struct {
	root    *node
	dynamic bool // some keyword is a $dynamicRef, so evaluation tracks the dynamic scope
	inPlace bool // ValidValue reads a tape.Value in place (value.go): every keyword has an in-place reading
}

// CompileError reports why a schema could not be compiled. Location is the absolute URI (with a JSON
// Pointer fragment) of the offending schema or keyword, when known.
type CompileError struct {
	Location string
	Message  string
	Err      error // underlying cause (for example from the Loader), if any
}

func (e *CompileError) Error() string { return "jsonschema: compile " + e.detail() }

// detail renders the error without the package prefix, so that nested compile errors read as one chain.
func (e *CompileError) detail() string {
	s := e.Message
	if e.Location != "" {
		s = e.Location + ": " + s
	}
	if inner, ok := e.Err.(*CompileError); ok {
		return s + ": " + inner.detail()
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

func (e *CompileError) Unwrap() error { return e.Err }

// Compile compiles a Draft 2020-12 schema given as a decoded JSON value (see the package documentation for
// the value model). opts may be nil.
func Compile(schema any, opts *Options) (s *Schema, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	defer func() {
		// Last line of defence only: the compiler is written not to panic on any input.
		if r := recover(); r != nil {
			s, err = nil, &CompileError{Message: fmt.Sprintf("internal error: %v", r)}
		}
	}()
	c := newCompiler(o)
	root, err := c.compileRoot(schema)
	if err != nil {
		return nil, err
	}
	return &Schema{root: root, dynamic: c.dynamic, inPlace: c.inPlace()}, nil
}
