// format.go holds the table of known formats (validation spec §7.3); the checkers are in format_*.go.

package jsonschema

// format is a known format: its checker, and what checking costs for each byte of the string, in eighths of
// a step (see stepWork). That is one for the checkers that read the string once; for "regex", the most a
// byte of a pattern can weigh in its RE2 program (see translator.size: a five-byte \p{L} holds 623
// ranges).
type format struct {
	check   func(string) bool
	perByte int
}

// formats maps a format name to its checker. Unknown formats are ignored (validation spec §7.2.3 lets
// implementations treat them as annotations).
var formats = map[string]format{
	"date-time":             {IsDateTime, 1},
	"date":                  {isDate, 1},
	"time":                  {isTime, 1},
	"duration":              {isDuration, 1},
	"email":                 {isEmail, 1},
	"idn-email":             {isIDNEmail, 1},
	"hostname":              {isHostname, 1},
	"idn-hostname":          {isIDNHostname, 1},
	"ipv4":                  {isIPv4, 1},
	"ipv6":                  {isIPv6, 1},
	"uri":                   {isURI, 1},
	"uri-reference":         {isURIReference, 1},
	"iri":                   {isIRI, 1},
	"iri-reference":         {isIRIReference, 1},
	"uuid":                  {isUUID, 1},
	"uri-template":          {isURITemplate, 1},
	"json-pointer":          {isJSONPointer, 1},
	"relative-json-pointer": {isRelativeJSONPointer, 1},
	"regex":                 {isECMARegex, 128},
}
