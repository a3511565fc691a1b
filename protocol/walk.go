package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpconform/mcpconform/protocol/internal/jsonunion"
)

// The generated UnmarshalJSON methods validate their own level (required
// members, consts, enums, bounds) but report errors without a location, and
// encoding/json lets null through into anything. So the checker walks the
// JSON value along the Go type, children first: the first level whose own
// decoding fails, after all its children passed, is where the violation is.

// violation is a schema violation at a JSON path.
type violation struct {
	path   string
	depth  int
	reason string
}

// unionType is implemented by the generated union types.
var unionType = reflect.TypeFor[jsonunion.Union]()

// check validates data against Go type t. nullable says whether the schema
// allows null here (struct fields tagged mcp:"nullable").
func check(data []byte, t reflect.Type, path string, depth int, nullable bool) *violation {
	return walk(data, t, path, depth, nullable, true)
}

// checkFast is check for a value whose typed decode as t already succeeded
// (the common case: a valid message). Every level the decode reached then
// decodes too, so the walk only looks for what a decode lets through
// (null where the schema allows none, a value of the wrong kind under a
// union); a union's subtree is walked in full, since the decode may have
// taken another variant than the one the walk judges by. The verdict is
// check's, without decoding each subtree once per level above it.
func checkFast(data []byte, t reflect.Type, path string) *violation {
	return walk(data, t, path, 0, false, false)
}

// walk is check; levelDecode false skips the decode of each level's own
// constraints outside unions (checkFast).
func walk(data []byte, t reflect.Type, path string, depth int, nullable, levelDecode bool) *violation {
	kind := jsonunion.KindOf(data)
	if kind == jsonunion.Null {
		if nullable || t.Kind() == reflect.Interface {
			return nil
		}
		return &violation{path, depth, "expected " + expectedKinds(t).String() + ", got null"}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unionType) {
		return checkUnion(data, t, path, depth)
	}
	if want := expectedKinds(t); want != 0 && !accepts(want, kind) {
		return &violation{path, depth, "expected " + want.String() + ", got " + kindName(kind)}
	}
	switch t.Kind() {
	case reflect.Struct:
		var members map[string]json.RawMessage
		if err := json.Unmarshal(data, &members); err != nil {
			return &violation{path, depth, err.Error()}
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := jsonName(f)
			if raw, present := members[name]; ok && present {
				if v := walk(raw, f.Type, member(path, name), depth+1, f.Tag.Get("mcp") == "nullable", levelDecode); v != nil {
					return v
				}
			}
		}
	case reflect.Map:
		var members map[string]json.RawMessage
		if err := json.Unmarshal(data, &members); err != nil {
			return &violation{path, depth, err.Error()}
		}
		for _, name := range slices.Sorted(maps.Keys(members)) {
			if v := walk(members[name], t.Elem(), member(path, name), depth+1, false, levelDecode); v != nil {
				return v
			}
		}
	case reflect.Slice:
		var elems []json.RawMessage
		if err := json.Unmarshal(data, &elems); err != nil {
			return &violation{path, depth, err.Error()}
		}
		for i, elem := range elems {
			if v := walk(elem, t.Elem(), fmt.Sprintf("%s[%d]", path, i), depth+1, false, levelDecode); v != nil {
				return v
			}
		}
	}
	if !levelDecode {
		return nil
	}
	// Every child is valid, so an error now is about this level itself.
	if err := json.Unmarshal(data, reflect.New(t).Interface()); err != nil {
		return levelViolation(path, depth, err)
	}
	return nil
}

// checkUnion validates data against the variant(s) the union selects for it.
func checkUnion(data []byte, t reflect.Type, path string, depth int) *violation {
	spec := reflect.Zero(t).Interface().(jsonunion.Union).JSONUnion()
	cands, err := spec.Select(data)
	if err != nil {
		return levelViolation(path, depth, err)
	}
	var best *violation
	var bestField string
	for _, i := range cands {
		field := spec.Variants[i].Field
		f, _ := t.FieldByName(field)
		v := check(data, f.Type, path, depth, false)
		if v == nil {
			return nil
		}
		if best == nil || v.depth > best.depth {
			best, bestField = v, field
		}
	}
	if len(cands) > 1 {
		best.reason += fmt.Sprintf(" (value matches no variant of %s; closest is %s)", spec.Name, bestField)
	}
	return best
}

var (
	// Errors of the generated UnmarshalJSON methods (go-jsonschema v0.24.1).
	requiredRe = regexp.MustCompile(`^field (.+) in [A-Za-z0-9_]+: required$`)
	fieldRe    = regexp.MustCompile(`^field (.+?)( length| pattern match)?: (.+)$`)
	enumRe     = regexp.MustCompile(`^invalid value \(expected one of \[\]interface \{\}\{(.*)\}\): (.*)$`)
)

// levelViolation turns the error of decoding one level into a violation,
// moving the path to the member the error names.
func levelViolation(path string, depth int, err error) *violation {
	var unionErr *jsonunion.Error
	var typeErr *json.UnmarshalTypeError
	msg := err.Error()
	switch {
	case errors.As(err, &unionErr):
		if unionErr.Member != "" {
			return &violation{member(path, unionErr.Member), depth + 1, unionErr.Reason}
		}
		return &violation{path, depth, unionErr.Reason}
	case errors.As(err, &typeErr):
		p := path
		if typeErr.Field != "" {
			p = member(path, typeErr.Field)
		}
		return &violation{p, depth + 1, "expected " + expectedKinds(typeErr.Type).String() + ", got " + typeErr.Value}
	}
	if m := requiredRe.FindStringSubmatch(msg); m != nil {
		return &violation{member(path, m[1]), depth + 1, "required property is missing"}
	}
	if m := enumRe.FindStringSubmatch(msg); m != nil {
		return &violation{path, depth, fmt.Sprintf("invalid value %s, expected one of %s", m[2], m[1])}
	}
	if m := fieldRe.FindStringSubmatch(msg); m != nil {
		return &violation{member(path, m[1]), depth + 1, strings.TrimSpace(strings.TrimPrefix(m[2], " ") + " " + m[3])}
	}
	return &violation{path, depth, strings.TrimPrefix(msg, "json: ")}
}

// expectedKinds is the JSON kinds a Go type decodes from (0: any).
func expectedKinds(t reflect.Type) jsonunion.Kind {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Implements(unionType) {
		return reflect.Zero(t).Interface().(jsonunion.Union).JSONUnion().Kinds()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return jsonunion.Object
	case reflect.Slice, reflect.Array:
		return jsonunion.Array
	case reflect.String:
		return jsonunion.String
	case reflect.Bool:
		return jsonunion.Boolean
	case reflect.Float32, reflect.Float64:
		return jsonunion.Number
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return jsonunion.Integer
	}
	return 0
}

func accepts(want, got jsonunion.Kind) bool {
	return want&got != 0 || (got == jsonunion.Integer && want&jsonunion.Number != 0)
}

func kindName(k jsonunion.Kind) string {
	if k == 0 {
		return "invalid JSON"
	}
	return k.String()
}

// jsonName is the member name encoding/json uses for a struct field.
func jsonName(f reflect.StructField) (string, bool) {
	if !f.IsExported() {
		return "", false
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch name {
	case "-":
		return "", false
	case "":
		return f.Name, true
	}
	return name, true
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// member appends an object member to a JSONPath: $.a.b, or $.a["x/y"] when
// the name is not an identifier.
func member(path, name string) string {
	if identRe.MatchString(name) {
		return path + "." + name
	}
	return path + "[" + strconv.Quote(name) + "]"
}
