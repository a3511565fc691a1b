package httprules_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/transport"
)

func TestHTTPRules(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "client request rules")
}

// The test binary plays two parts when run again: the relay a stdio
// client is given as its server (`relay ADDR TOKEN`, as mcpconform's), and
// the reference client under test (referenceEnv set), as the variant
// variantEnv names, ignoring the scenario's context when ignoreContextEnv
// is set (a real client that knows nothing of it).
const (
	referenceEnv     = "MCPCONFORM_TEST_REFERENCE_CLIENT"
	variantEnv       = "MCPCONFORM_TEST_VARIANT"
	ignoreContextEnv = "MCPCONFORM_TEST_IGNORE_CONTEXT"
)

func init() {
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		if err := transport.RunRelay(context.Background(), os.Args[2], os.Args[3], os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	if os.Getenv(referenceEnv) == "" {
		return
	}
	opts := client.ReferenceClientOptions{Server: os.Args[len(os.Args)-1], Log: os.Stderr}
	if name := os.Getenv(variantEnv); name != "" {
		f, err := findVariant(name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "reference client:", err)
			os.Exit(2)
		}
		opts.Fault = f
	}
	if os.Getenv(ignoreContextEnv) != "" {
		opts.Context = "{}" // not empty, so $MCP_CONFORMANCE_CONTEXT is not read
	}
	if err := client.RunReference(context.Background(), opts); err != nil {
		fmt.Fprintln(os.Stderr, "reference client:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func findVariant(name string) (*fault.Fault, error) {
	if f, err := client.Faults().Find(name); err == nil {
		return f, nil
	}
	return client.Liberties().Find(name)
}
