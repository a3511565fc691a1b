// Package sample is a Ginkgo suite for ahead's own test: three specs, each
// reading work that appends its name to $SAMPLE_LOG when it starts. The
// first spec waits until the third's work has started: it runs ahead.
package sample_test

import (
	"context"
	"os"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/internal/ahead"
)

var pool = ahead.New(4)

func TestSample(t *testing.T) {
	RegisterFailHandler(Fail)
	pool.RunSpecs(t, "sample")
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
			if name == "one" {
				Eventually(threeStarted).WithTimeout(time.Minute).Should(BeClosed(), "the third spec's work started before its turn")
			}
			Expect(work.Get()).To(Equal(name))
		})
	}
})
