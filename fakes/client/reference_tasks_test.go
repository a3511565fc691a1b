package client_test

import (
	"context"
	"encoding/json"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// The task receiver of the reference client, driven by a server that asks
// its questions while the client's tool call is open (as the client-tasks
// scenarios do); what the server saw is checked once the client is done.
var _ = Describe("reference client task receiver", func() {
	// exchange records each answer the script got, by name.
	type exchange struct {
		mu      sync.Mutex
		answers map[string]*jsonrpc.Message
		notes   []*jsonrpc.Message
	}
	serve := func(kind transport.Kind, script func(ctx context.Context, ask func(name, method string, params map[string]any) *jsonrpc.Message)) (*judgingServer, *exchange) {
		x := &exchange{answers: map[string]*jsonrpc.Message{}}
		e := &server.Engine{Requests: map[string]server.Handler{
			protocol.MethodInitialize: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"protocolVersion": protocol.V20251125, "capabilities": map[string]any{"tools": map[string]any{}},
					"serverInfo": map[string]any{"name": "s", "version": "1"}}, nil
			},
			protocol.MethodToolsList: func(context.Context, *server.Peer, *jsonrpc.Message) (any, *jsonrpc.Error) {
				return map[string]any{"tools": []any{map[string]any{"name": "t", "inputSchema": map[string]any{"type": "object"}}}}, nil
			},
			protocol.MethodToolsCall: func(ctx context.Context, p *server.Peer, _ *jsonrpc.Message) (any, *jsonrpc.Error) {
				script(ctx, func(name, method string, params map[string]any) *jsonrpc.Message {
					resp, err := p.Request(ctx, method, params)
					if err != nil {
						resp = &jsonrpc.Message{Error: &jsonrpc.Error{Code: 0, Message: err.Error()}}
					}
					x.mu.Lock()
					x.answers[name] = resp
					x.mu.Unlock()
					return resp
				})
				return map[string]any{"content": []any{}}, nil
			},
		}, OtherNotifications: func(_ context.Context, _ *server.Peer, msg *jsonrpc.Message) {
			if msg.Method == protocol.NotificationTasksStatus {
				x.mu.Lock()
				x.notes = append(x.notes, msg)
				x.mu.Unlock()
			}
		}}
		return serveForClient(kind, e), x
	}
	run := func(js *judgingServer) {
		GinkgoHelper()
		Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: protocol.V20251125, Scenario: "client-tasks-test",
			Context: `{"toolCalls":[{"name":"t","arguments":{}}]}`})).To(Succeed())
	}
	elicit := func(hold bool) map[string]any {
		p := map[string]any{"mode": "form", "message": "Name?", "task": map[string]any{"ttl": 60000},
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}
		if hold {
			p["_meta"] = map[string]any{client.MetaHoldAnswer: true}
		}
		return p
	}
	taskOf := func(resp *jsonrpc.Message) map[string]any {
		GinkgoHelper()
		Expect(resp.Error).To(BeNil())
		var r map[string]any
		Expect(json.Unmarshal(resp.Result, &r)).To(Succeed())
		if t, ok := r["task"].(map[string]any); ok {
			return t
		}
		return r
	}

	for _, kind := range []transport.Kind{transport.Stdio, transport.HTTP, transport.WS} {
		It("creates a task, holds the user until released, and blocks tasks/result until then, over "+string(kind), func() {
			var id string
			js, x := serve(kind, func(ctx context.Context, ask func(string, string, map[string]any) *jsonrpc.Message) {
				created := ask("create", protocol.MethodElicitationCreate, elicit(true))
				id, _ = taskOf(created)["taskId"].(string)
				ask("get", protocol.MethodTasksGet, map[string]any{"taskId": id})
				done := make(chan struct{})
				go func() {
					defer close(done)
					ask("result", protocol.MethodTasksResult, map[string]any{"taskId": id})
				}()
				ask("release", protocol.MethodPing, map[string]any{"_meta": map[string]any{client.MetaReleaseAnswer: id}})
				<-done
				ask("after", protocol.MethodTasksGet, map[string]any{"taskId": id})
			})
			run(js)
			Expect(taskOf(x.answers["create"])).To(HaveKeyWithValue("status", "working"))
			Expect(taskOf(x.answers["get"])).To(HaveKeyWithValue("status", "working"))
			result := taskOf(x.answers["result"])
			Expect(result).To(HaveKeyWithValue("action", "accept"))
			Expect(result).To(HaveKeyWithValue("_meta", HaveKeyWithValue(protocol.MetaRelatedTask, HaveKeyWithValue("taskId", id))))
			Expect(taskOf(x.answers["after"])).To(HaveKeyWithValue("status", "completed"))
			Expect(x.notes).To(HaveLen(1), "one transition, working → completed")
		})
	}

	It("keeps a cancelled task cancelled when the late answer comes, and refuses what it must with -32602", func() {
		js, x := serve(transport.WS, func(ctx context.Context, ask func(string, string, map[string]any) *jsonrpc.Message) {
			id, _ := taskOf(ask("create", protocol.MethodElicitationCreate, elicit(true)))["taskId"].(string)
			ask("cancel", protocol.MethodTasksCancel, map[string]any{"taskId": id})
			ask("release", protocol.MethodPing, map[string]any{"_meta": map[string]any{client.MetaReleaseAnswer: id}})
			ask("get", protocol.MethodTasksGet, map[string]any{"taskId": id})
			ask("result", protocol.MethodTasksResult, map[string]any{"taskId": id})
			ask("again", protocol.MethodTasksCancel, map[string]any{"taskId": id})
			ask("unknown", protocol.MethodTasksGet, map[string]any{"taskId": "nope"})
			ask("roots", protocol.MethodRootsList, map[string]any{"task": map[string]any{}})
		})
		run(js)
		Expect(taskOf(x.answers["cancel"])).To(HaveKeyWithValue("status", "cancelled"))
		Expect(taskOf(x.answers["get"])).To(HaveKeyWithValue("status", "cancelled"))
		Expect(x.answers["result"].Error).NotTo(BeNil())
		for _, name := range []string{"again", "unknown"} {
			Expect(x.answers[name].Error).NotTo(BeNil(), name)
			Expect(x.answers[name].Error.Code).To(Equal(-32602), name)
		}
		Expect(taskOf(x.answers["roots"])).To(HaveKey("roots"), "roots/list is no task type: answered plainly")
	})

	It("pages tasks/list behind opaque cursors and refuses one it never issued", func() {
		var ids []string
		var listed []string
		js, x := serve(transport.WS, func(ctx context.Context, ask func(string, string, map[string]any) *jsonrpc.Message) {
			for range 5 {
				id, _ := taskOf(ask("create", protocol.MethodSamplingCreateMessage, map[string]any{"maxTokens": 5, "task": map[string]any{},
					"messages": []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "hi"}}}}))["taskId"].(string)
				ids = append(ids, id)
			}
			params := map[string]any{}
			for range 10 {
				var page struct {
					Tasks []struct {
						TaskID string `json:"taskId"`
					} `json:"tasks"`
					NextCursor *string `json:"nextCursor"`
				}
				_ = json.Unmarshal(ask("page", protocol.MethodTasksList, params).Result, &page)
				for _, t := range page.Tasks {
					listed = append(listed, t.TaskID)
				}
				if page.NextCursor == nil {
					break
				}
				params = map[string]any{"cursor": *page.NextCursor}
			}
			ask("bad", protocol.MethodTasksList, map[string]any{"cursor": "not-a-cursor"})
		})
		run(js)
		Expect(listed).To(Equal(ids))
		Expect(x.answers["bad"].Error).NotTo(BeNil())
		Expect(x.answers["bad"].Error.Code).To(Equal(-32602))
	})

	It("declares client-hosted tasks only at 2025-11-25", func() {
		js := serveReferenceForClient(transport.WS)
		Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: protocol.V20250618})).To(Succeed())
		Expect(js.params(protocol.MethodInitialize)).To(HaveKeyWithValue("capabilities", Not(HaveKey("tasks"))))
		js = serveReferenceForClient(transport.WS)
		Expect(runReferenceClient(client.ReferenceClientOptions{Server: js.address, Version: protocol.V20251125})).To(Succeed())
		Expect(js.params(protocol.MethodInitialize)).To(HaveKeyWithValue("capabilities", HaveKeyWithValue("tasks", HaveKey("requests"))))
	})
})
