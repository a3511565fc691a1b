// Package jsonunion is the runtime behind the union types that
// protocol/internal/gen emits for JSON Schema `anyOf` (and `type: [...]`)
// constructs. go-jsonschema v0.24.1 turns such unions into interface{} (which
// validates nothing) or into code that does not compile, so the generator
// replaces them with a struct holding one pointer (or slice) field per variant
// plus a *Spec describing how to pick the variant. This package does the
// picking, decoding and encoding for all of them, so the generated code stays
// a table.
//
// Picking a variant happens in two steps:
//
//  1. by JSON kind (object, array, string, number, boolean): a union of
//     "one item or a list of items" is told apart this way;
//  2. among object variants, by a discriminator member whose value is a
//     distinct constant in every variant (e.g. ContentBlock's "type"). A
//     variant whose discriminator is optional in the schema is chosen when the
//     member is absent (ElicitRequestFormParams' "mode").
//
// When neither step leaves a single candidate, the candidates are tried in
// schema order and the first that decodes wins (anyOf semantics).
package jsonunion

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// Kind is a set of JSON value kinds.
type Kind uint8

// The JSON kinds a variant can accept. Integer is a number token without a
// fraction or exponent; a Number variant accepts integers too.
const (
	Object Kind = 1 << iota
	Array
	String
	Integer
	Number
	Boolean
	Null
)

var kindNames = []struct {
	k    Kind
	name string
}{
	{Object, "object"}, {Array, "array"}, {String, "string"}, {Integer, "integer"},
	{Number, "number"}, {Boolean, "boolean"}, {Null, "null"},
}

// String lists the kinds, e.g. "object or array".
func (k Kind) String() string {
	var names []string
	for _, n := range kindNames {
		if k&n.k != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " or ")
}

// KindOf reports the kind of the JSON value in data (Integer for a number
// token without fraction or exponent, 0 for empty or malformed input).
func KindOf(data []byte) Kind {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return 0
	}
	switch c := data[0]; {
	case c == '{':
		return Object
	case c == '[':
		return Array
	case c == '"':
		return String
	case c == 't' || c == 'f':
		return Boolean
	case c == 'n':
		return Null
	case c == '-' || (c >= '0' && c <= '9'):
		if bytes.ContainsAny(data, ".eE") {
			return Number
		}
		return Integer
	}
	return 0
}

// accepts reports whether a variant of kinds k takes a value of kind v.
func (k Kind) accepts(v Kind) bool {
	return k&v != 0 || (v == Integer && k&Number != 0)
}

// Variant describes one alternative of a union.
type Variant struct {
	// Field is the Go field of the union struct holding this variant: a
	// pointer for single values, a slice for arrays.
	Field string
	// Kinds are the JSON kinds this variant accepts.
	Kinds Kind
	// Tag is the value of the union's discriminator member selecting this
	// variant ("" when the union has no discriminator).
	Tag string
	// TagOptional marks the variant chosen when the discriminator is absent.
	TagOptional bool
}

// Spec describes a union type. Generated code declares one per union.
type Spec struct {
	// Name is the Go type name, used in error messages.
	Name string
	// Discriminator is the object member that selects among object
	// variants, or "".
	Discriminator string
	Variants      []Variant
}

// Error is a failure to select a variant. Member is the object member at
// fault (the discriminator) or "" when the value as a whole is at fault.
type Error struct {
	Union  string
	Member string
	Reason string
}

func (e *Error) Error() string {
	if e.Member != "" {
		return fmt.Sprintf("%s: member %q: %s", e.Union, e.Member, e.Reason)
	}
	return fmt.Sprintf("%s: %s", e.Union, e.Reason)
}

// Kinds is the set of JSON kinds the union accepts.
func (s *Spec) Kinds() Kind {
	var k Kind
	for _, v := range s.Variants {
		k |= v.Kinds
	}
	return k
}

