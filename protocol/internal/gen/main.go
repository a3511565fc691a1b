// Command gen generates the Go wire types of each MCP schema version into
// its own package (protocol/v20250326, protocol/v20250618, protocol/v20251125,
// protocol/v20260728, protocol/exttasks).
// It is run by `go generate ./protocol` (see protocol/generate.go) and by the
// freshness test, which compares its output with the committed files.
//
// Usage:
//
//	go run ./internal/gen -spec DIR -out DIR NAME=PKG...
//
// reads DIR/NAME/schema.json and writes -out/PKG/types_gen.go and
// -out/PKG/unions_gen.go for every NAME=PKG.
//
// The code generator is go-jsonschema v0.24.1, used as a library so the
// schema can be prepared in memory first. Its output for the MCP schemas does
// not compile as-is, and where it does, unions come out as interface{} and
// validate nothing. So before handing the schema over, gen rewrites it:
//
//  0. A draft-07 schema (2025-03-26, 2025-06-18: `definitions` and
//     `#/definitions/X`) is moved to the 2020-12 form of the later ones
//     (`$defs`, `#/$defs/X`), so the steps below see one dialect.
//  1. Inline copies of a definition are replaced by a $ref to it (the
//     ext-tasks schema is emitted by zod and inlines every definition it
//     uses, and 2025-03-26's JSONRPCMessage inlines the two batch arrays);
//     otherwise each copy would become its own, differently named Go type
//     and union names would clash.
//  2. `allOf` is merged into one object (properties and required lists
//     combined, later parts win). go-jsonschema turns most allOf into
//     interface{} (GetTaskResult, CancelTaskResult, ext-tasks requests). An
//     allOf with an `anyOf` part is distributed over it, e.g. ext-tasks
//     GetTaskResult = Result ∧ (WorkingTask | ... ) becomes a union of five
//     merged objects.
//  3. Nullable values (`type: [T, "null"]`, `anyOf: [T, {type: null}]`) become
//     a pointer field tagged `mcp:"nullable"` (go-jsonschema would declare a
//     named pointer type), so the validator knows where null is allowed; an
//     anyOf of string consts becomes an enum; `type: [A, B]` becomes an anyOf.
//  4. `additionalProperties: {}` next to `properties` is dropped: it is the
//     JSON Schema default anyway, and go-jsonschema would add a catch-all field
//     that needs github.com/go-viper/mapstructure/v2, which we don't depend on.
//     (None of the MCP schemas uses `additionalProperties: false`.)
//  5. Every remaining `anyOf` becomes a union type that gen emits itself
//     (unions_gen.go): a struct with one pointer or slice field per variant,
//     decoded by protocol/internal/jsonunion, which picks the variant by JSON
//     kind and then by a discriminator member whose value is a distinct
//     constant in each variant (ContentBlock's "type", ext-tasks' "status",
//     a request's "method"), and then decodes strictly into that variant. The
//     schema node is replaced by a go-jsonschema "goJSONSchema.type"
//     reference to it. This is what fixes the array-or-single content of
//     CreateMessageResult/SamplingMessage (go-jsonschema references
//     undefined `..._5` types there), and makes ContentBlock, RequestId,
//     ProgressToken etc. reject bad values. Unions without a discriminator
//     (ServerResult, TextResourceContents | BlobResourceContents) try their
//     variants most-specific first (most required members), since the first
//     that decodes wins.
//
// After generation only the header line is changed, to say where the code
// came from. gen fails if any anyOf/allOf/oneOf or multi-type node survives
// preparation, or go-jsonschema warns about anything but a duplicate name,
// so a new schema construct cannot silently become interface{}.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/atombender/go-jsonschema/pkg/generator"
	"github.com/atombender/go-jsonschema/pkg/schemas"
)

// unionRuntime is imported by the generated unions.
const unionRuntime = "github.com/mcpconform/mcpconform/protocol/internal/jsonunion"

// nullableTag marks struct fields whose schema allows null; the validator in
// package protocol rejects null everywhere else.
const nullableTag = "nullable"

func main() {
	specDir := flag.String("spec", "", "directory holding NAME/schema.json")
	outDir := flag.String("out", ".", "directory under which the packages are written")
	flag.Parse()
	if *specDir == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -spec DIR [-out DIR] NAME=PKG...")
		os.Exit(2)
	}
	for _, arg := range flag.Args() {
		name, pkg, ok := strings.Cut(arg, "=")
		if !ok {
			fail(fmt.Errorf("argument %q is not NAME=PKG", arg))
		}
		files, err := generate(filepath.Join(*specDir, name, "schema.json"), "schema/"+name+"/schema.json", pkg)
		if err != nil {
			fail(fmt.Errorf("%s: %w", name, err))
		}
		dir := filepath.Join(*outDir, pkg)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fail(err)
		}
		for _, f := range slices.Sorted(maps.Keys(files)) {
			if err := os.WriteFile(filepath.Join(dir, f), files[f], 0o644); err != nil {
				fail(err)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(1)
}

// generate returns the generated files of one package by name.
func generate(schemaPath, displayPath, pkg string) (map[string][]byte, error) {
	raw, err := os.ReadFile(schemaPath)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	if err := draft07(doc); err != nil {
		return nil, err
	}
	defs, ok := doc["$defs"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no $defs")
	}
	p := &prep{defs: defs, unions: map[string]*union{}}
	if err := p.run(); err != nil {
		return nil, err
	}
	prepared, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}

	header := fmt.Sprintf("// Code generated by protocol/internal/gen from mcp-spec %s with go-jsonschema %s. DO NOT EDIT.",
		displayPath, goJSONSchemaVersion())
	types, err := runGoJSONSchema(prepared, pkg)
	if err != nil {
		return nil, err
	}
	first, rest, _ := bytes.Cut(types, []byte("\n"))
	if !bytes.HasPrefix(first, []byte("// Code generated")) {
		return nil, fmt.Errorf("unexpected go-jsonschema header %q", first)
	}
	types = append([]byte(header+"\n"), rest...)

	unions, err := p.render(header, pkg, strings.TrimSuffix(strings.TrimPrefix(displayPath, "schema/"), "/schema.json"))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"types_gen.go": types, "unions_gen.go": unions}, nil
}

// goJSONSchemaVersion is the go-jsonschema version this binary was built
// with (from go.mod), so the header changes, and the freshness test fails,
// when it is bumped without regenerating.
func goJSONSchemaVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/atombender/go-jsonschema" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}

func runGoJSONSchema(schemaJSON []byte, pkg string) ([]byte, error) {
	schema, err := schemas.FromJSONReader(bytes.NewReader(schemaJSON))
	if err != nil {
		return nil, err
	}
	var warnings []string
	g, err := generator.New(generator.Config{
		DefaultPackageName: pkg,
		DefaultOutputName:  "types_gen.go",
		Tags:               []string{"json"},
		Capitalizations:    []string{"ID", "URI", "URL"},
		Warner:             func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		return nil, err
	}
	if err := g.AddFile("schema.json", schema); err != nil {
		return nil, err
	}
	src, err := g.Sources()
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		// Duplicate-name warnings are harmless (go-jsonschema appends _1);
		// anything else means a construct it could not type.
		if !strings.HasPrefix(w, "Multiple types map to the name") {
			return nil, fmt.Errorf("go-jsonschema: %s", w)
		}
	}
	out, ok := src["types_gen.go"]
	if !ok || len(src) != 1 {
		return nil, fmt.Errorf("go-jsonschema produced %d files, want types_gen.go", len(src))
	}
	return out, nil
}
