package protocol

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
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

// RequestHas reports whether the request or notification method, in the
// version's schema, has the field at path under its params (JSON names, as
// ResultHas reads them): RequestHas(MethodToolsCall, "task").
func (v Version) RequestHas(method string, path ...string) bool {
	e, ok := registry[v.SchemaOf][method]
	return ok && e.request != nil && hasPath(e.request, append([]string{"params"}, path...))
}

// NewerParam is one field a message's params carry that the negotiated
// version's schema lacks and a newer version's has.
type NewerParam struct {
	Path  string // dotted JSON path under params ("task", "_meta.io.modelcontextprotocol/protocolVersion")
	Since string // the oldest judged version that has it
}

// newerParamDepth bounds how deep NewerParams looks: the schemas type
// what a version added within a few levels of params.
const newerParamDepth = 4

// NewerParams lists the fields of params (a request's or notification's,
// as sent) that version's schema does not have for method and a newer
// judged version's does: what a peer that negotiated version must not send
// (basic/lifecycle.mdx#operation: "Respect the negotiated protocol
// version"). A field no version types (a tool's own arguments) is nobody's
// newer feature. A method version lacks is NewerThan's to report.
func NewerParams(version, method string, params json.RawMessage) []NewerParam {
	v, ok := Lookup(version)
	if !ok || !v.Defines(method) || len(params) == 0 {
		return nil
	}
	var out []NewerParam
	var walk func(raw json.RawMessage, path []string)
	walk = func(raw json.RawMessage, path []string) {
		if len(path) >= newerParamDepth {
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			var arr []json.RawMessage
			if json.Unmarshal(raw, &arr) == nil {
				for _, el := range arr {
					walk(el, path)
				}
			}
			return
		}
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			p := append(slices.Clone(path), k)
			if v.RequestHas(method, p...) || v.metaHas(p) {
				walk(obj[k], p)
				continue
			}
			newer := Where(func(n Version) bool {
				return n.Judged && n.Name > version && n.RequestHas(method, p...) && !v.metaHas(p)
			})
			if len(newer) > 0 {
				out = append(out, NewerParam{Path: strings.Join(p, "."), Since: newer[len(newer)-1]})
			}
		}
	}
	walk(params, nil)
	return out
}

// metaHas reports whether some request of the version's schema types the
// _meta field at path: the generated types leave the _meta every request
// inherits (progressToken) out of some methods, so a _meta key is the
// version's when any of its requests has it.
func (v Version) metaHas(path []string) bool {
	if len(path) == 0 || path[0] != "_meta" {
		return false
	}
	for m := range registry[v.SchemaOf] {
		if v.RequestHas(m, path...) {
			return true
		}
	}
	return false
}
