package resources

import (
	"encoding/json"
	"testing"

	g "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Internal specs: Ginkgo is imported as g, as in the other server families.

func TestResources(t *testing.T) {
	RegisterFailHandler(g.Fail)
	g.RunSpecs(t, "server resources")
}

var _ = g.Describe("the resources family's helpers", func() {
	g.It("expand each RFC 6570 expression of a template once, whatever its operator", func() {
		Expect(expandTemplate("test://template/{id}/data", "1")).To(Equal("test://template/1/data"))
		Expect(expandTemplate("file:///{+path}", "1")).To(Equal("file:///1"))
		Expect(expandTemplate("db://{table}{/id,rev}{?fields,limit:3}{&page*}{#frag}{.ext}{;v}", "1")).
			To(Equal("db://1/1/1?fields=1&limit=1&page=1#1.1;v=1"))
		Expect(expandTemplate("test://static", "1")).To(Equal("test://static"))
	})

	g.It("name a blob that is not base64 and empty it for the schema judge", func() {
		bad, fixed := judgeBlobs(json.RawMessage(`{"contents":[{"uri":"a","blob":"PNG raw bytes!"},{"uri":"b","blob":"AA=="},{"uri":"c","text":"x"}]}`))
		Expect(bad).To(HaveLen(1))
		Expect(bad[0]).To(HavePrefix(`contents[0].blob "PNG raw bytes!"`))
		Expect(string(fixed)).To(ContainSubstring(`"blob":""`))
		Expect(string(fixed)).To(ContainSubstring(`"blob":"AA=="`))
	})
})
