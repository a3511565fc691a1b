package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/gbytes"
	"github.com/onsi/gomega/gexec"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/internal/ahead"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/scenarios/catalogue"
	"github.com/mcpconform/mcpconform/transport"
)

var _ = Describe("mcpconform", func() {
	Describe("version", func() {
		It("prints the version", func() {
			s := run(0, "version")
			Expect(string(s.Out.Contents())).To(MatchRegexp(`^mcpconform \S+\n$`))
		})
	})

	Describe("help", func() {
		It("names each flag's argument by its type, never by words of its description", func() {
			// pflag takes a `quoted` part of a usage string for the
			// argument's name: "--fault mcpconform list --faults".
			flagLine := regexp.MustCompile(`^\s+(?:-\w, )?--\S+`)
			for _, command := range []string{"server", "client", "list", "selftest", "fake-server", "fake-client", "version"} {
				help := string(run(0, command, "--help").Out.Contents())
				for _, line := range strings.Split(help, "\n") {
					if !flagLine.MatchString(line) {
						continue
					}
					left, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
					Expect(len(strings.Fields(left))).To(BeNumerically("<=", 3), "%s --help: %q", command, line)
				}
			}
		})
	})

	Describe("list", func() {
		It("exports the catalogue as JSON, one entry per check", func() {
			var export struct {
				FormatVersion int
				Checks        []struct{ ID, Level, Spec string }
			}
			Expect(json.Unmarshal(run(0, "list", "--format", "json").Out.Contents(), &export)).To(Succeed())
			Expect(export.FormatVersion).To(Equal(1))
			Expect(export.Checks).NotTo(BeEmpty())
			Expect(export.Checks[0].ID).NotTo(BeEmpty())
		})

		It("lists every scenario id and every check id", func() {
			out := string(run(0, "list").Out.Contents())
			Expect(catalogue.All()).NotTo(BeEmpty())
			for _, sc := range catalogue.All() {
				Expect(out).To(MatchRegexp(`(?m)^`+regexp.QuoteMeta(sc.ID)+`\s`), "scenario %s", sc.ID)
				for _, c := range sc.Checks {
					Expect(out).To(MatchRegexp(`(?m)^  `+string(c.Level)+`\s+`+regexp.QuoteMeta(c.ID)+`$`), "check %s", c.ID)
					Expect(out).To(ContainSubstring(c.Spec), "check %s", c.ID)
				}
			}
		})

		It("maps every official scenario with --coverage, full, partial or absent, with the counts per revision and side", func() {
			out := string(run(0, "list", "--coverage").Out.Contents())
			for _, v := range catalogue.OfficialVersions() {
				counts := map[string]map[catalogue.Status]int{}
				for _, c := range catalogue.CoverageOf(v) {
					Expect(out).To(MatchRegexp(`(?m)^`+regexp.QuoteMeta(c.Official)+`\s+`+string(c.Side)+`\s+(\S+\s+)?`+string(c.Status)+`\s`),
						"%s at %s", c.Official, v)
					kind := string(c.Side) + " of scored"
					if !c.Scored() {
						kind = string(c.Side) + " of not scored"
					}
					if counts[kind] == nil {
						counts[kind] = map[catalogue.Status]int{}
					}
					counts[kind][c.Status]++
				}
				for kind, n := range counts {
					side, of, _ := strings.Cut(kind, " of ")
					Expect(out).To(ContainSubstring(fmt.Sprintf("%s %s: %d full, %d partial, %d absent of %d %s\n", v, side,
						n[catalogue.Full], n[catalogue.Partial], n[catalogue.Absent], n[catalogue.Full]+n[catalogue.Partial]+n[catalogue.Absent], of)))
				}
			}
			Expect(out).NotTo(MatchRegexp(`(?m) $`))
			run(2, "list", "--coverage", "--spec-version", "2025-06-18")
		})

		It("lists every fault of both reference peers with --faults, and the checks it kills", func() {
			out := string(run(0, "list", "--faults").Out.Contents())
			killers := catalogue.All().Killers()
			faults := append(server.Faults(), client.Faults()...)
			Expect(faults).NotTo(BeEmpty())
			for _, f := range faults {
				Expect(killers[f]).NotTo(BeEmpty())
				Expect(out).To(MatchRegexp(`(?m)^`+regexp.QuoteMeta(f.Name)+`\s+`+regexp.QuoteMeta(killers[f][0].ID)+`[\s,]`), "fault %s", f.Name)
			}
		})
	})

	Describe("server", func() {
		var dir string
		BeforeEach(func() { dir = GinkgoT().TempDir() })
		// The runs of whole catalogues are made ahead of their specs.
		const spec = "mcpconform server "
		referenceWS := runAhead(spec+"passes the reference over WebSocket and writes a clean junit.xml", 2, nil,
			func(d string) []string {
				return []string{"server", "--reference", "--transport", "ws", "-o", filepath.Join(d, "out")}
			})
		faultStdio := runAhead(spec+"fails exactly the fault's check over stdio, and says so in junit.xml", 2, nil,
			func(d string) []string {
				return []string{"server", "--reference", "--fault", "ping-error", "--transport", "stdio", "-o", filepath.Join(d, "out")}
			})
		skipReasons := runAhead(spec+"says on the console why checks were skipped, one line per reason with its count", 2, nil,
			func(d string) []string {
				return []string{"server", "--reference", "--transport", "stdio", "--spec-version", "2025-11-25", "-o", filepath.Join(d, "out")}
			})
		inParallel := map[string]ahead.Work[*ranAhead]{}
		for _, parallel := range []string{"1", "4"} {
			inParallel[parallel] = runAheadPart(spec+"reaches the same verdicts, in the catalogue's order, one scenario at a time and four at once", parallel, 2, nil,
				func(d string) []string {
					return []string{"server", "--reference", "--fault", "progress-after-completion", "--transport", "stdio", "--parallel", parallel, "-o", filepath.Join(d, "out")}
				})
		}
		handshakeStall := runAhead(spec+"gives up on a target that cannot complete the handshake after one timeout, and fails", 1,
			func(d string) error {
				return os.WriteFile(filepath.Join(d, "garbage-hang.sh"), []byte("#!/bin/sh\necho not-json\nexec sleep 600\n"), 0o755)
			},
			func(d string) []string {
				return []string{"server", "--stdio", "--response-timeout", "2s", "--start-timeout", "2s", "-o", filepath.Join(d, "out"), "--", filepath.Join(d, "garbage-hang.sh")}
			})
		slowStart := runAhead(spec+"allows a stdio target's start-up beyond one answer timeout (--start-timeout)", 1,
			func(d string) error {
				// A server whose process takes 3 s to start, then answers at once.
				script := "#!/bin/sh\nsleep 3\nexec " + exe + " fake-server --stdio\n"
				return os.WriteFile(filepath.Join(d, "slow-start.sh"), []byte(script), 0o755)
			},
			func(d string) []string {
				return []string{"server", "--stdio", "--response-timeout", "2s", "--start-timeout", "30s", "--spec-version", "2025-11-25",
					"--label-filter", "family: containsAny lifecycle", "-o", filepath.Join(d, "out"), "--", filepath.Join(d, "slow-start.sh")}
			})

		It("passes the reference over WebSocket and writes a clean junit.xml", func() {
			r := ranWith(referenceWS, 0)
			s, dir := r, r.out()
			Expect(s.Out).To(gbytes.Say(`judging built-in reference server`))
			Expect(string(s.Out.Contents())).NotTo(MatchRegexp(`(?m)^FAIL`))

			doc := readJUnit(dir)
			Expect(doc.Tests).To(BeNumerically(">", 0))
			Expect(doc.Failures).To(BeZero())
			Expect(doc.Errors).To(BeZero())
			Expect(doc.cases()).To(HaveLen(doc.Tests))
			for _, suite := range doc.Suites {
				Expect(suite.Failures).To(BeZero())
				for _, c := range suite.Cases {
					Expect(c.Name).NotTo(BeEmpty())
					Expect(c.Classname).NotTo(BeEmpty(), "testcase %s", c.Name)
					id := suite.property("scenario")
					Expect(c.Name).To(HavePrefix(id+"/"), "a check id starts with its scenario id")
					sc, ok := catalogue.All().Find(id)
					Expect(ok).To(BeTrue(), "testsuite %s names a scenario id", suite.Name)
					version := suite.property("specVersion")
					Expect(suite.Name).To(Equal("server ws " + version + " " + id))
					Expect(c.Classname).To(Equal("mcpconform.server.ws."+version+"."+sc.Family+"."+id),
						"classname = mcpconform.<side>.<transport>.<version>.<family>.<scenario>")
					Expect(c.Failure).To(BeNil(), "testcase %s", c.Name)
					Expect(c.Error).To(BeNil(), "testcase %s", c.Name)
				}
			}
			names := []string{}
			for _, c := range doc.cases() {
				names = append(names, c.Name)
			}
			Expect(names).To(ContainElements("lifecycle-ping/empty-result", "lifecycle-discover/result-schema", "lifecycle-malformed-json/parse-error"))

			b, err := os.ReadFile(filepath.Join(dir, "results.json"))
			Expect(err).NotTo(HaveOccurred())
			var results struct {
				Outcome string
				Counts  struct{ Failed, Total int }
			}
			Expect(json.Unmarshal(b, &results)).To(Succeed())
			Expect(results.Counts.Failed).To(BeZero())
			Expect(results.Counts.Total).To(Equal(doc.Tests))
			Expect(filepath.Join(dir, "summary.md")).To(BeARegularFile())
		})

		It("fails exactly the fault's check over stdio, and says so in junit.xml", func() {
			r := ranWith(faultStdio, 1)
			s, dir := r, r.out()
			Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^FAIL\s+server stdio 2025-11-25\s+lifecycle-ping\s`))
			Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^1 failed:\nFAIL lifecycle-ping/empty-result  server stdio 2025-11-25  MUST\n    Expected: `),
				"the console says which check failed, and why, before the counts")

			doc := readJUnit(dir)
			Expect(doc.Failures).To(Equal(1))
			failed := doc.failed()
			Expect(failed).To(HaveLen(1))
			Expect(failed[0].Name).To(Equal("lifecycle-ping/empty-result"))
			Expect(failed[0].Classname).To(Equal("mcpconform.server.stdio.2025-11-25.lifecycle.lifecycle-ping"))
			Expect(failed[0].Failure.Type).To(Equal("MUST"))
			Expect(failed[0].Failure.Text).To(ContainSubstring("Expected: result {}"))
			Expect(failed[0].Failure.Text).To(ContainSubstring("-32603"))
			for _, suite := range doc.Suites {
				if suite.property("scenario") == "lifecycle-ping" {
					Expect(suite.SystemOut).To(ContainSubstring(`"method":"ping"`), "the transcript of the failure")
				}
			}
		})

		It("says on the console why checks were skipped, one line per reason with its count", func() {
			out := string(ranWith(skipReasons, 0).Out.Contents())
			m := regexp.MustCompile(`(?m)^(\d+) checks: \d+ passed, 0 failed, 0 warnings, (\d+) skipped`).FindStringSubmatch(out)
			Expect(m).NotTo(BeNil(), out)
			Expect(m[2]).NotTo(Equal("0"), "the reference skips the opt-in profiles' checks")
			Expect(out).To(ContainSubstring(m[2] + " skipped:\n"))
			Expect(out).To(MatchRegexp(`(?m)^\s+\d+  opt-in profile websocket is not enabled \(--profile websocket\)`))
		})

		It("reaches the same verdicts, in the catalogue's order, one scenario at a time and four at once", func() {
			verdicts := func(parallel string) []string {
				out := ranWith(inParallel[parallel], 1).out()
				b, err := os.ReadFile(filepath.Join(out, "results.json"))
				Expect(err).NotTo(HaveOccurred())
				var results struct {
					Scenarios []struct {
						ID     string
						Checks []struct{ ID, Status string }
					}
				}
				Expect(json.Unmarshal(b, &results)).To(Succeed())
				var v []string
				for _, sc := range results.Scenarios {
					for _, c := range sc.Checks {
						v = append(v, sc.ID+" "+c.ID+" "+c.Status)
					}
				}
				return v
			}
			one := verdicts("1")
			Expect(one).To(ContainElement("tools-call-with-progress tools-call-with-progress/stops-after-completion failed"))
			Expect(verdicts("4")).To(Equal(one))
		})

		It("exits 2 with a message for a bad flag", func() {
			s := run(2, "server", "--no-such-flag")
			Expect(string(s.Err.Contents())).To(ContainSubstring("unknown flag: --no-such-flag"))
			s = run(2, "no-such-command")
			Expect(string(s.Err.Contents())).To(ContainSubstring("no-such-command"))
			s = run(2, "server", "--reference", "--parallel", "0")
			Expect(string(s.Err.Contents())).To(ContainSubstring("--parallel must be at least 1, got 0"))
			s = run(2, "list", "--format", "xml")
			Expect(string(s.Err.Contents())).To(ContainSubstring(`--format must be text, json or yaml, got "xml"`))
		})

		It("exits 2 without a target", func() {
			s := run(2, "server", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring("name exactly one target"))
			Expect(filepath.Join(dir, "junit.xml")).NotTo(BeAnExistingFile())
		})

		It("exits 2 naming a stdio command that does not exist", func() {
			s := run(2, "server", "--stdio", "-o", dir, "--", "/no/such/binary", "--flag")
			Expect(string(s.Err.Contents())).To(ContainSubstring("/no/such/binary"))
			Expect(filepath.Join(dir, "junit.xml")).NotTo(BeAnExistingFile())
		})

		It("exits 2 at once for an endpoint no connection could reach, before anything runs", func() {
			s := run(2, "server", "--url", "127.0.0.1:1/mcp", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring(`--url "127.0.0.1:1/mcp" has no scheme: write http://127.0.0.1:1/mcp`))
			s = run(2, "server", "--ws", "http://127.0.0.1:1/mcp", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring("the scheme must be ws or wss"))
			s = run(2, "server", "--url", "http:///mcp", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring("names no host"))
			Expect(filepath.Join(dir, "junit.xml")).NotTo(BeAnExistingFile())
		})

		It("exits 2 for an unknown scenario, fault, version or transport", func() {
			s := run(2, "server", "--reference", "--scenario", "no-such", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown --scenario "no-such"`))
			s = run(2, "server", "--reference", "--fault", "no-such-fault", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown fault "no-such-fault"`))
			s = run(2, "server", "--reference", "--spec-version", "1999-01-01", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring("1999-01-01"))
			s = run(2, "server", "--reference", "--transport", "smoke-signals", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring("smoke-signals"))
			Expect(filepath.Join(dir, "junit.xml")).NotTo(BeAnExistingFile())
		})

		// README.md, exit codes: 3 = "nothing failed, but some checks could
		// not be judged (target unreachable, …)", and the report is written in
		// every case where the run started.
		It("writes the report when nothing listens at --url", func() {
			s := start(exec.Command(exe, "server", "--url", "http://127.0.0.1:1/mcp", "-o", dir))
			Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
			Expect(s.ExitCode()).To(BeElementOf(1, 3), "judged nothing as passed")
			doc := readJUnit(dir)
			Expect(doc.Tests).To(BeNumerically(">", 0))
			passed := 0
			for _, c := range doc.cases() {
				Expect(c.Name).NotTo(BeEmpty())
				Expect(c.Classname).NotTo(BeEmpty())
				if c.Failure == nil && c.Error == nil && c.Skipped == nil && !strings.Contains(c.SystemOut, "WARNING") {
					passed++
				}
			}
			Expect(passed).To(BeZero(), "an unreachable target passes nothing")
			all := ""
			for _, suite := range doc.Suites {
				all += suite.SystemOut
			}
			Expect(all).To(ContainSubstring("connection refused"))
			Expect(filepath.Join(dir, "results.json")).To(BeARegularFile())
		})

		It("exits 3 when nothing listens at --url: an unreachable target violates nothing", func() {
			run(3, "server", "--url", "http://127.0.0.1:1/mcp", "-o", dir)
			Expect(readJUnit(dir).Failures).To(BeZero(), "an unreachable target violates nothing")
		})

		DescribeTable("judges a stdio target that prints garbage and exits, and keeps what it did",
			func(body string) {
				script := filepath.Join(GinkgoT().TempDir(), "garbage.sh")
				Expect(os.WriteFile(script, []byte("#!/bin/sh\n"+body), 0o755)).To(Succeed())
				s := start(exec.Command(exe, "server", "--stdio", "-o", dir, "--", script))
				Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit())
				Expect(s.ExitCode()).To(BeElementOf(1, 3))
				Expect(string(s.Out.Contents())).To(ContainSubstring("judging stdio: " + script))

				doc := readJUnit(dir)
				Expect(doc.Tests).To(BeNumerically(">", 0))
				all := ""
				for _, suite := range doc.Suites {
					all += suite.SystemOut
					for _, c := range suite.Cases {
						Expect(c.Name).NotTo(BeEmpty())
						Expect(c.Classname).NotTo(BeEmpty())
					}
				}
				Expect(all).To(ContainSubstring("not json at all"))
				Expect(all).To(ContainSubstring("exit status 7"))
			},
			Entry("after it reads the first request", "read request\necho 'not json at all'; exit 7\n"),
			// Its output is on the pipe when mcpconform's first write meets
			// a broken pipe, or before it: kept either way.
			Entry("without reading anything", "echo 'not json at all'; exit 7\n"),
		)
		It("exits 3 on Ctrl-C and still writes what was judged", func() {
			// The fault never answers tasks/result after a cancel: with a long
			// response timeout the second scenario is still waiting when
			// Ctrl-C comes, after the first one's line was printed.
			s := start(exec.Command(exe, "server", "--reference", "--fault", "result-hangs-after-cancel", "--transport", "stdio",
				"--spec-version", "2025-11-25", "--response-timeout", "60s",
				"--scenario", "lifecycle-ping", "--scenario", "tasks-cancel-during-elicitation", "-o", dir))
			Eventually(s.Out).WithTimeout(exitWithin).Should(gbytes.Say(`(?m)^PASS\s+server stdio 2025-11-25\s+lifecycle-ping`))
			s.Interrupt()
			Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit(3))
			Expect(string(s.Err.Contents())).To(ContainSubstring("interrupted"))
			doc := readJUnit(dir)
			Expect(doc.Tests).To(BeNumerically(">", 0))
			Expect(doc.Failures).To(BeZero(), "nothing failed before the interrupt")
		})

		It("allows a stdio target's start-up beyond one answer timeout (--start-timeout)", func() {
			doc := readJUnit(ranWith(slowStart, 0).out())
			Expect(doc.Tests).To(BeNumerically(">", 0))
			Expect(doc.Failures+doc.Errors).To(BeZero(), "every handshake waited out the start-up")
		})

		It("gives up on a target that cannot complete the handshake after one timeout, and fails", func() {
			doc := readJUnit(ranWith(handshakeStall, 1).out())
			Expect(doc.Failures).To(Equal(1), "the handshake's own check fails")
			failed := doc.failed()
			Expect(failed[0].Name).To(Equal("lifecycle-initialize/result-schema"))
			Expect(doc.Errors).To(Equal(doc.Tests-1-doc.Skipped), "every other check is reported as not judged")
			for _, c := range doc.cases() {
				if c.Skipped != nil {
					Expect(c.Skipped.Message).To(ContainSubstring("opt-in profile"), "only opt-in checks are skipped: %s", c.Name)
				}
			}
			for _, c := range doc.cases() {
				if c.Error != nil {
					Expect(c.Error.Message + c.Error.Text).To(ContainSubstring("initialize was not answered"))
				}
			}
		})
	})

	Describe("client", func() {
		var dir string
		BeforeEach(func() { dir = GinkgoT().TempDir() })
		clientFault := runAhead("mcpconform client fails the reference client's fault on its check, over every transport", 2, nil,
			func(d string) []string {
				return []string{"client", "--reference", "--fault", "skips-initialized", "-o", filepath.Join(d, "out")}
			})
		minimal, _ := filepath.Abs(filepath.Join("testdata", "minimal_client.py"))

		for _, tr := range []string{"stdio", "http"} {
			It("judges a minimal client over "+tr+", the verdict reached in this process", func() {
				if _, err := exec.LookPath("python3"); err != nil {
					Skip("python3 is needed for the minimal client")
				}
				s := run(0, "client", "--transport", tr, "--spec-version", "2025-11-25", "--scenario", "client-initialize", "-o", dir, "--", "python3", minimal)
				Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^PASS\s+client ` + tr + ` 2025-11-25\s+client-initialize\s+4/4 passed`))
				doc := readJUnit(dir)
				Expect(doc.Tests).To(Equal(4))
				for _, c := range doc.cases() {
					Expect(c.Classname).To(Equal("mcpconform.client." + tr + ".2025-11-25.lifecycle.client-initialize"))
				}
				all := ""
				for _, suite := range doc.Suites {
					all += suite.SystemOut
				}
				Expect(all).To(ContainSubstring(`"name": "minimal-client"`), "the client's frames are in the transcript")
			})
		}

		// Before: both checks warned that the harness's echo "lost" every
		// keyword, and the run exited 0.
		It("leaves client-json-schema-preservation not judged, saying why, when the harness echoes no schema object", func() {
			if _, err := exec.LookPath("python3"); err != nil {
				Skip("python3 is needed for the echo client")
			}
			echo, _ := filepath.Abs(filepath.Join("testdata", "schema_echo_client.py"))
			s := run(3, "client", "--transport", "http", "--spec-version", "2025-11-25", "--scenario", "client-json-schema-preservation",
				"-o", dir, "--", "python3", echo)
			Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^SKIP\s+client http 2025-11-25\s+client-json-schema-preservation\s+0/2 passed, 2 skipped`))
			doc := readJUnit(dir)
			Expect(doc.Tests).To(Equal(2))
			for _, c := range doc.cases() {
				Expect(c.Skipped).NotTo(BeNil(), c.Name)
				Expect(c.Skipped.Message).To(ContainSubstring("(inputSchema, name) are no JSON Schema keywords"))
			}
		})

		It("fails the reference client's fault on its check, over every transport", func() {
			r := ranWith(clientFault, 1)
			s, dir := r, r.out()
			for _, tr := range []string{"stdio", "http", "ws"} {
				Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^FAIL\s+client ` + tr + ` 2025-11-25\s+client-initialize\s+3/4 passed`))
			}
			failed := readJUnit(dir).failed()
			Expect(failed).To(HaveLen(3))
			for _, c := range failed {
				Expect(c.Name).To(Equal("client-initialize/initialized-sent"))
			}
		})

		It("fails a client that exits without connecting on the check it never reached, with its output, and exits 1", func() {
			script := filepath.Join(GinkgoT().TempDir(), "no-client.sh")
			Expect(os.WriteFile(script, []byte("#!/bin/sh\necho 'cannot parse' \"$1\" >&2\nexit 4\n"), 0o755)).To(Succeed())
			s := run(1, "client", "--transport", "http", "--spec-version", "2025-11-25", "--scenario", "client-initialize", "-o", dir, "--", script)
			Expect(string(s.Out.Contents())).To(MatchRegexp(`(?m)^FAIL\s+client http`))
			doc := readJUnit(dir)
			Expect(doc.Failures).To(Equal(1), "the check that was running fails")
			Expect(doc.Errors).To(Equal(3), "the rest are not judged")
			for _, c := range doc.cases() {
				text := ""
				if c.Failure != nil {
					text = c.Failure.Message + c.Failure.Text
				} else {
					Expect(c.Error).NotTo(BeNil())
					text = c.Error.Message + c.Error.Text
				}
				Expect(text).To(ContainSubstring("the client exited with code 4 before sending it"))
				Expect(text).To(ContainSubstring("cannot parse"))
			}
		})

		It("stops waiting for an elicitation once the call it should come from is answered without one", func() {
			// test_task_working answers without asking: the scenario says so at
			// once rather than waiting out an answer timeout for a question.
			run(3, "server", "--reference", "--transport", "http", "--scenario", "tools-cancel-during-elicitation",
				"--fixture", "test_elicitation=test_task_working", "--response-timeout", "1m", "--timeout", "2m", "-o", dir)
			doc := readJUnit(dir)
			Expect(doc.cases()).To(HaveLen(1))
			Expect(doc.cases()[0].Skipped).NotTo(BeNil())
			Expect(doc.cases()[0].Skipped.Message).To(ContainSubstring("the call was answered without asking for input"))
		})

		It("does not judge Mcp-Name against a server that refuses the call on its body, when it lacks the fixture's tool", func() {
			run(0, "server", "--reference", "--liberty", "unknown-tool-before-headers", "--transport", "http", "--spec-version", "2026-07-28",
				"--scenario", "stateless-http-headers", "--fixture", "test_simple_text=mcpconform_absent_tool", "-o", dir)
			skipped := map[string]string{}
			for _, c := range readJUnit(dir).cases() {
				if c.Skipped != nil {
					skipped[c.Name] = c.Skipped.Message
				}
			}
			for _, id := range []string{"stateless-http-headers/name-missing", "stateless-http-headers/name-mismatch"} {
				Expect(skipped).To(HaveKeyWithValue(id, ContainSubstring("--fixture test_simple_text=TOOL")))
			}
		})

		It("exits 3, not 0, when every selected check was skipped: nothing was judged", func() {
			s := run(3, "server", "--reference", "--transport", "stdio", "--scenario", "tasks-failing",
				"--fixture", "test_task_failing=no-such-tool", "-o", dir)
			Expect(string(s.Err.Contents())).To(ContainSubstring("nothing could be judged: all 2 selected checks were skipped"))
			Expect(filepath.Join(dir, "results.json")).To(BeARegularFile())
		})

		It("exits 2 for a missing client command or a server-side scenario", func() {
			s := run(2, "client", "--", "no-such-client-binary")
			Expect(string(s.Err.Contents())).To(ContainSubstring(`client command "no-such-client-binary" not found`))
			s = run(2, "client", "--reference", "--scenario", "lifecycle-ping")
			Expect(string(s.Err.Contents())).To(ContainSubstring(`judges a server; this command judges a client`))
			s = run(2, "client")
			Expect(string(s.Err.Contents())).To(ContainSubstring("name exactly one client"))
		})
	})

	Describe("a target that does not implement a version", func() {
		var dir string
		BeforeEach(func() { dir = GinkgoT().TempDir() })
		allVersions := runAhead("mcpconform a target that does not implement a version is reported in one line and not judged there under --spec-version all", 2, nil,
			func(d string) []string {
				return []string{"server", "--reference", "--liberty", "stateful-only", "--transport", "http", "--spec-version", "all", "-o", filepath.Join(d, "out")}
			})

		It("is reported in one line and not judged there under --spec-version all", func() {
			r := ranWith(allVersions, 0)
			s, dir := r, r.out()
			out := string(s.Out.Contents())
			Expect(regexp.MustCompile(`(?m)^SKIP .*2026-07-28.*does not implement 2026-07-28`).FindAllString(out, -1)).To(HaveLen(1), out)
			Expect(out).NotTo(MatchRegexp(`(?m)^SKIP\s+server http 2026-07-28\s+lifecycle-`), "no line per scenario")
			Expect(out).To(MatchRegexp(`(?m)^PASS\s+server http 2025-11-25\s+lifecycle-ping`))
			Expect(readJUnit(dir).Failures).To(BeZero())
		})

		It("fails once when --spec-version names it", func() {
			run(1, "server", "--reference", "--liberty", "stateful-only", "--transport", "http", "--spec-version", "2026-07-28", "-o", dir)
			failed := readJUnit(dir).failed()
			Expect(failed).To(HaveLen(1))
			Expect(failed[0].Name).To(Equal("lifecycle-discover/version-implemented"))
			Expect(failed[0].Failure.Text).To(ContainSubstring("the target does not implement 2026-07-28"))
		})
	})

	Describe("liberties and profiles", func() {
		It("lists the liberties with the freedom each uses and the checks it must pass", func() {
			out := string(run(0, "list", "--liberties").Out.Contents())
			exercisers := catalogue.All().Exercisers()
			Expect(server.Liberties()).NotTo(BeEmpty())
			for _, l := range server.Liberties() {
				Expect(exercisers[l]).NotTo(BeEmpty(), "liberty %s", l.Name)
				Expect(out).To(MatchRegexp(`(?m)^`+regexp.QuoteMeta(l.Name)+`\s+`+regexp.QuoteMeta(exercisers[l][0].ID)), "liberty %s", l.Name)
			}
		})

		It("refuses an unknown liberty or profile", func() {
			s := run(2, "server", "--reference", "--liberty", "no-such-liberty")
			Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown liberty "no-such-liberty"`))
			s = run(2, "server", "--reference", "--profile", "no-such-profile")
			Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown --profile "no-such-profile"`))
			s = run(2, "server", "--url", "http://127.0.0.1:1/mcp", "--liberty", "stateful-only")
			Expect(string(s.Err.Contents())).To(ContainSubstring("--fault and --liberty go with --reference"))
		})
	})

	Describe("reports of a run over every transport and version", func() {
		// Two families: ids are the catalogue's, unique by its own
		// validation; what is judged here is how reports name them across
		// transports and versions.
		everywhere := runAhead("mcpconform reports of a run over every transport and version give every (classname, name) pair once, and name transport and version per scenario", 2, nil,
			func(d string) []string {
				return []string{"server", "--reference", "--transport", "all", "--spec-version", "all", "--label-filter", "family: containsAny {lifecycle, tools}", "-o", filepath.Join(d, "out")}
			})
		It("give every (classname, name) pair once, and name transport and version per scenario", func() {
			dir := ranWith(everywhere, 0).out()
			doc := readJUnit(dir)
			seen := map[string]bool{}
			for _, c := range doc.cases() {
				key := c.Classname + " " + c.Name
				Expect(seen).NotTo(HaveKey(key), "duplicate testcase %s", key)
				seen[key] = true
			}
			Expect(seen).To(HaveLen(doc.Tests))
			pairs := map[string]bool{}
			for _, suite := range doc.Suites {
				tr, v := suite.property("transport"), suite.property("specVersion")
				Expect(tr).To(BeElementOf("stdio", "http", "ws"), "testsuite %s", suite.Name)
				Expect(v).To(BeElementOf("2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"), "testsuite %s", suite.Name)
				pairs[tr+" "+v] = true
			}
			Expect(pairs).To(HaveLen(12), "every transport at every version")

			b, err := os.ReadFile(filepath.Join(dir, "results.json"))
			Expect(err).NotTo(HaveOccurred())
			var results struct {
				Scenarios []struct{ ID, Side, Transport, SpecVersion string }
			}
			Expect(json.Unmarshal(b, &results)).To(Succeed())
			for _, sc := range results.Scenarios {
				Expect(sc.Side).To(Equal("server"), sc.ID)
				Expect(sc.Transport).NotTo(BeEmpty(), sc.ID)
				Expect(sc.SpecVersion).NotTo(BeEmpty(), sc.ID)
			}
			summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
			Expect(err).NotTo(HaveOccurred())
			html, err := os.ReadFile(filepath.Join(dir, "report.html"))
			Expect(err).NotTo(HaveOccurred())
			for _, tr := range []string{"stdio", "http", "ws"} {
				for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"} {
					Expect(string(summary)).To(MatchRegexp(regexp.QuoteMeta(tr)+`\W+`+regexp.QuoteMeta(v)), "summary.md names %s at %s", tr, v)
					Expect(string(html)).To(ContainSubstring(v), "report.html names %s", v)
				}
				Expect(string(html)).To(ContainSubstring(tr))
			}
		})
	})

	Describe("fake-server", func() {
		It("lists the faults", func() {
			out := string(run(0, "fake-server", "--list-faults").Out.Contents())
			for _, f := range server.Faults() {
				Expect(out).To(MatchRegexp(`(?m)^`+regexp.QuoteMeta(f.Name)+`\s`), "fault %s", f.Name)
			}
		})

		It("wants exactly one mode", func() {
			s := run(2, "fake-server")
			Expect(string(s.Err.Contents())).To(ContainSubstring("choose exactly one"))
			run(2, "fake-server", "--stdio", "--ws", "127.0.0.1:0")
			s = run(2, "fake-server", "--stdio", "--fault", "no-such-fault")
			Expect(string(s.Err.Contents())).To(ContainSubstring("unknown fault"))
		})

		It("answers on stdio and exits when stdin closes", func() {
			cmd := exec.Command(exe, "fake-server", "--stdio")
			stdin, err := cmd.StdinPipe()
			Expect(err).NotTo(HaveOccurred())
			s := start(cmd)
			_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
			Expect(err).NotTo(HaveOccurred())
			Eventually(s.Out).WithTimeout(exitWithin).Should(gbytes.Say(`"protocolVersion":"2025-11-25"`))
			_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":"p","method":"ping"}`+"\n")
			Expect(err).NotTo(HaveOccurred())
			Eventually(s.Out).WithTimeout(exitWithin).Should(gbytes.Say(`\{"jsonrpc":"2.0","id":"p","result":\{\}\}`))
			Expect(s).NotTo(gexec.Exit())
			Expect(stdin.Close()).To(Succeed())
			Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit(0))

			sc := bufio.NewScanner(strings.NewReader(string(s.Out.Contents())))
			lines := 0
			for sc.Scan() {
				lines++
				m, err := jsonrpc.Decode(sc.Bytes())
				Expect(err).NotTo(HaveOccurred(), "stdout carries nothing but JSON-RPC: %q", sc.Text())
				Expect(m.IsResponse()).To(BeTrue())
			}
			Expect(lines).To(Equal(2))
		})

		It("serves WebSocket on a loopback port until interrupted", func() {
			s := start(exec.Command(exe, "fake-server", "--ws", "127.0.0.1:0"))
			Eventually(s.Err).WithTimeout(exitWithin).Should(gbytes.Say(`serving the reference server at (ws://127\.0\.0\.1:\d+/mcp)`))
			url := regexp.MustCompile(`ws://127\.0\.0\.1:\d+/mcp`).FindString(string(s.Err.Contents()))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := transport.DialWebSocket(ctx, url, transport.Options{})
			Expect(err).NotTo(HaveOccurred())
			defer c.Close()
			Expect(c.Send(ctx, []byte(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))).To(Succeed())
			b, err := c.Recv(ctx)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(b)).To(Equal(`{"jsonrpc":"2.0","id":7,"result":{}}`))
			Expect(c.Close()).To(Succeed())
			s.Interrupt()
			Eventually(s).WithTimeout(exitWithin).Should(gexec.Exit(0))
		})
	})

	Describe("selftest", func() {
		// One version (the assertions are about 2025-11-25); runAhead's
		// ceiling only ends a hang: the catalogue is large and two cores slow.
		selftestWS := runAhead("mcpconform selftest passes over WebSocket, running every fault WebSocket can show", aheadWidth/2, nil,
			func(string) []string {
				return []string{"selftest", "--transport", "ws", "--spec-version", "2025-11-25", "--parallel", "8", "-q"}
			}).First() // the longest run of the package
		It("passes over WebSocket, running every fault WebSocket can show", func() {
			out := string(ranWith(selftestWS, 0).Out.Contents())
			Expect(out).To(ContainSubstring("self-test passed"))
			Expect(out).To(MatchRegexp(`(?m)^server\s+-\s+\(reference\)\s+ws\s+2025-11-25\s+-$`))
			Expect(out).To(MatchRegexp(`(?m)^client\s+-\s+\(reference\)\s+ws\s+2025-11-25\s+-$`))
			// The checks each fault fails there (a check judged at some
			// versions only does not count elsewhere).
			killers := catalogue.All().KillersOn("2025-11-25", transport.WS)
			for peer, faults := range map[string]fault.Set{"server": server.Faults(), "client": client.Faults()} {
				for _, f := range faults {
					if f.ObservableOn("ws", "2025-11-25") {
						Expect(out).To(MatchRegexp(`(?m)^`+peer+`\s+fault\s+`+regexp.QuoteMeta(f.Name)+`\s+ws\s+2025-11-25\s+.*`+regexp.QuoteMeta(killers[f][0].ID)), "fault %s", f.Name)
					}
				}
			}
			for _, l := range server.Liberties() {
				if l.ObservableOn("ws", "2025-11-25") {
					Expect(out).To(MatchRegexp(`(?m)^server\s+liberty\s+`+regexp.QuoteMeta(l.Name)+`\s+ws\s+2025-11-25\s+-$`), "liberty %s passes", l.Name)
				}
			}
			Expect(out).NotTo(MatchRegexp(`(?m)^\S+\s+\S+\s+\S+\s+(stdio|http)\s`), "only WebSocket runs")
			Expect(out).NotTo(ContainSubstring("PROBLEM"), "-q prints only the matrix")
		})

		It("exits 2 for an unknown transport or fault", func() {
			s := run(2, "selftest", "--transport", "pigeon")
			Expect(string(s.Err.Contents())).To(ContainSubstring(`unknown transport kind "pigeon"`))
			s = run(2, "selftest", "--fault", "no-such-fault")
			Expect(string(s.Err.Contents())).To(ContainSubstring(fmt.Sprintf("unknown fault %q", "no-such-fault")))
		})
	})
})
