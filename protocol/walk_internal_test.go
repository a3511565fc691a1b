package protocol

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// The fast path (one typed decode, then a walk without per-level decodes)
// gives exactly the full walk's verdict: on valid messages and on every
// mutation of them — each member replaced by null, a number, a string, an
// object or an array, or removed.
func TestFastPathAgreesWithFullWalk(t *testing.T) {
	valid := []struct {
		version, method string
		result          bool
		raw             string
	}{
		{V20251125, MethodToolsCall, true, `{"content":[{"type":"text","text":"hi","annotations":{"audience":["user"],"priority":0.5}},` +
			`{"type":"image","data":"aGk=","mimeType":"image/png"},{"type":"resource","resource":{"uri":"a://b","text":"t"}},` +
			`{"type":"resource_link","uri":"a://c","name":"c"}],"structuredContent":{"a":1},"isError":false}`},
		{V20251125, MethodToolsList, true, `{"tools":[{"name":"t","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]},` +
			`"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true},"execution":{"taskSupport":"optional"}}],"nextCursor":"c"}`},
		{V20251125, MethodInitialize, true, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"tasks":{"list":{},"cancel":{},` +
			`"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"s","version":"1","icons":[{"src":"https://x/i.png","sizes":["16x16"]}]}}`},
		{V20251125, "sampling/createMessage", false, `{"messages":[{"role":"user","content":{"type":"text","text":"q"}},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"u","name":"n","input":{}}]}],"maxTokens":10,"tools":[{"name":"n","inputSchema":{"type":"object"}}]}`},
		{V20251125, "notifications/progress", false, `{"progressToken":"t","progress":1,"total":2,"message":"m"}`},
		{V20260728, MethodToolsCall, true, `{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`},
	}
	var judged, invalid int
	for _, c := range valid {
		e, err := lookup(c.version, c.method)
		if err != nil {
			t.Fatal(err)
		}
		typ, root, wrap := e.request, "$", func(v []byte) []byte {
			return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":%q,"id":0,"params":%s}`, c.method, v))
		}
		if c.result {
			typ, root, wrap = e.result, "$.result", func(v []byte) []byte { return v }
		}
		var doc any
		if err := json.Unmarshal([]byte(c.raw), &doc); err != nil {
			t.Fatal(err)
		}
		variants := [][]byte{[]byte(c.raw)}
		for _, m := range mutations(doc) {
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			variants = append(variants, b)
		}
		for _, v := range variants {
			raw := wrap(v)
			full := check(raw, typ, root, 0, false)
			var fast *violation
			if json.Unmarshal(raw, reflect.New(typ).Interface()) == nil {
				fast = checkFast(raw, typ, root)
			} else {
				fast = full
			}
			judged++
			if full != nil {
				invalid++
			}
			if fmt.Sprint(full) != fmt.Sprint(fast) {
				t.Errorf("%s %s: %s\nfull walk: %v\nfast path: %v", c.version, c.method, raw, full, fast)
			}
		}
	}
	// Not vacuous: many variants, most invalid, some still valid.
	if judged < 500 || invalid < judged/2 || invalid == judged {
		t.Errorf("judged %d variants, %d invalid", judged, invalid)
	}
	t.Logf("judged %d variants, %d invalid", judged, invalid)
}

// mutations are doc with one member or element changed or removed, each.
func mutations(doc any) []any {
	var out []any
	replacements := []any{nil, 1.5, "x", map[string]any{}, []any{}}
	switch v := doc.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(func(yield func(string) bool) {
			for k := range v {
				if !yield(k) {
					return
				}
			}
		}) {
			with := func(x any, drop bool) any {
				m := map[string]any{}
				for kk, vv := range v {
					m[kk] = vv
				}
				if drop {
					delete(m, k)
				} else {
					m[k] = x
				}
				return m
			}
			out = append(out, with(nil, true))
			for _, r := range replacements {
				out = append(out, with(r, false))
			}
			for _, inner := range mutations(v[k]) {
				out = append(out, with(inner, false))
			}
		}
	case []any:
		for i := range v {
			for _, r := range append(replacements, mutations(v[i])...) {
				s := slices.Clone(v)
				s[i] = r
				out = append(out, s)
			}
		}
	}
	return out
}
