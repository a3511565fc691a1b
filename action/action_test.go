package action_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"
)

// scriptWithin bounds one run of a script: a real run judges one scenario.
const scriptWithin = 3 * time.Minute

type result struct {
	code   int
	output string // stdout and stderr, interleaved
}

// runScript runs action/NAME with exactly env (plus PATH and HOME and the
// Go variables a build needs), in dir when given: a runner's environment,
// not the test's.
func runScript(name string, env map[string]string, dir ...string) result {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(context.Background(), scriptWithin)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "action", name))
	if len(dir) > 0 {
		cmd.Dir = dir[0]
	}
	for _, k := range []string{"PATH", "HOME", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GONOSUMDB", "GOSUMDB", "GOTOOLCHAIN"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	Expect(ctx.Err()).NotTo(HaveOccurred(), "%s did not finish within %s:\n%s", name, scriptWithin, out.String())
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
	return result{code: code, output: out.String()}
}

// readOutputs parses a GITHUB_OUTPUT file of name=value lines.
func readOutputs(path string) map[string]string {
	GinkgoHelper()
	data, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		Expect(ok).To(BeTrue(), "GITHUB_OUTPUT line %q", line)
		Expect(out).NotTo(HaveKey(k), "output %s written twice", k)
		out[k] = v
	}
	return out
}

// The parts of action.yml the tests read.
type actionFile struct {
	Name        string
	Description string
	Inputs      map[string]struct {
		Description string
		Required    bool
		Default     *string
	}
	Outputs map[string]struct {
		Description string
		Value       string
	}
	Runs struct {
		Using string
		Steps []actionStep
	}
}

type actionStep struct {
	Name  string
	ID    string
	If    string
	Uses  string
	Shell string
	Run   string
	Env   map[string]string
	With  map[string]string
}

func readAction() (actionFile, string) {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(root, "action.yml"))
	Expect(err).NotTo(HaveOccurred())
	var a actionFile
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	Expect(dec.Decode(&a)).To(Succeed())
	return a, string(raw)
}

func readScript(name string) string {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(root, "action", name))
	Expect(err).NotTo(HaveOccurred())
	return string(raw)
}

// fakeBin is a stand-in for mcpconform that writes its arguments, one a
// line, to the file $FAKE_ARGS and exits with $FAKE_EXIT.
func fakeBin() string {
	GinkgoHelper()
	path := filepath.Join(GinkgoT().TempDir(), "mcpconform")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$FAKE_ARGS\"\nexit \"${FAKE_EXIT:-0}\"\n"
	Expect(os.WriteFile(path, []byte(script), 0o755)).To(Succeed())
	return path
}

// job is the environment of one run step: the action's inputs as
// action.yml maps them, the GITHUB_* files, and the fake binary.
type job struct {
	dir, summary, output, args string
	env                        map[string]string
}

func newJob(inputs map[string]string) *job {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	j := &job{
		dir:     dir,
		summary: filepath.Join(dir, "step_summary.md"),
		output:  filepath.Join(dir, "github_output"),
		args:    filepath.Join(dir, "args"),
	}
	// The job summary already holds an earlier step's text: the run appends.
	Expect(os.WriteFile(j.summary, []byte("earlier step\n"), 0o644)).To(Succeed())
	j.env = map[string]string{
		"GITHUB_STEP_SUMMARY": j.summary, "GITHUB_OUTPUT": j.output, "GITHUB_JOB": "conformance",
		"GITHUB_ACTIONS": "true", "CI": "true", "FAKE_ARGS": j.args,
	}
	for k, v := range inputs {
		j.env["INPUT_"+strings.ToUpper(strings.ReplaceAll(k, "-", "_"))] = v
	}
	return j
}

func (j *job) run() result {
	GinkgoHelper()
	return runScript("run.sh", j.env, j.dir)
}

// argv is what the fake binary was called with.
func (j *job) argv() []string {
	GinkgoHelper()
	data, err := os.ReadFile(j.args)
	Expect(err).NotTo(HaveOccurred(), "mcpconform was not run")
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// allInputs sets every input of action.yml that run.sh reads.
func allInputs(side, target string) map[string]string {
	return map[string]string{
		"side": side, "target": target, "transport": "", "spec-versions": "2025-11-25,2026-07-28",
		"expected-failures": "expected.yaml", "shard": "2/3", "output-dir": "reports",
		"extra-args":    `--strict --label-filter 'level: containsAny MUST' --timeout 30s`,
		"artifact-name": "",
	}
}

// flagsOf lists the flags in argv before a "--".
func flagsOf(argv []string) []string {
	var out []string
	for _, a := range argv {
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			name, _, _ := strings.Cut(a, "=")
			out = append(out, name)
		}
	}
	return out
}

