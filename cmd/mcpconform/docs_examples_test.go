package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// docExample is one mcpconform command line of a shell block in README.md
// or docs/*.md.
type docExample struct {
	where string // file:line
	args  []string
}

// docExamples extracts the mcpconform command lines of every ```sh block
// (and every unlabelled block) of README.md and docs/*.md: a line starting
// "mcpconform " or "go run ./cmd/mcpconform ", its trailing comment and
// "&" dropped, split as a shell would split it (quotes honoured).
func docExamples() []docExample {
	GinkgoHelper()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	Expect(err).NotTo(HaveOccurred())
	files = append([]string{filepath.Join("..", "..", "README.md")}, files...)
	var out []docExample
	for _, f := range files {
		raw, err := os.ReadFile(f)
		Expect(err).NotTo(HaveOccurred())
		inShell := false
		for i, line := range strings.Split(string(raw), "\n") {
			if fence, ok := strings.CutPrefix(line, "```"); ok {
				inShell = !inShell && (fence == "sh" || fence == "bash" || fence == "")
				continue
			}
			if !inShell {
				continue
			}
			line = strings.TrimSpace(line)
			rest, ok := strings.CutPrefix(line, "mcpconform ")
			if !ok {
				if rest, ok = strings.CutPrefix(line, "go run ./cmd/mcpconform "); !ok {
					continue
				}
			}
			words := shellWords(rest)
			if n := len(words); n > 0 && words[n-1] == "&" {
				words = words[:n-1]
			}
			out = append(out, docExample{where: filepath.Base(f) + ":" + strconv.Itoa(i+1), args: words})
		}
	}
	return out
}

// shellWords splits a line as a POSIX shell would for these examples:
// blanks separate words, quotes group them, a "#" starting a word starts a
// comment. Variables stay as written.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// cheapCommands run in a moment and need no target: their examples run.
var cheapCommands = map[string]bool{"list": true, "version": true}

var _ = Describe("the command lines of README.md and docs/", func() {
	It("each parses as mcpconform would parse it, and passes its checks before anything runs", func() {
		examples := docExamples()
		Expect(len(examples)).To(BeNumerically(">", 10))
		ran := 0
		for _, ex := range examples {
			root := newRoot()
			cmd, rest, err := root.Find(ex.args)
			Expect(err).NotTo(HaveOccurred(), "%s: %v", ex.where, ex.args)
			Expect(cmd).NotTo(BeIdenticalTo(root), "%s: %v names no command", ex.where, ex.args)
			Expect(cmd.ParseFlags(rest)).To(Succeed(), "%s: %v", ex.where, ex.args)
			positional := cmd.Flags().Args()
			if cmd.Args != nil {
				Expect(cmd.Args(cmd, positional)).To(Succeed(), "%s: %v", ex.where, ex.args)
			}
			if cmd.PreRunE != nil {
				Expect(cmd.PreRunE(cmd, positional)).To(Succeed(), "%s: %v", ex.where, ex.args)
			}
			if cheapCommands[cmd.Name()] {
				// Cheap and needing no target: run for real.
				run := newRoot()
				var out, errOut bytes.Buffer
				run.SetOut(&out)
				run.SetErr(&errOut)
				run.SetArgs(ex.args)
				Expect(run.Execute()).To(Succeed(), "%s: %v\n%s", ex.where, ex.args, errOut.String())
				Expect(out.Len()).To(BeNumerically(">", 0), "%s: %v prints something", ex.where, ex.args)
				ran++
			}
		}
		Expect(ran).To(BeNumerically(">", 0), "some examples are cheap enough to run")
	})

	It("would catch an example that cannot run", func() {
		for _, args := range [][]string{
			{"server", "-o", "results", "--", "./my-server"},     // no --stdio: no target named
			{"server", "--stdio", "--no-such-flag", "--", "./x"}, // a flag mcpconform lacks
			{"server", "--url", "127.0.0.1:3000/mcp"},            // no scheme
		} {
			root := newRoot()
			cmd, rest, err := root.Find(args)
			Expect(err).NotTo(HaveOccurred())
			if cmd.ParseFlags(rest) != nil {
				continue
			}
			Expect(cmd.PreRunE(cmd, cmd.Flags().Args())).NotTo(Succeed(), "%v", args)
		}
	})
})
