package resources

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/judge"
	"github.com/mcpconform/mcpconform/scenarios/serverside"
)

// Reading has no side effects, so, as every listed prompt is got, every
// listed resource is read (at most maxReads), and every listed template
// (at most maxTemplates) once, its variables expanded with templateValue.

const (
	maxReads      = 25
	maxTemplates  = 10
	templateValue = "1"
)

var (
	everyValid = &scenarios.Check{ID: "resources-read-every/result-valid", Level: scenarios.Must, Spec: "2025-11-25/basic/index.mdx#schema",
		Quote: "This is the source of truth for all protocol messages and structures.",
		Title: "every resources/read result, of each listed resource and of each listed template expanded once, validates against " +
			"ReadResourceResult of the version: each item a text or a blob with its uri (blobs' encoding is judged by blob-base64)",
		// caching-hints-missing reads without the hints 2026-07-28 requires.
		Faults: []*fault.Fault{server.ReadContentsNoText, server.CachingHintsMissing}}
	everyURIEchoed = &scenarios.Check{ID: "resources-read-every/uri-echoed", Level: scenarios.Must, Spec: "2025-11-25/schema.mdx#textresourcecontents",
		Quote:  "The URI of this resource.",
		Title:  "the contents of every read hold an item whose uri is the URI read (a read may hold items of other URIs besides)",
		Faults: []*fault.Fault{server.ReadURINotEchoed}}
	everyBlobBase64 = &scenarios.Check{ID: "resources-read-every/blob-base64", Level: scenarios.Must, Spec: resourcesSpec + "#security-considerations",
		Quote:  "Binary data MUST be properly encoded",
		Title:  "every blob of every read is valid base64 (RFC 4648, with padding)",
		Faults: []*fault.Fault{server.BlobNotBase64}}
)

var everyScenario = &scenarios.Scenario{
	ID: "resources-read-every", Title: "every resource the target lists, and each template once, reads validly", Family: "resources",
	Side: scenarios.ServerSide, Versions: protocol.Judged(), Needs: []scenarios.Need{scenarios.NeedsCapability("resources")},
	Purpose: fmt.Sprintf("Reading is read-only, so every resource resources/list names (at most %d) is read, and every template "+
		"resources/templates/list names (at most %d) is read once with each variable set to %q. Each result is judged against "+
		"the version's schema, for the URI read among its items, and for base64 blobs. A read refused with an error is not judged "+
		"(resources-not-found judges the errors), nor is an input_required result (the mrtr family's).", maxReads, maxTemplates, templateValue),
	Checks: []*scenarios.Check{everyValid, everyURIEchoed, everyBlobBase64},
	Run: serverside.Body(func(t *serverside.T) {
		s := t.Open("A", client.Options{})
		t.Step("resources/list, every page")
		listed, err := listAll(t, s, protocol.MethodResourcesList, "resources", "uri")
		if err != nil {
			t.Blocked("%v", err)
		}
		t.Step("resources/templates/list, every page")
		templates, err := listAll(t, s, protocol.MethodResourcesTemplatesList, "resourceTemplates", "uriTemplate")
		if err != nil {
			templates = nil // templates are optional: a server may have none to list
		}
		uris := sortedSet(listed, maxReads)
		for _, tpl := range sortedSet(templates, maxTemplates) {
			uris = append(uris, expandTemplate(tpl, templateValue))
		}
		var invalid, notEchoed, badBlobs []string
		results := 0
		for _, uri := range uris {
			resp, err := read(t, s, uri)
			if err != nil && serverside.Unanswered(s, err) {
				t.Blocked("resources/read %s was not answered: %v", uri, err)
			}
			if err != nil || resp.Error != nil {
				continue
			}
			if judge.StringField(resp.Result, "resultType") == "input_required" {
				continue // a question, not contents: the mrtr family judges it
			}
			results++
			blobs, fixed := judgeBlobs(resp.Result)
			for _, b := range blobs {
				badBlobs = append(badBlobs, uri+": "+b)
			}
			if verr := judge.ValidateResult(t.Env.Version, protocol.MethodResourcesRead, fixed); verr != nil {
				invalid = append(invalid, uri+": "+verr.Error())
			}
			echoed := false
			var got []string
			for _, c := range contents(resp) {
				echoed = echoed || c.URI == uri
				got = append(got, c.URI)
			}
			if !echoed {
				notEchoed = append(notEchoed, fmt.Sprintf("%s: items of %q", uri, got))
			}
		}
		if results == 0 {
			t.SkipRest(fmt.Sprintf("none of the %d URIs read (listed resources, expanded templates) answered a result", len(uris)))
		}
		expected := fmt.Sprintf("each of the %d results", results)
		t.Judge(everyValid, len(invalid) == 0, expected+" a valid ReadResourceResult", strings.Join(invalid, "; "))
		t.Judge(everyURIEchoed, len(notEchoed) == 0, expected+" with an item of the URI read", strings.Join(notEchoed, "; "))
		t.Judge(everyBlobBase64, len(badBlobs) == 0, "every blob in base64", strings.Join(badBlobs, "; "))
	}),
}

// judgeBlobs names the blobs of a read result that are not base64, and
// returns the result with those blobs emptied, so that the schema judge
// does not count the same defect twice.
func judgeBlobs(result json.RawMessage) (bad []string, fixed json.RawMessage) {
	var r map[string]any
	if json.Unmarshal(result, &r) != nil {
		return nil, result
	}
	items, _ := r["contents"].([]any)
	for i, it := range items {
		m, _ := it.(map[string]any)
		blob, ok := m["blob"].(string)
		if !ok {
			continue
		}
		if _, err := base64.StdEncoding.DecodeString(blob); err != nil {
			bad = append(bad, fmt.Sprintf("contents[%d].blob %q: %v", i, judge.Abbreviate(blob, 40), err))
			m["blob"] = ""
		}
	}
	fixed, _ = json.Marshal(r)
	return bad, fixed
}

// templateExpr is one RFC 6570 expression: an optional operator, then
// variables (with any modifier).
var templateExpr = regexp.MustCompile(`\{([+#./;?&]?)([^}]*)\}`)

// expandTemplate expands every expression of an RFC 6570 URI template with
// value for each of its variables (value is unreserved: no encoding).
func expandTemplate(tpl, value string) string {
	return templateExpr.ReplaceAllStringFunc(tpl, func(expr string) string {
		m := templateExpr.FindStringSubmatch(expr)
		op, names := m[1], strings.Split(m[2], ",")
		var parts []string
		for _, n := range names {
			n = strings.TrimRight(strings.SplitN(n, ":", 2)[0], "*")
			switch op {
			case ";", "?", "&":
				parts = append(parts, n+"="+value)
			default:
				parts = append(parts, value)
			}
		}
		switch op {
		case "", "+":
			return strings.Join(parts, ",")
		case "#":
			return "#" + strings.Join(parts, ",")
		case ".", "/", ";":
			return op + strings.Join(parts, op)
		case "?":
			return "?" + strings.Join(parts, "&")
		default: // "&"
			return "&" + strings.Join(parts, "&")
		}
	})
}

// sortedSet is the keys of set in order, at most n.
func sortedSet(set map[string]bool, n int) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}
