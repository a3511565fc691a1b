package conform_test

import (
	"context"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/conform"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/reports"
	"github.com/mcpconform/mcpconform/suites"
	"github.com/mcpconform/mcpconform/transport"
)

// The test binary is the relay of a client judged over stdio.
func TestMain(m *testing.M) { conform.Main(m) }

// childEnv runs a test of this binary as a child whose own verdicts the
// parent reads: a conform run that must fail cannot fail the parent.
const childEnv = "CONFORM_TEST_CHILD"

// referenceURL serves the reference server (or a fault of it) over
// Streamable HTTP on loopback until the test ends.
func referenceURL(t *testing.T, fault string) string {
	t.Helper()
	opts := server.ReferenceOptions{}
	if fault != "" {
		f, err := server.Faults().Find(fault)
		if err != nil {
			t.Fatal(err)
		}
		opts.Variant = f
	}
	ref, err := suites.StartReference(context.Background(), transport.HTTP, opts, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ref.Stop)
	return ref.Target.URL
}

var selection = []string{"lifecycle-initialize", "lifecycle-ping", "tools-list"}

func TestServerByURL(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	run := conform.Server(t, conform.ServerTarget{URL: referenceURL(t, "")}, conform.Options{Scenarios: selection, ReportDir: dir})
	g.Expect(run.Scenarios).To(HaveLen(len(selection)))
	counts := run.Counts()
	g.Expect(counts.Passed).To(BeNumerically(">=", len(selection)))
	g.Expect(counts.Passed+counts.Skipped).To(Equal(counts.Total), "the reference passes what applies")
	g.Expect(filepath.Join(dir, "results.json")).To(BeARegularFile())
}

// A Handler is served on loopback: here one that passes every request on
// to the reference server.
func TestServerByHandler(t *testing.T) {
	g := NewWithT(t)
	u, err := url.Parse(referenceURL(t, ""))
	g.Expect(err).NotTo(HaveOccurred())
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	run := conform.Server(t, conform.ServerTarget{Handler: proxy, Path: u.Path}, conform.Options{Scenarios: selection})
	g.Expect(run.Target).To(HavePrefix("http: http://127.0.0.1:"))
	counts := run.Counts()
	g.Expect(counts.Passed).To(BeNumerically(">=", len(selection)))
	g.Expect(counts.Passed + counts.Skipped).To(Equal(counts.Total))
}

// TestChildFaultyServer is the child's part of TestFailuresAreTestErrors.
func TestChildFaultyServer(t *testing.T) {
	if os.Getenv(childEnv) != "faulty-server" {
		t.Skip("run by TestFailuresAreTestErrors")
	}
	conform.Server(t, conform.ServerTarget{URL: referenceURL(t, "ping-error")}, conform.Options{Scenarios: selection})
}

func TestFailuresAreTestErrors(t *testing.T) {
	g := NewWithT(t)
	out, code := child(t, "TestChildFaultyServer", "faulty-server")
	g.Expect(code).To(Equal(1), out)
	g.Expect(out).To(ContainSubstring("--- FAIL: TestChildFaultyServer/http/2025-11-25/lifecycle-ping/empty-result"))
	g.Expect(out).To(ContainSubstring("Expected:"))
	g.Expect(out).To(ContainSubstring("--- PASS: TestChildFaultyServer/http/2025-11-25/tools-list/"))
	g.Expect(out).To(ContainSubstring("transcript of lifecycle-ping"))
}

// TestChildExpected is the child's part of TestExpectedFailures.
func TestChildExpected(t *testing.T) {
	if os.Getenv(childEnv) != "expected" {
		t.Skip("run by TestExpectedFailures")
	}
	conform.Server(t, conform.ServerTarget{URL: referenceURL(t, "ping-error")}, conform.Options{Scenarios: selection,
		ExpectedFailures: os.Getenv("CONFORM_TEST_BASELINE")})
}

func TestExpectedFailures(t *testing.T) {
	g := NewWithT(t)
	dir := t.TempDir()
	baseline := filepath.Join(dir, "expected.yaml")
	g.Expect(os.WriteFile(baseline, []byte("server:\n  - lifecycle-ping/empty-result\n"), 0o644)).To(Succeed())
	t.Setenv("CONFORM_TEST_BASELINE", baseline)
	out, code := child(t, "TestChildExpected", "expected")
	g.Expect(code).To(Equal(0), out)
	g.Expect(out).To(ContainSubstring("expected failure (lifecycle-ping/empty-result"))

	// An entry whose check passes is stale: an error.
	g.Expect(os.WriteFile(baseline, []byte("server:\n  - lifecycle-ping/empty-result\n  - tools-list\n"), 0o644)).To(Succeed())
	out, code = child(t, "TestChildExpected", "expected")
	g.Expect(code).To(Equal(1), out)
	g.Expect(out).To(ContainSubstring("stale expected failure tools-list"))
}

// TestChildBadOptions is the child's part of TestBadOptions.
func TestChildBadOptions(t *testing.T) {
	switch os.Getenv(childEnv) {
	case "no-target":
		conform.Server(t, conform.ServerTarget{}, conform.Options{})
	case "unknown-scenario":
		conform.Server(t, conform.ServerTarget{URL: "http://127.0.0.1:1/mcp"}, conform.Options{Scenarios: []string{"tools-lst"}})
	case "bad-scheme":
		conform.Server(t, conform.ServerTarget{URL: "ftp://127.0.0.1/mcp"}, conform.Options{})
	default:
		t.Skip("run by TestBadOptions")
	}
	t.Error("not stopped")
}

func TestBadOptions(t *testing.T) {
	for mode, want := range map[string]string{
		"no-target":        "give exactly one of Command, URL and Handler",
		"unknown-scenario": `unknown scenario "tools-lst"`,
		"bad-scheme":       "the scheme must be http, https, ws or wss",
	} {
		t.Run(mode, func(t *testing.T) {
			g := NewWithT(t)
			out, code := child(t, "TestChildBadOptions", mode)
			g.Expect(code).To(Equal(1), out)
			g.Expect(out).To(ContainSubstring(want))
			g.Expect(out).NotTo(ContainSubstring("not stopped"))
		})
	}
}

var (
	buildOnce sync.Once
	exe       string
	buildErr  error
)

// mcpconformBinary builds the mcpconform binary once: its fake-client is
// the client judged.
func mcpconformBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "conform-test")
		if err != nil {
			buildErr = err
			return
		}
		exe = filepath.Join(dir, "mcpconform")
		out, err := exec.Command("go", "build", "-o", exe, "../cmd/mcpconform").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Log(string(out))
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return exe
}

// The reference client over stdio (through this binary as its relay) and
// HTTP passes.
func TestClientReference(t *testing.T) {
	g := NewWithT(t)
	run := conform.Client(t, conform.ClientTarget{Command: []string{mcpconformBinary(t), "fake-client"}},
		conform.Options{Transports: []string{"stdio", "http"}, Scenarios: []string{"client-initialize", "client-tools-call"}})
	g.Expect(run.Scenarios).To(HaveLen(4))
	counts := run.Counts()
	g.Expect(counts.Passed).To(BeNumerically(">=", 4))
	g.Expect(counts.Passed + counts.Skipped).To(Equal(counts.Total))
	for _, s := range run.Scenarios {
		g.Expect(s.Checks).NotTo(ContainElement(HaveField("Status", reports.Errored)), s.ID)
	}
}

// child runs one test of this binary with mode in childEnv; its output and
// exit code.
func child(t *testing.T, test, mode string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", "^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out)), code
}
