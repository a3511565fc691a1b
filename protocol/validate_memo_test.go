package protocol_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/protocol"
	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
)

// Validation is memoised by the bytes; the verdict must still depend on
// everything else: the method's type, the version and the root of the path.
var _ = Describe("memoised validation", func() {
	It("judges the same bytes again by their method, version and place", func() {
		raw := json.RawMessage(`{"tools": []}`)
		for range 2 {
			Expect(protocol.ValidateResult(protocol.V20251125, protocol.MethodToolsList, raw)).To(Succeed())
			err := protocol.ValidateResult(protocol.V20251125, protocol.MethodInitialize, raw)
			var se *protocol.SchemaError
			Expect(err).To(BeAssignableToTypeOf(se))
			Expect(err.Error()).To(HavePrefix("$.result"))
			// 2026-07-28 results carry resultType.
			Expect(protocol.ValidateResult(protocol.V20260728, protocol.MethodToolsList, raw)).NotTo(Succeed())
		}
		// The same invalid bytes at two roots: each error names its own.
		for _, root := range []string{"$.here", "$.elsewhere"} {
			var into v1.ListToolsResult
			err := protocol.Decode(json.RawMessage(`{"tools": 1}`), &into, root)
			Expect(err).To(HaveOccurred())
			Expect(err.Error()).To(HavePrefix(root + ".tools"))
		}
	})
})
