package protocol

import (
	"reflect"
	"strings"
)

// What a version's schema has, read from its generated types, so a rule
// that came with a method or a field follows the schema, not a hand-kept
// list: a new version inherits it by having the method or field.

// Defines reports whether the version's schema has the method (a request
// or a notification).
func (v Version) Defines(method string) bool {
	_, ok := registry[v.SchemaOf][method]
	return ok
}

// ResultHas reports whether the result of method, in the version's schema,
// has the field at path (JSON names, through arrays, pointers and the
// members of a union): ResultHas(MethodToolsList, "tools", "outputSchema").
func (v Version) ResultHas(method string, path ...string) bool {
	e, ok := registry[v.SchemaOf][method]
	return ok && e.result != nil && hasPath(e.result, path)
}

func hasPath(t reflect.Type, path []string) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if len(path) == 0 {
		return true
	}
	if t.Kind() != reflect.Struct {
		return false
	}
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "" && f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
			// A union's member: the field may be any member's.
			if hasPath(f.Type, path) {
				return true
			}
			continue
		}
		if name, _, _ := strings.Cut(tag, ","); name == path[0] && hasPath(f.Type, path[1:]) {
			return true
		}
	}
	return false
}

// StatefulWith lists the judged stateful versions (newest first) whose
// schema has method: a server request of a session (elicitation/create,
// sampling/createMessage) exists there, where 2026-07-28 asks through input
// required results instead.
func StatefulWith(method string) []string {
	return Where(func(v Version) bool { return v.Judged && v.Era == Stateful && v.Defines(method) })
}

// NewerThan names the oldest judged version after version whose schema has
// what version's lacks: the method itself (no path), or the field at path
// in the method's result (JSON names, as ResultHas reads them). It is ""
// when version has it, or when no newer version does either (something no
// revision defines is not a newer version's feature).
func NewerThan(version, method string, path ...string) string {
	has := func(v Version) bool {
		return v.Defines(method) && (len(path) == 0 || v.ResultHas(method, path...))
	}
	if v, ok := Lookup(version); !ok || has(v) {
		return ""
	}
	newer := Where(func(v Version) bool { return v.Judged && v.Name > version && has(v) })
	if len(newer) == 0 {
		return ""
	}
	return newer[len(newer)-1] // Where lists newest first
}