// inHelp reports whether flag (--name or -x) is listed in a --help text.
func inHelp(help, flag string) bool {
	var re *regexp.Regexp
	if strings.HasPrefix(flag, "--") {
		re = regexp.MustCompile(`(?m)^\s+(-\w, )?` + regexp.QuoteMeta(flag) + `\b`)
	} else {
		re = regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(flag) + `, --`)
	}
	return re.MatchString(help)
}

var _ = Describe("action.yml", func() {
	It("is a composite action whose inputs are described and used, each passed to the script that reads it", func() {
		a, raw := readAction()
		Expect(a.Name).NotTo(BeEmpty())
		Expect(a.Description).NotTo(BeEmpty())
		Expect(a.Runs.Using).To(Equal("composite"))
		for _, want := range []string{"side", "target", "transport", "spec-versions", "expected-failures", "shard",
			"output-dir", "extra-args", "version", "go-version"} {
			Expect(a.Inputs).To(HaveKey(want))
		}
		for name, in := range a.Inputs {
			Expect(in.Description).NotTo(BeEmpty(), "input %s", name)
			used := regexp.MustCompile(`\binputs\.` + regexp.QuoteMeta(name) + `([^A-Za-z0-9_-]|$)`)
			Expect(used.MatchString(raw)).To(BeTrue(), "input %s is never used", name)
		}

		scripts := map[string]string{"install.sh": readScript("install.sh"), "run.sh": readScript("run.sh")}
		passed := map[string]bool{} // INPUT_* variables action.yml sets
		for _, st := range a.Runs.Steps {
			if st.Run == "" {
				continue
			}
			Expect(st.Shell).To(Equal("bash"), "step %q", st.Name)
			m := regexp.MustCompile(`^"\$GITHUB_ACTION_PATH/action/([a-z]+\.sh)"$`).FindStringSubmatch(st.Run)
			Expect(m).NotTo(BeNil(), "step %q runs %q, not a script of the action", st.Name, st.Run)
			script, ok := scripts[m[1]]
			Expect(ok).To(BeTrue(), "step %q runs an unknown script %s", st.Name, m[1])
			for k, v := range st.Env {
				if !strings.HasPrefix(k, "INPUT_") {
					continue
				}
				passed[k] = true
				input := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(k, "INPUT_"), "_", "-"))
				Expect(v).To(Equal("${{ inputs."+input+" }}"), "%s of step %q", k, st.Name)
				Expect(script).To(ContainSubstring("${"+k), "%s reaches %s, which never reads it", k, m[1])
			}
		}
		// And the other way round: every variable the scripts read is set.
		for name, script := range scripts {
			for _, m := range regexp.MustCompile(`\$\{(INPUT_[A-Z_]+)`).FindAllStringSubmatch(script, -1) {
				Expect(passed).To(HaveKey(m[1]), "%s reads %s, which action.yml never sets", name, m[1])
			}
		}
	})

	It("uploads the reports also when the run failed, and its outputs are the run step's", func() {
		a, _ := readAction()
		runScriptText := readScript("run.sh")
		var upload *actionStep
		ids := map[string]bool{}
		for i, st := range a.Runs.Steps {
			ids[st.ID] = true
			if strings.HasPrefix(st.Uses, "actions/upload-artifact@") {
				upload = &a.Runs.Steps[i]
			}
		}
		Expect(upload).NotTo(BeNil(), "no actions/upload-artifact step")
		Expect(upload.If).To(ContainSubstring("always()"))
		Expect(upload.With["path"]).To(Equal("${{ steps.run.outputs.results-dir }}"))
		Expect(upload.With["name"]).To(Equal("${{ steps.run.outputs.artifact-name }}"))
		for name, out := range a.Outputs {
			Expect(out.Description).NotTo(BeEmpty(), "output %s", name)
			m := regexp.MustCompile(`^\$\{\{ steps\.([a-z-]+)\.outputs\.([a-z-]+) \}\}$`).FindStringSubmatch(out.Value)
			Expect(m).NotTo(BeNil(), "output %s", name)
			Expect(ids).To(HaveKey(m[1]))
			Expect(runScriptText).To(ContainSubstring(`echo "`+m[2]+`=`), "run.sh never writes the output %s", m[2])
		}
	})
})

