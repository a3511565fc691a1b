package reports_test

import (
	"bytes"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/reports"
)

var _ = Describe("WriteAll", func() {
	It("creates the directory and writes the four reports", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "nested", "out")
		r := sampleRun()
		paths, err := reports.WriteAll(dir, r)
		Expect(err).NotTo(HaveOccurred())
		Expect(paths).To(Equal([]string{
			filepath.Join(dir, "junit.xml"),
			filepath.Join(dir, "results.json"),
			filepath.Join(dir, "summary.md"),
			filepath.Join(dir, "report.html"),
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

		// No temporary files left behind.
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(4))
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
