package main

// Schema preparation: steps 1-5 of the package comment.

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

type node = map[string]any

type prep struct {
	defs   map[string]any
	unions map[string]*union
}

// union is one generated union type.
type union struct {
	Name, Doc     string
	Discriminator string
	Variants      []*variant
}

type variant struct {
	Field, GoType string // GoType is the field type: *T or []T
	ref           string // referenced $defs name, if any
	kinds         []string
	Tag           string
	TagOptional   bool
}

func (p *prep) run() error {
	p.dedupe()
	for _, name := range sortedKeys(p.defs) {
		p.defs[name] = normalize(p.defs[name].(node))
	}
	done := map[string]bool{}
	for _, name := range sortedKeys(p.defs) {
		p.flattenDef(name, done)
	}
	// Extracting unions hoists inline object variants into new $defs, which
	// may contain unions themselves: repeat until nothing new appears.
	seen := map[string]bool{}
	for {
		var todo []string
		for _, name := range sortedKeys(p.defs) {
			if !seen[name] {
				todo = append(todo, name)
			}
		}
		if len(todo) == 0 {
			break
		}
		for _, name := range todo {
			seen[name] = true
			def := p.defs[name].(node)
			if _, ok := def["anyOf"]; ok {
				if err := p.extract(def, name, true); err != nil {
					return err
				}
				delete(p.defs, name)
				continue
			}
			if err := p.extractWithin(def, name); err != nil {
				return err
			}
		}
	}
	// References to union definitions now point at the generated type.
	for _, name := range sortedKeys(p.defs) {
		visit(p.defs[name].(node), func(n node) node {
			if u := p.unions[refName(n)]; u != nil {
				return customType(u.Name, n)
			}
			return n
		})
	}
	return p.check()
}

// dedupe replaces inline schemas that equal a definition with a $ref to it.
// Only schemas with structure (properties or a combinator) are considered:
// plain `{type: string}` equals trivial definitions like Cursor by accident.
func (p *prep) dedupe() {
	byShape := map[string]string{}
	for _, name := range sortedKeys(p.defs) {
		if k := shape(p.defs[name]); k != "" {
			if _, dup := byShape[k]; !dup {
				byShape[k] = name
			}
		}
	}
	for _, name := range sortedKeys(p.defs) {
		var replace func(c node) node
		replace = func(c node) node {
			if def, ok := byShape[shape(c)]; ok && def != name {
				return node{"$ref": "#/$defs/" + def}
			}
			each(c, replace)
			return c
		}
		each(p.defs[name].(node), replace)
	}
}

// shape is a canonical encoding of a structured schema without its
// documentation, or "" for schemas too simple to be worth sharing.
func shape(v any) string {
	n, ok := v.(node)
	if !ok {
		return ""
	}
	// An array counts when its items do: 2025-03-26's JSONRPCMessage
	// inlines copies of JSONRPCBatchRequest and JSONRPCBatchResponse.
	if n["properties"] == nil && n["anyOf"] == nil && n["allOf"] == nil && shape(n["items"]) == "" {
		return ""
	}
	b, _ := json.Marshal(stripDocs(n)) // map keys are sorted by encoding/json
	return string(b)
}