var _ = Describe("action/run.sh", func() {
	var fake string
	BeforeEach(func() { fake = fakeBin() })

	It("passes only flags mcpconform has, on either side", func() {
		for _, tc := range []struct{ side, target string }{
			{"server", "node build/index.js"},
			{"server", "http://127.0.0.1:3000/mcp"},
			{"server", "ws://127.0.0.1:8080/mcp"},
			{"server", ""}, // --reference in extra-args, transport a selection
			{"client", "python client.py"},
		} {
			in := allInputs(tc.side, tc.target)
			if tc.target == "" {
				in["transport"] = "stdio,http"
				in["extra-args"] += " --reference"
			}
			j := newJob(in)
			j.env["MCPCONFORM_BIN"] = fake
			res := j.run()
			Expect(res.code).To(Equal(0), res.output)
			help, err := exec.Command(exe, tc.side, "--help").CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(help))
			flags := flagsOf(j.argv())
			Expect(flags).To(ContainElements("--spec-version", "--expected-failures", "--shard", "-o", "--strict"))
			for _, f := range flags {
				Expect(inHelp(string(help), f)).To(BeTrue(), "run.sh passes %s, which 'mcpconform %s --help' does not list", f, tc.side)
			}
		}
	})

	DescribeTable("maps the inputs to mcpconform's arguments",
		func(inputs map[string]string, want []string) {
			j := newJob(inputs)
			j.env["MCPCONFORM_BIN"] = fake
			res := j.run()
			Expect(res.code).To(Equal(0), res.output)
			Expect(j.argv()).To(Equal(want))
		},
		Entry("a server command over stdio, quotes honoured",
			map[string]string{"target": `node "build/my server.js" --port=0`},
			[]string{"server", "-o", "mcpconform-results", "--stdio", "--", "node", "build/my server.js", "--port=0"}),
		Entry("a Streamable HTTP server",
			map[string]string{"side": "server", "target": "https://127.0.0.1:3000/mcp", "transport": "http", "spec-versions": "all"},
			[]string{"server", "--spec-version", "all", "-o", "mcpconform-results", "--url", "https://127.0.0.1:3000/mcp"}),
		Entry("a Streamable HTTP server that mcpconform starts, waits for and stops",
			map[string]string{"target": "http://127.0.0.1:3000/mcp", "serve": `node "build/http server.js" --port 3000`},
			[]string{"server", "-o", "mcpconform-results", "--url", "http://127.0.0.1:3000/mcp", "--", "node", "build/http server.js", "--port", "3000"}),
		Entry("a WebSocket server, with a baseline and a shard",
			map[string]string{"target": "ws://127.0.0.1:8080/mcp", "expected-failures": "baseline.yaml", "shard": "1/4", "output-dir": "out/ws"},
			[]string{"server", "--expected-failures", "baseline.yaml", "--shard", "1/4", "-o", "out/ws", "--ws", "ws://127.0.0.1:8080/mcp"}),
		Entry("the reference server named in extra-args, on a selection of transports",
			map[string]string{"transport": "stdio,ws", "extra-args": "--reference --scenario lifecycle-initialize"},
			[]string{"server", "-o", "mcpconform-results", "--transport", "stdio,ws", "--reference", "--scenario", "lifecycle-initialize"}),
		Entry("a client command, extra flags before its argv",
			map[string]string{"side": "client", "target": "python client.py --verbose", "transport": "http", "extra-args": "--max-rounds 5"},
			[]string{"client", "-o", "mcpconform-results", "--transport", "http", "--max-rounds", "5", "--", "python", "client.py", "--verbose"}),
	)

	DescribeTable("refuses bad inputs with one line and exit 2, before running anything",
		func(inputs map[string]string, says string) {
			j := newJob(inputs)
			j.env["MCPCONFORM_BIN"] = fake
			res := j.run()
			Expect(res.code).To(Equal(2), res.output)
			Expect(strings.Split(strings.TrimSpace(res.output), "\n")).To(HaveLen(1), res.output)
			Expect(res.output).To(HavePrefix("mcpconform: action: "))
			Expect(res.output).To(ContainSubstring(says))
			Expect(j.args).NotTo(BeAnExistingFile(), "mcpconform ran")
		},
		Entry("an unknown side", map[string]string{"side": "both", "target": "x"}, "side must be server or client"),
		Entry("a transport the target contradicts", map[string]string{"target": "http://127.0.0.1:1/mcp", "transport": "ws"}, "does not match the target"),
		Entry("serve with a stdio target", map[string]string{"target": "node build/index.js", "serve": "node build/http.js"}, "a stdio target's command is the target itself"),
		Entry("serve on the client side", map[string]string{"side": "client", "target": "node client.js", "serve": "node build/http.js"}, "serve goes with side server"),
		Entry("an unbalanced quote in extra-args", map[string]string{"target": "x", "extra-args": "--label-filter 'oops"}, "cannot split"),
	)

	It("names each cell of a matrix over transports × versions × shards its own artifact", func() {
		names := map[string]bool{}
		for _, tr := range []string{"stdio", "http", "ws"} {
			for _, v := range []string{"2025-11-25", "2026-07-28"} {
				for _, sh := range []string{"1/2", "2/2"} {
					j := newJob(map[string]string{"transport": tr, "spec-versions": v, "shard": sh, "extra-args": "--reference"})
					j.env["MCPCONFORM_BIN"] = fake
					Expect(j.run().code).To(Equal(0))
					name := readOutputs(j.output)["artifact-name"]
					Expect(name).To(MatchRegexp(`^[A-Za-z0-9._-]+$`))
					Expect(names).NotTo(HaveKey(name))
					names[name] = true
				}
			}
		}
		Expect(names).To(HaveLen(12))
	})

	It("passes the exit code through and appends a note to the summary when mcpconform wrote none", func() {
		j := newJob(map[string]string{"extra-args": "--reference"})
		j.env["MCPCONFORM_BIN"] = fake
		j.env["FAKE_EXIT"] = "3"
		Expect(j.run().code).To(Equal(3))
		Expect(readOutputs(j.output)).To(HaveKeyWithValue("exit-code", "3"))
		Expect(os.ReadFile(j.summary)).To(BeEquivalentTo("earlier step\nmcpconform exited with 3 and wrote no summary.md (see the step log).\n"))
	})

	// A real run: the binary install.sh built, the reference server.
	DescribeTable("runs mcpconform against the reference server like a runner would",
		func(extra string, code int, badge string) {
			j := newJob(map[string]string{
				"side": "server", "transport": "stdio", "spec-versions": "2025-11-25", "output-dir": "out",
				"extra-args": "--reference --scenario lifecycle-initialize " + extra,
			})
			j.env["MCPCONFORM_BIN"] = exe
			res := j.run()
			Expect(res.code).To(Equal(code), res.output)

			outputs := readOutputs(j.output)
			Expect(outputs).To(HaveKeyWithValue("exit-code", fmt.Sprint(code)))
			Expect(outputs).To(HaveKeyWithValue("results-dir", filepath.Join(j.dir, "out")))
			Expect(outputs).To(HaveKeyWithValue("artifact-name", "mcpconform-conformance-server-stdio-2025-11-25"))
			for _, f := range []string{"junit.xml", "results.json", "summary.md", "report.html"} {
				Expect(filepath.Join(j.dir, "out", f)).To(BeAnExistingFile())
			}
			written, err := os.ReadFile(filepath.Join(j.dir, "out", "summary.md"))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(written)).To(ContainSubstring(badge))
			// Appended after what was there, byte for byte.
			Expect(os.ReadFile(j.summary)).To(BeEquivalentTo("earlier step\n" + string(written)))
		},
		Entry("a conformant run exits 0", "", 0, "conformance: PASS"),
		Entry("a fault exits 1", "--fault init-unknown-version", 1, "conformance: FAIL"),
	)

	It("annotates each failed check on the run's page when it runs in GitHub Actions", func() {
		j := newJob(map[string]string{
			"side": "server", "transport": "stdio", "spec-versions": "2025-11-25", "output-dir": "out",
			"extra-args": "--reference --scenario lifecycle-initialize --fault init-unknown-version",
		})
		j.env["MCPCONFORM_BIN"] = exe
		j.env["GITHUB_ACTIONS"] = "true"
		res := j.run()
		Expect(res.code).To(Equal(1), res.output)
		Expect(res.output).To(MatchRegexp(`(?m)^::error title=MUST lifecycle-initialize/\S+ \(server stdio 2025-11-25\)::Expected: `))
	})

	It("starts an HTTP server it is given to serve, judges it and stops it, like a runner would", func() {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		addr := l.Addr().String()
		Expect(l.Close()).To(Succeed())
		j := newJob(map[string]string{
			"side": "server", "target": "http://" + addr + "/mcp", "spec-versions": "2025-11-25", "output-dir": "out",
			"serve": exe + " fake-server --http " + addr, "extra-args": "--scenario lifecycle-initialize",
		})
		j.env["MCPCONFORM_BIN"] = exe
		res := j.run()
		Expect(res.code).To(Equal(0), res.output)
		Expect(readOutputs(j.output)).To(HaveKeyWithValue("exit-code", "0"))
		written, err := os.ReadFile(filepath.Join(j.dir, "out", "summary.md"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(written)).To(ContainSubstring("conformance: PASS"))
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			conn.Close()
		}
		Expect(err).To(HaveOccurred(), "the server mcpconform started is stopped when the run ends")
	})
})

