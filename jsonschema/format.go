// format.go holds the table of known formats (validation spec §7.3); the checkers are in format_*.go.
package jsonschema

// formats maps a format name to its checker. Unknown formats are ignored (validation spec §7.2.3 lets
// implementations treat them as annotations).
var formats = map[string]func(string) bool{
	"date-time":             isDateTime,
	"date":                  isDate,
	"time":                  isTime,
	"duration":              isDuration,
	"email":                 isEmail,
	"idn-email":             isIDNEmail,
	"hostname":              isHostname,
	"idn-hostname":          isIDNHostname,
	"ipv4":                  isIPv4,
	"ipv6":                  isIPv6,
	"uri":                   isURI,
	"uri-reference":         isURIReference,
	"iri":                   isIRI,
	"iri-reference":         isIRIReference,
	"uuid":                  isUUID,
	"uri-template":          isURITemplate,
	"json-pointer":          isJSONPointer,
	"relative-json-pointer": isRelativeJSONPointer,
	"regex":                 isECMARegex,
}
