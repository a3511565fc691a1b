package reports_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("WriteAll", func() {
	It("creates the directory and writes the five reports", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "nested", "out")
		r := sampleRun()
		paths, err := reports.WriteAll(dir, r)
		Expect(err).NotTo(HaveOccurred())
		Expect(paths).To(Equal([]string{
			filepath.Join(dir, "junit.xml"),
			filepath.Join(dir, "results.json"),
			filepath.Join(dir, "summary.md"),
			filepath.Join(dir, "report.html"),
			filepath.Join(dir, "results.sarif"),
		}))

		read := func(name string) []byte {
			b, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			return b
		}
		Expect(read("junit.xml")).To(Equal(renderJUnit(r)))
		Expect(read("results.json")).To(Equal(renderJSON(r)))
		Expect(string(read("summary.md"))).To(Equal(renderMarkdown(r)))
		Expect(string(read("report.html"))).To(Equal(renderHTML(r)))
		Expect(read("results.sarif")).To(Equal(renderSARIF(r)))

		// No temporary files left behind.
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(5))
	})

	It("overwrites reports from a previous run", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "junit.xml"), bytes.Repeat([]byte("x"), 1<<20), 0o644)).To(Succeed())
		_, err := reports.WriteAll(dir, &reports.Run{})
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(HavePrefix("<?xml"))
	})

	It("fails when dir cannot be created", func() {
		file := filepath.Join(GinkgoT().TempDir(), "file")
		Expect(os.WriteFile(file, nil, 0o644)).To(Succeed())
		_, err := reports.WriteAll(filepath.Join(file, "sub"), sampleRun())
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("WriteAll replacing a previous set", func() {
	names := []string{"junit.xml", "results.json", "summary.md", "report.html"}
	var dir string
	// previous writes the set of an earlier run, and a file of the user's.
	previous := func() map[string]string {
		set := map[string]string{"notes.txt": "the user's own file\n"}
		for _, n := range names {
			set[n] = "previous " + n + "\n"
		}
		for n, content := range set {
			Expect(os.WriteFile(filepath.Join(dir, n), []byte(content), 0o644)).To(Succeed())
		}
		return set
	}
	// contents reads every entry of dir (a directory as "<dir>").
	contents := func() map[string]string {
		out := map[string]string{}
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		for _, e := range entries {
			if e.IsDir() {
				out[e.Name()] = "<dir>"
				continue
			}
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			Expect(err).NotTo(HaveOccurred())
			out[e.Name()] = string(b)
		}
		return out
	}
	BeforeEach(func() { dir = GinkgoT().TempDir() })

	It("leaves the previous set whole, and nothing of its own, when a file after the first cannot be written", func() {
		before := previous()
		DeferCleanup(reports.SetWriteFault(func(name string) error {
			if name == "results.json" {
				return errors.New("no space left on device (injected)")
			}
			return nil
		}))
		paths, err := reports.WriteAll(dir, sampleRun())
		Expect(err).To(MatchError(ContainSubstring("no space left on device (injected)")))
		Expect(paths).To(BeEmpty())
		Expect(contents()).To(Equal(before), "the previous set and the user's file, and no temporary file or directory")
	})

	It("leaves the previous set whole when a report's name is taken by a directory", func() {
		before := previous()
		Expect(os.Remove(filepath.Join(dir, "summary.md"))).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(dir, "summary.md", "inside"), 0o755)).To(Succeed())
		before["summary.md"] = "<dir>"
		_, err := reports.WriteAll(dir, sampleRun())
		Expect(err).To(MatchError(ContainSubstring("is a directory")))
		Expect(contents()).To(Equal(before))
		Expect(filepath.Join(dir, "summary.md", "inside")).To(BeADirectory(), "the user's directory is untouched")
	})

	It("replaces the whole set and keeps the user's other files", func() {
		previous()
		r := sampleRun()
		_, err := reports.WriteAll(dir, r)
		Expect(err).NotTo(HaveOccurred())
		got := contents()
		Expect(got).To(HaveLen(6))
		Expect(got["notes.txt"]).To(Equal("the user's own file\n"))
		Expect(got["junit.xml"]).To(Equal(string(renderJUnit(r))))
		Expect(got["results.json"]).To(Equal(string(renderJSON(r))))
		Expect(got["summary.md"]).To(Equal(renderMarkdown(r)))
		Expect(got["report.html"]).To(Equal(renderHTML(r)))
	})

	It("removes what a killed run left before its set was complete, and the temporary files of earlier versions", func() {
		before := previous()
		stale := filepath.Join(dir, ".mcpconform-staging-123", "new")
		Expect(os.MkdirAll(stale, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(stale, "junit.xml"), []byte("half a run's junit"), 0o644)).To(Succeed())
		for _, leftover := range []string{".junit.xml.2718281828", ".report.html.31415", ".mcpconform-write-check-42"} {
			Expect(os.WriteFile(filepath.Join(dir, leftover), nil, 0o600)).To(Succeed())
		}
		DeferCleanup(reports.SetWriteFault(func(name string) error {
			if name == "summary.md" {
				return errors.New("injected")
			}
			return nil
		}))
		_, err := reports.WriteAll(dir, sampleRun())
		Expect(err).To(HaveOccurred())
		Expect(contents()).To(Equal(before), "the leftovers are gone, and the previous set stays")
	})

	It("completes the set of a run killed while it moved a complete set into place", func() {
		previous()
		stage := filepath.Join(dir, ".mcpconform-staging-456")
		Expect(os.MkdirAll(filepath.Join(stage, "new"), 0o755)).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(stage, "old"), 0o755)).To(Succeed())
		// junit.xml was already moved in; the other three were not.
		Expect(os.WriteFile(filepath.Join(dir, "junit.xml"), []byte("killed run junit.xml\n"), 0o644)).To(Succeed())
		for _, n := range names[1:] {
			Expect(os.WriteFile(filepath.Join(stage, "new", n), []byte("killed run "+n+"\n"), 0o644)).To(Succeed())
		}
		Expect(os.WriteFile(filepath.Join(stage, "committed"), nil, 0o644)).To(Succeed())
		// This run fails: what is left is the killed run's set, whole.
		DeferCleanup(reports.SetWriteFault(func(string) error { return errors.New("injected") }))
		_, err := reports.WriteAll(dir, sampleRun())
		Expect(err).To(HaveOccurred())
		want := map[string]string{"notes.txt": "the user's own file\n"}
		for _, n := range names {
			want[n] = "killed run " + n + "\n"
		}
		Expect(contents()).To(Equal(want))
	})
})