// readmeWorkflow is the example workflow of docs/ci.md's "GitHub Action".
func readmeWorkflow() string {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(root, "docs", "ci.md"))
	Expect(err).NotTo(HaveOccurred())
	_, sec, ok := strings.Cut(string(raw), "\n## GitHub Action\n")
	Expect(ok).To(BeTrue(), "docs/ci.md has no section \"GitHub Action\"")
	_, block, ok := strings.Cut(sec, "\n```yaml\n")
	Expect(ok).To(BeTrue(), "no yaml block in docs/ci.md's \"GitHub Action\"")
	block, _, ok = strings.Cut(block, "\n```\n")
	Expect(ok).To(BeTrue())
	return block
}

var _ = Describe("docs/ci.md's example workflow", func() {
	type step struct {
		Uses string
		Run  string
		With map[string]string
	}
	var wf struct {
		Jobs map[string]struct {
			Needs    any
			Strategy struct {
				Matrix map[string][]string
			}
			Steps []step
		}
	}
	BeforeEach(func() {
		Expect(yaml.Unmarshal([]byte(readmeWorkflow()), &wf)).To(Succeed())
	})

	It("gives the action only inputs it has, and downloads every cell's artifact for the merge", func() {
		a, _ := readAction()
		var cells []map[string]string // the action's inputs in each matrix cell
		var pattern, merge string
		for id, job := range wf.Jobs {
			for _, st := range job.Steps {
				switch {
				case strings.HasPrefix(st.Uses, "mcpconform/mcpconform@"):
					for k := range st.With {
						Expect(a.Inputs).To(HaveKey(k), "README's workflow passes %s, which action.yml lacks", k)
					}
					m := job.Strategy.Matrix
					Expect(m).To(HaveKey("transport"))
					for _, tr := range m["transport"] {
						for _, v := range m["spec-version"] {
							for _, sh := range m["shard"] {
								cells = append(cells, map[string]string{"job": id, "side": st.With["side"],
									"transport": tr, "spec-versions": v, "shard": sh})
							}
						}
					}
				case strings.HasPrefix(st.Uses, "actions/download-artifact@"):
					pattern = st.With["pattern"]
				case strings.Contains(st.Run, "mcpconform report merge"):
					merge = st.Run
				}
			}
		}
		Expect(cells).To(HaveLen(8), "transports × versions × shards")
		Expect(pattern).NotTo(BeEmpty())
		fake := fakeBin()
		names := map[string]bool{}
		for _, c := range cells {
			j := newJob(map[string]string{"side": c["side"], "transport": c["transport"], "spec-versions": c["spec-versions"],
				"shard": c["shard"], "target": "node build/index.js"})
			if c["transport"] == "http" {
				j.env["INPUT_TARGET"] = "http://127.0.0.1:3000/mcp"
			}
			j.env["GITHUB_JOB"] = c["job"]
			j.env["MCPCONFORM_BIN"] = fake
			Expect(j.run().code).To(Equal(0))
			name := readOutputs(j.output)["artifact-name"]
			ok, err := path.Match(pattern, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(ok).To(BeTrue(), "%s does not match the download pattern %s", name, pattern)
			names[name] = true
		}
		Expect(names).To(HaveLen(len(cells)), "one artifact per cell")

		// The merge's flags are report merge's.
		help, err := exec.Command(exe, "report", "merge", "--help").CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(help))
		_, args, ok := strings.Cut(merge, "mcpconform report merge ")
		Expect(ok).To(BeTrue())
		for _, f := range flagsOf(strings.Fields(args)) {
			Expect(inHelp(string(help), f)).To(BeTrue(), "the README's merge passes %s, which 'mcpconform report merge --help' does not list", f)
		}
	})
})
