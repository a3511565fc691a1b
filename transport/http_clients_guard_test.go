package transport

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The source guard: every HTTP client of mcpconform comes from
// NewHTTPClient, which never follows a redirect. A client made any other
// way (http.Client{}, a zero http.Client, http.DefaultClient, http.Get …)
// follows them, sending the target's headers and tokens wherever a 3xx
// points. Tests are left out: their clients talk to the tests' own servers.

// clientMakers may build an http.Client themselves, as long as the literal
// sets CheckRedirect: the constructor, and the hostile programs, which share
// no code with the suite.
var clientMakers = map[string]bool{
	"transport/http_redirect.go":     true,
	"internal/hostile/main.go":       true,
	"internal/hostileclient/main.go": true,
}

// dialerMakers may build a WebSocket dialer (gorilla's follows no redirect,
// but one place makes them, so one place answers for their 3xx).
var dialerMakers = map[string]bool{"transport/ws.go": true}

// httpClientViolations lists, as "file:line: what", the ways src (the file
// at rel, relative to the module root) makes an HTTP client other than
// NewHTTPClient.
func httpClientViolations(rel string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	httpName, wsName := "", ""
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch path {
		case "net/http":
			httpName = name
		case "github.com/gorilla/websocket":
			wsName = name
		}
	}
	var out []string
	flag := func(n ast.Node, format string, args ...any) {
		out = append(out, fmt.Sprintf("%s: %s", fset.Position(n.Pos()), fmt.Sprintf(format, args...)))
	}
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		parent := ast.Node(nil)
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		stack = append(stack, n)
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		switch {
		case httpName != "" && pkg.Name == httpName:
			switch sel.Sel.Name {
			case "DefaultClient", "Get", "Post", "PostForm", "Head":
				flag(sel, "http.%s follows redirects: use transport.NewHTTPClient", sel.Sel.Name)
			case "DefaultTransport":
				if !clientMakers[rel] {
					flag(sel, "http.DefaultTransport outside the constructor: use transport.NewHTTPClient or NewHTTPTransport")
				}
			case "Client":
				if _, ptr := parent.(*ast.StarExpr); ptr {
					return true // a *http.Client comes from somewhere: the constructor
				}
				lit, isLit := parent.(*ast.CompositeLit)
				switch {
				case !clientMakers[rel]:
					flag(sel, "an http.Client made here follows redirects: use transport.NewHTTPClient")
				case !isLit || !setsField(lit, "CheckRedirect"):
					flag(sel, "an http.Client without CheckRedirect follows redirects")
				}
			}
		case wsName != "" && pkg.Name == wsName:
			switch sel.Sel.Name {
			case "DefaultDialer":
				flag(sel, "websocket.DefaultDialer: use transport.DialWebSocket")
			case "Dialer":
				if _, ptr := parent.(*ast.StarExpr); !ptr && !dialerMakers[rel] {
					flag(sel, "a websocket.Dialer made here: use transport.DialWebSocket")
				}
			}
		}
		return true
	})
	return out, nil
}

func setsField(lit *ast.CompositeLit, name string) bool {
	for _, e := range lit.Elts {
		if kv, ok := e.(*ast.KeyValueExpr); ok {
			if k, ok := kv.Key.(*ast.Ident); ok && k.Name == name {
				return true
			}
		}
	}
	return false
}

var _ = Describe("the HTTP clients of mcpconform", func() {
	It("all come from NewHTTPClient (a source guard over the module)", func() {
		root, err := filepath.Abs("..")
		Expect(err).NotTo(HaveOccurred())
		Expect(filepath.Join(root, "go.mod")).To(BeARegularFile(), "the module root is the transport package's parent")
		var violations []string
		files := 0
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel == "." {
					return nil
				}
				name := d.Name()
				if strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // another module (interop/): not mcpconform's code
				}
				return nil
			}
			if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			v, err := httpClientViolations(rel, src)
			if err != nil {
				return err
			}
			violations = append(violations, v...)
			return nil
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(files).To(BeNumerically(">", 100), "the walk read the module's files")
		Expect(violations).To(BeEmpty())
	})

	It("the guard catches each way of making a client that follows redirects", func() {
		src := []byte(`package p

import (
	nethttp "net/http"
	ws "github.com/gorilla/websocket"
)

type raw struct {
	hc  nethttp.Client
	ok  *nethttp.Client
}

func f() {
	_ = &nethttp.Client{}
	_ = new(nethttp.Client)
	_, _ = nethttp.DefaultClient.Get("http://127.0.0.1/")
	_, _ = nethttp.Get("http://127.0.0.1/")
	_, _ = nethttp.Post("http://127.0.0.1/", "", nil)
	_ = nethttp.DefaultTransport
	_ = ws.DefaultDialer
	_ = ws.Dialer{}
	// http.Client{} in a comment is no client
}
`)
		v, err := httpClientViolations("scenarios/p/p.go", src)
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(HaveLen(9), "%q", v)
		for i, line := range []int{9, 14, 15, 16, 17, 18, 19, 20, 21} {
			Expect(v[i]).To(HavePrefix(fmt.Sprintf("scenarios/p/p.go:%d:", line)))
		}

		maker := []byte(`package p

import "net/http"

var good = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
var bad = &http.Client{}
`)
		v, err = httpClientViolations("internal/hostileclient/main.go", maker)
		Expect(err).NotTo(HaveOccurred())
		Expect(v).To(ConsistOf(HavePrefix("internal/hostileclient/main.go:6:")))
	})
})