func stripDocs(v any) any {
	switch v := v.(type) {
	case node:
		out := node{}
		for k, c := range v {
			if k != "description" && k != "$schema" {
				out[k] = stripDocs(c)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = stripDocs(c)
		}
		return out
	}
	return v
}

// normalize rewrites, bottom-up, the constructs listed in steps 3 and 4 of
// the package comment.
func normalize(n node) node {
	each(n, normalize)
	delete(n, "$schema")
	if ap, ok := n["additionalProperties"].(node); ok && len(ap) == 0 && n["properties"] != nil {
		delete(n, "additionalProperties")
	}
	nullable := false
	if types, ok := n["type"].([]any); ok {
		var rest []any
		for _, t := range types {
			if t == "null" {
				nullable = true
			} else {
				rest = append(rest, t)
			}
		}
		switch len(rest) {
		case 0:
			n["type"] = "null"
		case 1:
			n["type"] = rest[0]
		default:
			delete(n, "type")
			var variants []any
			for _, t := range rest {
				variants = append(variants, node{"type": t})
			}
			n["anyOf"] = variants
		}
	}
	if variants, ok := n["anyOf"].([]any); ok {
		var rest []any
		for _, v := range variants {
			if inner, ok := v.(node)["anyOf"].([]any); ok {
				rest = append(rest, inner...) // anyOf[A, anyOf[B, C]] = anyOf[A, B, C]
			} else if v.(node)["type"] == "null" && len(v.(node)) == 1 {
				nullable = true
			} else {
				rest = append(rest, v)
			}
		}
		n["anyOf"] = rest
		if len(rest) == 1 {
			delete(n, "anyOf")
			for k, v := range rest[0].(node) {
				if k != "description" || n["description"] == nil {
					n[k] = v
				}
			}
		} else if consts, ok := stringConsts(rest); ok {
			delete(n, "anyOf")
			n["type"] = "string"
			n["enum"] = consts
		}
	}
	if nullable {
		n["goJSONSchema"] = node{"pointer": true, "extraTags": node{"mcp": nullableTag}}
	}
	return n
}

// stringConsts returns the values of an anyOf made only of string consts.
func stringConsts(variants []any) ([]any, bool) {
	var out []any
	for _, v := range variants {
		c, ok := v.(node)["const"].(string)
		if !ok || v.(node)["type"] != "string" {
			return nil, false
		}
		out = append(out, c)
	}
	return out, true
}

// flattenDef merges every allOf within the definition (step 2), flattening
// the definitions it references first.
func (p *prep) flattenDef(name string, done map[string]bool) {
	if done[name] {
		return
	}
	done[name] = true
	p.defs[name] = p.flatten(p.defs[name].(node), done)
}

func (p *prep) flatten(n node, done map[string]bool) node {
	each(n, func(c node) node { return p.flatten(c, done) })
	parts, ok := n["allOf"].([]any)
	if !ok {
		return n
	}
	merged := p.merge(parts, done)
	if d, ok := n["description"]; ok {
		merged["description"] = d
	}
	return merged
}

func (p *prep) resolve(part node, done map[string]bool) node {
	if name := refName(part); name != "" {
		p.flattenDef(name, done)
		return deepCopy(p.defs[name]).(node)
	}
	return part
}

func (p *prep) merge(parts []any, done map[string]bool) node {
	resolved := make([]node, len(parts))
	for i, part := range parts {
		resolved[i] = p.resolve(part.(node), done)
	}
	for i, r := range resolved {
		variants, ok := r["anyOf"].([]any)
		if !ok {
			continue
		}
		// Distribute: allOf[A, anyOf[V1, V2], B] = anyOf[allOf[A, V1, B], allOf[A, V2, B]].
		var out []any
		for _, v := range variants {
			alt := slices.Clone(parts)
			alt[i] = v
			out = append(out, p.merge(alt, done))
		}
		return node{"anyOf": out}
	}
	props := node{}
	var required []any
	for _, r := range resolved {
		if ps, ok := r["properties"].(node); ok {
			for k, v := range ps {
				props[k] = deepCopy(v)
			}
		}
		if req, ok := r["required"].([]any); ok {
			for _, k := range req {
				if !slices.Contains(required, k) {
					required = append(required, k)
				}
			}
		}
	}
	out := node{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// extractWithin replaces the unions nested in n (named after their position
// under base, the way go-jsonschema names inline types).
func (p *prep) extractWithin(n node, base string) error {
	var err error
	eachNamed(n, base, func(c node, name string) node {
		if err != nil {
			return c
		}
		if _, ok := c["anyOf"]; ok {
			if err = p.extract(c, name, false); err != nil {
				return c
			}
			return customType(name, c)
		}
		err = p.extractWithin(c, name)
		return c
	})
	return err
}

// extract records the anyOf schema n as the union type name (step 5).
// Inline object variants are hoisted into $defs, named after the union and
// their discriminator value (GetTaskResult + "working" = GetTaskResultWorking).
func (p *prep) extract(n node, name string, isDef bool) error {
	if _, dup := p.unions[name]; dup || (!isDef && p.defs[name] != nil) {
		return fmt.Errorf("union name %s is taken", name)
	}
	u := &union{Name: name, Doc: str(n["description"])}
	p.unions[name] = u
	variants := n["anyOf"].([]any)

	// The object variants, resolved, to look for a discriminator. A nested
	// union (nil) has no single tag, so it rules the discriminator out.
	var objs []node
	objIndex := make([]int, len(variants))
	for i, v := range variants {
		v := v.(node)
		objIndex[i] = -1
		if ref := refName(v); ref != "" {
			d, _ := p.defs[ref].(node)
			switch {
			case d == nil || d["anyOf"] != nil:
				d = nil
			case !isObject(d):
				continue
			}
			objIndex[i], objs = len(objs), append(objs, d)
		} else if isObject(v) {
			objIndex[i], objs = len(objs), append(objs, v)
		}
	}
	disc, tags, optional := discriminator(objs)
	u.Discriminator = disc

	for i, v := range variants {
		v := v.(node)
		va := &variant{}
		switch {
		case refName(v) != "":
			va.ref = refName(v)
			va.Field, va.GoType = va.ref, "*"+va.ref
		case isObject(v):
			hoisted := fmt.Sprintf("%sVariant%d", name, i+1)
			if disc != "" {
				hoisted = name + identifier(tags[objIndex[i]])
			}
			if p.defs[hoisted] != nil {
				return fmt.Errorf("hoisted variant name %s is taken", hoisted)
			}
			p.defs[hoisted] = v
			va.ref = hoisted
			va.Field, va.GoType = hoisted, "*"+hoisted
		case v["type"] == "array":
			items, _ := v["items"].(node)
			if items == nil {
				items = node{}
			}
			if _, ok := items["anyOf"]; ok {
				if err := p.extract(items, name+"Item", false); err != nil {
					return err
				}
				items = customType(name+"Item", items)
			}
			elem, err := goType(items)
			if err != nil {
				return fmt.Errorf("%s: array variant: %w", name, err)
			}
			va.Field, va.GoType, va.kinds = "Array", "[]"+elem, []string{"Array"}
		default:
			t, err := goType(v)
			if err != nil {
				return fmt.Errorf("%s: variant %d: %w", name, i, err)
			}
			va.Field, va.GoType = identifier(str(v["type"])), "*"+t
			va.kinds = []string{identifier(str(v["type"]))}
		}
		if disc != "" && objIndex[i] >= 0 {
			va.Tag, va.TagOptional = tags[objIndex[i]], optional[objIndex[i]]
		}
		if slices.ContainsFunc(u.Variants, func(o *variant) bool { return o.Field == va.Field }) {
			return fmt.Errorf("%s: two variants map to field %s", name, va.Field)
		}
		u.Variants = append(u.Variants, va)
	}
	return nil
}

// discriminator finds a member that is a string const in every object
// variant with a distinct value, required in all of them but at most one.
func discriminator(objs []node) (string, []string, []bool) {
	if len(objs) < 2 || slices.ContainsFunc(objs, func(o node) bool { return o == nil }) {
		return "", nil, nil
	}
	props, _ := objs[0]["properties"].(node)
	candidates := sortedKeys(props)
	// Prefer the usual discriminators; otherwise any member, in name order.
	for _, pref := range []string{"mode", "status", "method", "type"} {
		if j := slices.Index(candidates, pref); j >= 0 {
			candidates = append([]string{pref}, slices.Delete(candidates, j, j+1)...)
		}
	}
next:
	for _, prop := range candidates {
		var tags []string
		var optional []bool
		nOptional := 0
		for _, o := range objs {
			ps, _ := o["properties"].(node)
			pn, _ := ps[prop].(node)
			tag, ok := constString(pn)
			if !ok || slices.Contains(tags, tag) {
				continue next
			}
			req, _ := o["required"].([]any)
			opt := !slices.Contains(req, any(prop))
			if opt {
				nOptional++
			}
			tags, optional = append(tags, tag), append(optional, opt)
		}
		if nOptional <= 1 {
			return prop, tags, optional
		}
	}
	return "", nil, nil
}

func constString(n node) (string, bool) {
	if n == nil {
		return "", false
	}
	if c, ok := n["const"].(string); ok {
		return c, true
	}
	if e, ok := n["enum"].([]any); ok && len(e) == 1 {
		c, ok := e[0].(string)
		return c, ok
	}
	return "", false
}

func isObject(n node) bool {
	return n["type"] == "object" || (n["type"] == nil && n["properties"] != nil)
}

// goType is the Go type of a non-union, non-object schema (array items and
// primitive union variants).
func goType(n node) (string, error) {
	if ext, ok := n["goJSONSchema"].(node); ok && ext["type"] != nil {
		return ext["type"].(string), nil
	}
	if name := refName(n); name != "" {
		return name, nil
	}
	if n["enum"] != nil || n["const"] != nil {
		return "", fmt.Errorf("inline enum/const has no Go type name")
	}
	switch n["type"] {
	case "string":
		return "string", nil
	case "integer":
		return "int", nil
	case "number":
		return "float64", nil
	case "boolean":
		return "bool", nil
	case nil:
		if len(n) == 0 {
			return "interface{}", nil
		}
	case "object":
		if n["properties"] == nil {
			return "map[string]interface{}", nil
		}
	}
	return "", fmt.Errorf("no Go type for inline schema %v", stripDocs(n))
}

// customType is a go-jsonschema reference to a Go type by name, keeping the
// documentation and the nullable marker of the node it replaces.
func customType(name string, old node) node {
	ext := node{}
	if oldExt, ok := old["goJSONSchema"].(node); ok {
		ext = deepCopy(oldExt).(node)
	}
	ext["type"] = name
	n := node{"goJSONSchema": ext}
	if d, ok := old["description"]; ok {
		n["description"] = d
	}
	return n
}

// check fails on constructs go-jsonschema would turn into interface{}.
func (p *prep) check() error {
	var err error
	for _, name := range sortedKeys(p.defs) {
		var walk func(n node, where string)
		walk = func(n node, where string) {
			for _, k := range []string{"anyOf", "allOf", "oneOf"} {
				if _, ok := n[k]; ok && err == nil {
					err = fmt.Errorf("%s: %s left after preparation", where, k)
				}
			}
			if _, ok := n["type"].([]any); ok && err == nil {
				err = fmt.Errorf("%s: type list left after preparation", where)
			}
			eachNamed(n, where, func(c node, name string) node { walk(c, name); return c })
		}
		walk(p.defs[name].(node), name)
	}
	return err
}

// Schema traversal helpers.

// each calls f on every direct subschema of n and stores what f returns.
func each(n node, f func(node) node) {
	eachNamed(n, "", func(c node, _ string) node { return f(c) })
}

// eachNamed is each, also passing the name go-jsonschema gives an inline
// type at that position.
func eachNamed(n node, base string, f func(c node, name string) node) {
	if props, ok := n["properties"].(node); ok {
		for _, k := range sortedKeys(props) {
			if c, ok := props[k].(node); ok {
				props[k] = f(c, base+identifier(k))
			}
		}
	}
	for _, k := range [][2]string{{"items", "Elem"}, {"additionalProperties", "Value"}, {"not", "Not"}, {"propertyNames", "Name"}} {
		if c, ok := n[k[0]].(node); ok {
			n[k[0]] = f(c, base+k[1])
		}
	}
	for _, k := range []string{"anyOf", "allOf", "oneOf"} {
		if list, ok := n[k].([]any); ok {
			for i, c := range list {
				list[i] = f(c.(node), base)
			}
		}
	}
}

// visit applies f to n's subschemas, recursively, top-down.
func visit(n node, f func(node) node) {
	each(n, func(c node) node {
		c = f(c)
		visit(c, f)
		return c
	})
}

func refName(n node) string {
	ref, _ := n["$ref"].(string)
	return strings.TrimPrefix(ref, "#/$defs/")
}

var nonAlnum = regexp.MustCompile(`[^A-Za-z0-9]+`)

// identifier turns a JSON name into an exported Go identifier:
// "input_required" -> InputRequired, "ref/prompt" -> RefPrompt.
func identifier(s string) string {
	var b strings.Builder
	for _, part := range nonAlnum.Split(s, -1) {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case node:
		out := make(node, len(v))
		for k, c := range v {
			out[k] = deepCopy(c)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = deepCopy(c)
		}
		return out
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// draft07 turns a draft-07 schema (2025-03-26, 2025-06-18: `definitions`,
// `#/definitions/X`) into the 2020-12 form the later schemas use (`$defs`,
// `#/$defs/X`), so that preparation and go-jsonschema see one dialect (step
// 0 of the package comment).
func draft07(doc node) error {
	defs, ok := doc["definitions"].(node)
	if !ok {
		return nil
	}
	if doc["$defs"] != nil {
		return fmt.Errorf("both definitions and $defs")
	}
	delete(doc, "definitions")
	doc["$defs"] = defs
	doc["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	var err error
	var rewrite func(v any)
	rewrite = func(v any) {
		switch v := v.(type) {
		case node:
			if ref, ok := v["$ref"].(string); ok {
				name, found := strings.CutPrefix(ref, "#/definitions/")
				if !found && err == nil {
					err = fmt.Errorf("unexpected $ref %q", ref)
				}
				v["$ref"] = "#/$defs/" + name
			}
			for _, c := range v {
				rewrite(c)
			}
		case []any:
			for _, c := range v {
				rewrite(c)
			}
		}
	}
	rewrite(defs)
	return err
}
