// Package sample is a Ginkgo suite for ahead's own test: three specs, each
// reading work that appends its name to $SAMPLE_LOG when it starts. The
// first spec waits until the third's work has started: it runs ahead. A
// top-level ReportAfterEach notes each spec whose body ran.
package sample_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/ahead"
)

var pool = ahead.New(4)

func TestSample(t *testing.T) {
	RegisterFailHandler(Fail)
	pool.RunSpecs(t, "sample", reportEach)
}

// ran holds the specs whose body ran (not a dry run's preview of them).
var ran sync.Map

// reportEach registers a top-level ReportAfterEach that notes each spec
// whose body ran: the preview would lose it were it registered at init.
func reportEach() bool {
	ReportAfterEach(func(r SpecReport) {
		if _, ok := ran.Load(r.LeafNodeText); ok {
			note("reported " + r.LeafNodeText)(context.Background())
		}
	})
	return true
}

var _ = BeforeSuite(pool.Begin)

func note(name string) func(context.Context) string {
	return func(context.Context) string {
		f, err := os.OpenFile(os.Getenv("SAMPLE_LOG"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err == nil {
			_, _ = f.WriteString(name + "\n")
			_ = f.Close()
		}
		return name
	}
}

var threeStarted = make(chan struct{})

var _ = Describe("sample", Ordered, func() {
	for _, name := range []string{"one", "two", "three"} {
		work := ahead.Add(pool, "sample "+name, 1, func(ctx context.Context) string {
			if name == "three" {
				close(threeStarted)
			}
			return note(name)(ctx)
		})
		It(name, func() {
			ran.Store(name, true)
			if name == "one" {
				Eventually(threeStarted).WithTimeout(time.Minute).Should(BeClosed(), "the third spec's work started before its turn")
			}
			Expect(work.Get()).To(Equal(name))
		})
	}
})
