package server_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The tasks extension on the wire: what the tasksext family drives.
var _ = Describe("the reference server's tasks extension", func() {
	reference := func(f *fault.Fault) *wire {
		GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{Variant: f})
		Expect(err).NotTo(HaveOccurred())
		return overPipes(e)
	}
	withExt := map[string]any{"extensions": map[string]any{protocol.ExtensionTasks: map[string]any{}}}
	meta := func(caps map[string]any) map[string]any {
		return map[string]any{
			protocol.MetaProtocolVersion:    protocol.V20260728,
			protocol.MetaClientInfo:         map[string]any{"name": "t", "version": "1"},
			protocol.MetaClientCapabilities: caps,
		}
	}
	call := func(tool string, args, caps map[string]any) map[string]any {
		return map[string]any{"name": tool, "arguments": args, "_meta": meta(caps)}
	}
	task := func(id string, caps map[string]any) map[string]any {
		return map[string]any{"taskId": id, "_meta": meta(caps)}
	}
	// ack is an empty acknowledgement: resultType and, at most, _meta.
	ack := func(m *jsonrpc.Message) {
		GinkgoHelper()
		r := result(m)
		delete(r, "_meta")
		Expect(r).To(Equal(map[string]any{"resultType": "complete"}))
	}
	// poll reads tasks/get until the task leaves status from.
	poll := func(w *wire, id string, from string) map[string]any {
		GinkgoHelper()
		var got map[string]any
		n := 100
		Eventually(func() any {
			n++
			raw, _ := json.Marshal(n)
			w.send(request(string(raw), "tasks/get", task(id, withExt)))
			got = result(w.next())
			return got["status"]
		}).WithTimeout(wait).ShouldNot(Equal(from))
		return got
	}

	It("declares the extension, not the 2025-11-25 capability, and runs a task to its inlined result", func() {
		w := reference(nil)
		w.send(request("1", "server/discover", map[string]any{"_meta": meta(map[string]any{})}))
		caps := result(w.next())["capabilities"].(map[string]any)
		Expect(caps).To(HaveKeyWithValue("extensions", HaveKey(protocol.ExtensionTasks)))
		Expect(caps).NotTo(HaveKey("tasks"))

		w.send(request("2", "tools/call", call("slow_compute", map[string]any{"seconds": 0.05, "label": "x"}, withExt)))
		created := result(w.next())
		Expect(created).To(HaveKeyWithValue("resultType", "task"))
		Expect(created).To(HaveKeyWithValue("status", "working"))
		Expect(created).To(HaveKey("ttlMs"))
		id := created["taskId"].(string)

		done := poll(w, id, "working")
		Expect(done).To(HaveKeyWithValue("resultType", "complete"))
		Expect(done).To(HaveKeyWithValue("status", "completed"))
		Expect(done).To(HaveKeyWithValue("result", HaveKey("content")))

		w.send(request("3", "tasks/result", task(id, withExt)))
		Expect(w.next().Error.Code).To(Equal(codes.MethodNotFound))
		w.send(request("4", "tasks/list", map[string]any{"_meta": meta(withExt)}))
		Expect(w.next().Error.Code).To(Equal(codes.MethodNotFound))
		w.send(request("5", "tasks/get", task("never", withExt)))
		Expect(w.next().Error.Code).To(Equal(codes.InvalidParams))
	})

	It("answers without a task, or -32021, a request that does not declare the extension", func() {
		w := reference(nil)
		w.send(request("1", "tools/call", map[string]any{"name": "slow_compute", "arguments": map[string]any{"seconds": 0},
			"task": map[string]any{}, "_meta": meta(map[string]any{})}))
		Expect(result(w.next())).To(HaveKeyWithValue("resultType", "complete"))

		w.send(request("2", "tools/call", call("failing_job", map[string]any{}, map[string]any{})))
		m := w.next()
		Expect(m.Error.Code).To(Equal(codes.MissingRequiredClientCapability))
		Expect(string(m.Error.Data)).To(ContainSubstring(protocol.ExtensionTasks))

		w.send(request("3", "tools/call", call("failing_job", map[string]any{}, withExt)))
		id := result(w.next())["taskId"].(string)
		w.send(request("4", "tasks/get", task(id, map[string]any{})))
		Expect(w.next().Error.Code).To(Equal(codes.MissingRequiredClientCapability))
		done := poll(w, id, "working")
		Expect(done).To(HaveKeyWithValue("status", "completed"), "a tool error is a completed task")
		Expect(done).To(HaveKeyWithValue("result", HaveKeyWithValue("isError", true)))
	})

	It("asks through inputRequests, resumes on tasks/update, and keeps a cancelled task cancelled", func() {
		w := reference(nil)
		w.send(request("1", "tools/call", call("confirm_delete", map[string]any{"filename": "a.txt"}, withExt)))
		id := result(w.next())["taskId"].(string)
		asking := poll(w, id, "working")
		Expect(asking).To(HaveKeyWithValue("status", "input_required"))
		Expect(asking).To(HaveKeyWithValue("inputRequests", HaveKeyWithValue("confirm", HaveKeyWithValue("method", "elicitation/create"))))
		update := task(id, withExt)
		update["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}
		w.send(request("2", "tasks/update", update))
		ack(w.next())
		Expect(poll(w, id, "input_required")).To(HaveKeyWithValue("result", HaveKey("content")))

		w.send(request("3", "tools/call", call("confirm_delete", map[string]any{}, withExt)))
		id = result(w.next())["taskId"].(string)
		Expect(poll(w, id, "working")).To(HaveKeyWithValue("status", "input_required"))
		w.send(request("4", "tasks/cancel", task(id, withExt)))
		ack(w.next())
		update = task(id, withExt)
		update["inputResponses"] = map[string]any{"confirm": map[string]any{"action": "accept", "content": map[string]any{"confirm": true}}}
		w.send(request("5", "tasks/update", update))
		Expect(w.next().Error).To(BeNil())
		w.send(request("6", "tasks/get", task(id, withExt)))
		Expect(result(w.next())).To(HaveKeyWithValue("status", "cancelled"))
	})

	It("answers greet plainly, gathers test_tool_with_task's input before its task, and acknowledges a finished task's cancel", func() {
		w := reference(nil)
		greet := call("greet", map[string]any{"name": "Ann"}, withExt)
		greet["task"] = map[string]any{"ttl": 60000}
		w.send(request("1", "tools/call", greet))
		plain := result(w.next())
		Expect(plain).To(HaveKeyWithValue("resultType", "complete"))
		Expect(plain).NotTo(HaveKey("taskId"))

		caps := map[string]any{"elicitation": map[string]any{}, "extensions": withExt["extensions"]}
		w.send(request("2", "tools/call", call("test_tool_with_task", map[string]any{}, caps)))
		asking := result(w.next())
		Expect(asking).To(HaveKeyWithValue("resultType", "input_required"))
		Expect(asking).To(HaveKeyWithValue("inputRequests", HaveKey("user_name")))
		Expect(asking).NotTo(HaveKey("taskId"))
		retry := call("test_tool_with_task", map[string]any{}, caps)
		retry["inputResponses"] = map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}
		w.send(request("3", "tools/call", retry))
		created := result(w.next())
		Expect(created).To(HaveKeyWithValue("resultType", "task"))
		Expect(created).NotTo(HaveKey("requestState"))
		id := created["taskId"].(string)
		done := poll(w, id, "working")
		Expect(done).To(HaveKeyWithValue("status", "completed"))
		raw, _ := json.Marshal(done["result"])
		Expect(string(raw)).To(ContainSubstring("Hello, Alice!"))

		w.send(request("4", "tasks/cancel", task(id, withExt)))
		ack(w.next())
	})

	It("acknowledges a subscription to a task first, then sends its states tagged with the subscription id", func() {
		w := reference(nil)
		w.send(request("1", "tools/call", call("slow_compute", map[string]any{"seconds": 0.05}, withExt)))
		id := result(w.next())["taskId"].(string)
		w.send(request(`"sub"`, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}},
			"_meta": meta(withExt)}))
		ack := w.next()
		Expect(ack.Method).To(Equal(protocol.NotificationSubscriptionsAcknowledged))
		Expect(string(ack.Params)).To(ContainSubstring(id))
		var last *jsonrpc.Message
		Eventually(func() string {
			last = w.next()
			Expect(last.Method).To(Equal(protocol.NotificationTasks))
			Expect(string(last.Params)).To(ContainSubstring(`"io.modelcontextprotocol/subscriptionId":"sub"`))
			var p struct {
				Status string `json:"status"`
			}
			_ = json.Unmarshal(last.Params, &p)
			return p.Status
		}).WithTimeout(wait).Should(Equal("completed"))

		w.send(request(`"sub2"`, "subscriptions/listen", map[string]any{"notifications": map[string]any{"taskIds": []string{id}},
			"_meta": meta(map[string]any{})}))
		Expect(w.next().Error.Code).To(Equal(codes.MissingRequiredClientCapability))
	})
})
