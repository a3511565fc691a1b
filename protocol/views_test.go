package protocol

import (
	"reflect"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol/exttasks"
	v0326 "github.com/mcpconform/mcpconform/protocol/v20250326"
	v0618 "github.com/mcpconform/mcpconform/protocol/v20250618"
	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
	v2 "github.com/mcpconform/mcpconform/protocol/v20260728"
)

// viewPaths lists the JSON paths of a view's fields ("content.type"), and
// those of them the generated type gen has too. A field whose generated
// counterpart is a union (an interface) or free-form ends the walk there.
func viewPaths(view, gen reflect.Type, prefix string, all, found map[string]bool) {
	view, gen = elem(view), elem(gen)
	if view.Kind() != reflect.Struct {
		return
	}
	if members := unionMembers(gen); members != nil {
		for _, m := range members {
			viewPaths(view, m, prefix, all, found)
		}
		return
	}
	for f := range view.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		path := prefix + name
		all[path] = true
		if gen == nil || gen.Kind() != reflect.Struct {
			continue
		}
		g, ok := jsonField(gen, name)
		if !ok {
			continue
		}
		found[path] = true
		if gt := elem(g.Type); gt.Kind() == reflect.Struct {
			viewPaths(f.Type, gt, path+".", all, found)
		} else {
			viewPaths(f.Type, nil, path+".", all, map[string]bool{}) // nothing below a union to hold it to
			markBelow(f.Type, path+".", found)
		}
	}
}

// markBelow counts the fields below a union as found: the union's members
// are held to the view separately (the content and resource-contents views).
func markBelow(t reflect.Type, prefix string, found map[string]bool) {
	t = elem(t)
	if t.Kind() != reflect.Struct {
		return
	}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			found[prefix+name] = true
			markBelow(f.Type, prefix+name+".", found)
		}
	}
}

// unionMembers are the members of a generated union (a struct of untagged
// pointers to its variants), nil for any other type.
func unionMembers(t reflect.Type) []reflect.Type {
	if t == nil || t.Kind() != reflect.Struct || t.NumField() == 0 {
		return nil
	}
	var out []reflect.Type
	for f := range t.Fields() {
		if f.Tag.Get("json") != "" || f.Type.Kind() != reflect.Pointer {
			return nil
		}
		out = append(out, f.Type.Elem())
	}
	return out
}

func elem(t reflect.Type) reflect.Type {
	for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice) {
		t = t.Elem()
	}
	return t
}

