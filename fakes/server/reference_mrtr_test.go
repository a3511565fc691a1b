package server_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The MRTR fixtures on the wire: the exchange the mrtr family drives, and
// the requestState's protection.
var _ = Describe("the reference server's MRTR fixtures", func() {
	reference := func(f *fault.Fault) *wire {
		GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{Variant: f})
		Expect(err).NotTo(HaveOccurred())
		return overPipes(e)
	}
	call := func(tool string, caps map[string]any, extra map[string]any) map[string]any {
		p := map[string]any{"name": tool, "arguments": map[string]any{}, "_meta": map[string]any{
			protocol.MetaProtocolVersion:    protocol.V20260728,
			protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: caps,
		}}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	elicitation := map[string]any{"elicitation": map[string]any{}}
	accept := func(field string, v any) map[string]any {
		return map[string]any{"action": "accept", "content": map[string]any{field: v}}
	}

	It("asks, then completes from what the retry carries", func() {
		w := reference(nil)
		tool := "test_input_required_result_tampered_state"
		w.send(request("1", "tools/call", call(tool, elicitation, nil)))
		first := result(w.next())
		Expect(first).To(HaveKeyWithValue("resultType", "input_required"))
		Expect(first["inputRequests"]).To(HaveKey("confirm"))
		state := first["requestState"].(string)

		w.send(request("2", "tools/call", call(tool, elicitation, map[string]any{
			"inputResponses": map[string]any{"confirm": accept("ok", true)}, "requestState": state})))
		Expect(result(w.next())).To(HaveKeyWithValue("resultType", "complete"))

		w.send(request("3", "tools/call", call(tool, elicitation, map[string]any{
			"inputResponses": map[string]any{"confirm": accept("ok", true)}, "requestState": state + "-TAMPERED"})))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))

		// State is bound to the request it was given for.
		w.send(request("4", "tools/call", call("test_input_required_result_request_state", elicitation, map[string]any{
			"inputResponses": map[string]any{"confirm": accept("ok", true)}, "requestState": state})))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))
	})

	It("never asks for an input kind the client did not declare", func() {
		w := reference(nil)
		w.send(request("1", "tools/call", call("test_input_required_result_capabilities", map[string]any{"sampling": map[string]any{}}, nil)))
		first := result(w.next())
		raw, _ := json.Marshal(first["inputRequests"])
		Expect(string(raw)).To(ContainSubstring(protocol.MethodSamplingCreateMessage))
		Expect(string(raw)).NotTo(ContainSubstring(protocol.MethodElicitationCreate))

		w.send(request("2", "tools/call", call("test_input_required_result_elicitation", map[string]any{}, nil)))
		Expect(w.next().Error.Code).To(Equal(codes.MissingRequiredClientCapability))
	})

	It("asks again for a missing answer and refuses one it cannot read", func() {
		w := reference(nil)
		tool := "test_input_required_result_elicitation"
		w.send(request("1", "tools/call", call(tool, elicitation, map[string]any{"inputResponses": map[string]any{}})))
		Expect(result(w.next())).To(HaveKeyWithValue("resultType", "input_required"))
		w.send(request("2", "tools/call", call(tool, elicitation, map[string]any{"inputResponses": map[string]any{"user_name": 12345}})))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))
		w.send(request("3", "tools/call", call(tool, elicitation, map[string]any{"inputResponses": map[string]any{
			"user_name": accept("name", "Alice"), "unasked": accept("x", "y")}})))
		Expect(result(w.next())).To(HaveKeyWithValue("resultType", "complete"))
	})

	It("accepts tampered state under the fault that skips verification", func() {
		w := reference(server.MRTRTamperedAccepted)
		tool := "test_input_required_result_tampered_state"
		w.send(request("1", "tools/call", call(tool, elicitation, nil)))
		state := result(w.next())["requestState"].(string)
		w.send(request("2", "tools/call", call(tool, elicitation, map[string]any{
			"inputResponses": map[string]any{"confirm": accept("ok", true)}, "requestState": state + "-TAMPERED"})))
		Expect(result(w.next())).To(HaveKeyWithValue("resultType", "complete"))
	})
})