// Select returns the indexes of the variants that data may decode into, in
// the order they should be tried. It fails when no variant can take data.
func (s *Spec) Select(data []byte) ([]int, error) {
	kind := KindOf(data)
	var cands []int
	for i, v := range s.Variants {
		if v.Kinds.accepts(kind) {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return nil, &Error{Union: s.Name, Reason: fmt.Sprintf("expected %s, got %s", s.Kinds(), kindName(kind))}
	}
	if kind != Object || s.Discriminator == "" || len(cands) < 2 {
		return cands, nil
	}
	return s.selectByTag(data, cands)
}

func (s *Spec) selectByTag(data []byte, cands []int) ([]int, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, &Error{Union: s.Name, Reason: err.Error()}
	}
	var tags []string
	for _, i := range cands {
		tags = append(tags, strconv.Quote(s.Variants[i].Tag))
	}
	expected := "expected one of " + strings.Join(tags, ", ")
	raw, ok := members[s.Discriminator]
	if !ok {
		for _, i := range cands {
			if s.Variants[i].TagOptional {
				return []int{i}, nil
			}
		}
		return nil, &Error{Union: s.Name, Member: s.Discriminator, Reason: "required property is missing (" + expected + ")"}
	}
	var tag string
	if err := json.Unmarshal(raw, &tag); err != nil {
		return nil, &Error{Union: s.Name, Member: s.Discriminator, Reason: "expected string, got " + kindName(KindOf(raw))}
	}
	for _, i := range cands {
		if s.Variants[i].Tag == tag {
			return []int{i}, nil
		}
	}
	return nil, &Error{Union: s.Name, Member: s.Discriminator, Reason: fmt.Sprintf("invalid value %q, %s", tag, expected)}
}

// Unmarshal decodes data into the union struct pointed to by u, setting
// exactly one variant field.
func (s *Spec) Unmarshal(data []byte, u any) error {
	rv := reflect.ValueOf(u).Elem()
	cands, err := s.Select(data)
	if err != nil {
		return err
	}
	var msgs []string
	for _, i := range cands {
		v := s.Variants[i]
		f := rv.FieldByName(v.Field)
		val, err := decodeVariant(data, f.Type())
		if err == nil {
			rv.SetZero()
			f.Set(val)
			return nil
		}
		if len(cands) == 1 {
			return err
		}
		msgs = append(msgs, v.Field+": "+err.Error())
	}
	return &Error{Union: s.Name, Reason: "matches no variant (" + strings.Join(msgs, "; ") + ")"}
}

// decodeVariant decodes data into a new value of a variant field type: *T
// gets a fresh T, []T a fresh slice.
func decodeVariant(data []byte, t reflect.Type) (reflect.Value, error) {
	if t.Kind() == reflect.Pointer {
		p := reflect.New(t.Elem())
		err := json.Unmarshal(data, p.Interface())
		return p, err
	}
	p := reflect.New(t)
	err := json.Unmarshal(data, p.Interface())
	return p.Elem(), err
}

// Marshal encodes the variant set in the union struct pointed to by u. It
// fails unless exactly one variant is set.
func (s *Spec) Marshal(u any) ([]byte, error) {
	v, err := s.value(u)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// Value returns the variant set in the union struct pointed to by u (a
// pointer or a slice), or nil when none is.
func (s *Spec) Value(u any) any {
	v, _ := s.value(u)
	return v
}

// VariantField returns the name of the Go field set in the union struct
// pointed to by u, or "" when none is.
func (s *Spec) VariantField(u any) string {
	rv := reflect.ValueOf(u).Elem()
	for _, v := range s.Variants {
		if !rv.FieldByName(v.Field).IsNil() {
			return v.Field
		}
	}
	return ""
}

var errNoVariant = errors.New("no variant set")

func (s *Spec) value(u any) (any, error) {
	rv := reflect.ValueOf(u).Elem()
	var set []string
	var val any
	for _, v := range s.Variants {
		f := rv.FieldByName(v.Field)
		if !f.IsNil() {
			set = append(set, v.Field)
			val = f.Interface()
		}
	}
	switch len(set) {
	case 0:
		return nil, fmt.Errorf("%s: %w", s.Name, errNoVariant)
	case 1:
		return val, nil
	}
	return nil, fmt.Errorf("%s: more than one variant set (%s)", s.Name, strings.Join(set, ", "))
}

func kindName(k Kind) string {
	if k == 0 {
		return "invalid JSON"
	}
	return k.String()
}

// Union is implemented by every generated union type; the validator in
// package protocol uses it to descend into the selected variant.
type Union interface {
	JSONUnion() *Spec
}