func jsonField(t reflect.Type, name string) (reflect.StructField, bool) {
	for f := range t.Fields() {
		if n, _, _ := strings.Cut(f.Tag.Get("json"), ","); n == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// heldTo checks that every field of view is a field of at least one of the
// generated types gens.
func heldTo(view reflect.Type, gens ...reflect.Type) {
	all, found := map[string]bool{}, map[string]bool{}
	for _, g := range gens {
		viewPaths(view, g, "", all, found)
	}
	var invented []string
	for p := range all {
		if !found[p] {
			invented = append(invented, p)
		}
	}
	Expect(invented).To(BeEmpty(), "fields of %s that no generated type of any version has", view)
}

// resultsOf are the generated result types of method at every version that has it.
func resultsOf(method string) []reflect.Type {
	var out []reflect.Type
	for _, methods := range registry {
		if e, ok := methods[method]; ok && e.result != nil {
			out = append(out, e.result)
		}
	}
	Expect(out).NotTo(BeEmpty(), method)
	return out
}

// paramsOf are the generated params types of a notification at every version.
func paramsOf(method string) []reflect.Type {
	var out []reflect.Type
	for _, methods := range registry {
		if e, ok := methods[method]; ok {
			if f, found := jsonField(e.request, "params"); found {
				out = append(out, f.Type)
			}
		}
	}
	Expect(out).NotTo(BeEmpty(), method)
	return out
}

var _ = Describe("the views of what a peer sends", func() {
	It("name only fields the generated types of some version have", func() {
		heldTo(reflect.TypeFor[ToolResult](), resultsOf(MethodToolsCall)...)
		heldTo(reflect.TypeFor[ToolsPage](), resultsOf(MethodToolsList)...)
		heldTo(reflect.TypeFor[PromptResult](), resultsOf(MethodPromptsGet)...)
		heldTo(reflect.TypeFor[PromptsPage](), resultsOf(MethodPromptsList)...)
		heldTo(reflect.TypeFor[ResourcesPage](), resultsOf(MethodResourcesList)...)
		heldTo(reflect.TypeFor[ResourceTemplatesPage](), resultsOf(MethodResourcesTemplatesList)...)
		heldTo(reflect.TypeFor[ReadResult](), resultsOf(MethodResourcesRead)...)
		heldTo(reflect.TypeFor[CompleteResult](), resultsOf(MethodCompletionComplete)...)
		heldTo(reflect.TypeFor[ProgressParams](), paramsOf(NotificationProgress)...)
		heldTo(reflect.TypeFor[LogParams](), paramsOf(NotificationMessage)...)
		heldTo(reflect.TypeFor[Page](), resultsOf(MethodToolsList)...)
		heldTo(reflect.TypeFor[Meta](), resultsOf(MethodToolsCall)...)
		heldTo(reflect.TypeFor[Meta](), paramsOf(NotificationProgress)...)
		heldTo(reflect.TypeFor[InitializeResult](), resultsOf(MethodInitialize)...)
		heldTo(reflect.TypeFor[DiscoverResult](), resultsOf(MethodServerDiscover)...)
		heldTo(reflect.TypeFor[ElicitParams](), paramsOf(MethodElicitationCreate)...)
		heldTo(reflect.TypeFor[CreateMessageParams](), paramsOf(MethodSamplingCreateMessage)...)
		heldTo(reflect.TypeFor[Cacheable](), resultsOf(MethodToolsList)...)
		heldTo(reflect.TypeFor[Cacheable](), resultsOf(MethodServerDiscover)...)
	})

	It("hold the views of errors, tasks and input requests to their generated types", func() {
		heldTo(reflect.TypeFor[Implementation](), reflect.TypeFor[v0326.Implementation](), reflect.TypeFor[v1.Implementation]())
		heldTo(reflect.TypeFor[ErrorObject](), reflect.TypeFor[v1.Error](), reflect.TypeFor[v2.Error](), reflect.TypeFor[exttasks.Error]())
		heldTo(reflect.TypeFor[UnsupportedVersionData](), reflect.TypeFor[v2.UnsupportedProtocolVersionErrorErrorData]())
		heldTo(reflect.TypeFor[MissingCapabilityData](), reflect.TypeFor[v2.MissingRequiredClientCapabilityErrorErrorData]())
		heldTo(reflect.TypeFor[Task](), reflect.TypeFor[v1.Task]())
		heldTo(reflect.TypeFor[CreateTaskResult](), reflect.TypeFor[v1.CreateTaskResult]())
		heldTo(reflect.TypeFor[RelatedTask](), reflect.TypeFor[v1.RelatedTaskMetadata]())
		heldTo(reflect.TypeFor[InputRequest](), reflect.TypeFor[v2.InputRequest]())
	})

	It("hold the content and resource-contents unions to their members", func() {
		heldTo(reflect.TypeFor[Content](),
			reflect.TypeFor[v0326.TextContent](), reflect.TypeFor[v0326.ImageContent](), reflect.TypeFor[v0326.AudioContent](),
			reflect.TypeFor[v0326.EmbeddedResource](), reflect.TypeFor[v0618.ResourceLink](),
			reflect.TypeFor[v1.TextContent](), reflect.TypeFor[v1.ResourceLink](), reflect.TypeFor[v1.EmbeddedResource](),
			reflect.TypeFor[v2.TextContent](), reflect.TypeFor[v2.ResourceLink](), reflect.TypeFor[v2.EmbeddedResource](),
			// The embedded resource's contents are a union too.
			reflect.TypeFor[struct {
				Resource v1.TextResourceContents `json:"resource"`
			}](), reflect.TypeFor[struct {
				Resource v1.BlobResourceContents `json:"resource"`
			}]())
		heldTo(reflect.TypeFor[ResourceContents](),
			reflect.TypeFor[v1.TextResourceContents](), reflect.TypeFor[v1.BlobResourceContents](),
			reflect.TypeFor[v2.TextResourceContents](), reflect.TypeFor[v2.BlobResourceContents]())
	})

	It("catch a field no version has", func() {
		type invented struct {
			Content []Content `json:"content"`
			Bogus   string    `json:"bogusField"`
		}
		all, found := map[string]bool{}, map[string]bool{}
		for _, g := range resultsOf(MethodToolsCall) {
			viewPaths(reflect.TypeFor[invented](), g, "", all, found)
		}
		Expect(all).To(HaveKey("bogusField"))
		Expect(found).NotTo(HaveKey("bogusField"))
		Expect(found).To(HaveKey("content"))
	})
})
