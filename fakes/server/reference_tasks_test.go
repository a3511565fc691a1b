package server_test

import (
	"encoding/json"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/mcpconform/mcpconform/fakes/fault"
	"github.com/mcpconform/mcpconform/fakes/server"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/protocol/codes"
)

// The tasks family's variants on the wire: what each liberty does
// differently from the reference (and stays conformant), and what the newer
// faults break.
var _ = Describe("the reference server's task variants", func() {
	open := func(f *fault.Fault) *wire {
		GinkgoHelper()
		e, err := server.NewReference(server.ReferenceOptions{Variant: f})
		Expect(err).NotTo(HaveOccurred())
		w := overPipes(e)
		w.send(request(`"init"`, "initialize", map[string]any{
			"protocolVersion": "2025-11-25", "capabilities": map[string]any{"elicitation": map[string]any{}},
			"clientInfo": map[string]any{"name": "t", "version": "1"},
		}))
		Expect(w.next().ID.String()).To(Equal(`"init"`))
		w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		return w
	}
	// answer returns the response to id, and the notifications before it.
	answer := func(w *wire, id string) (*jsonrpc.Message, []*jsonrpc.Message) {
		GinkgoHelper()
		var notes []*jsonrpc.Message
		for {
			m := w.next()
			if m.Method == "" && m.ID.String() == id {
				return m, notes
			}
			notes = append(notes, m)
		}
	}
	createTask := func(w *wire, tool string, args map[string]any) map[string]any {
		GinkgoHelper()
		w.send(request(`"create"`, "tools/call", map[string]any{"name": tool, "arguments": args, "task": map[string]any{}}))
		m, _ := answer(w, `"create"`)
		task, ok := result(m)["task"].(map[string]any)
		Expect(ok).To(BeTrue(), "a CreateTaskResult: %s", m.Raw)
		return task
	}
	taskCall := func(w *wire, id, method, taskID string) *jsonrpc.Message {
		GinkgoHelper()
		w.send(request(id, method, map[string]any{"taskId": taskID}))
		m, _ := answer(w, id)
		return m
	}

	It("timestamp-precision writes one instant two ways", func() {
		w := open(server.TimestampPrecision)
		created := createTask(w, "test_task_working", map[string]any{"ms": 50})
		got := result(taskCall(w, `"get"`, "tasks/get", created["taskId"].(string)))
		Expect(created["createdAt"]).To(MatchRegexp(`\.\d{6}Z$`))
		Expect(got["createdAt"]).To(MatchRegexp(`\.\d{3}Z$`))
		a, err := time.Parse(time.RFC3339Nano, created["createdAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		b, err := time.Parse(time.RFC3339Nano, got["createdAt"].(string))
		Expect(err).NotTo(HaveOccurred())
		Expect(a.Equal(b)).To(BeTrue())
		Expect(created["createdAt"]).NotTo(Equal(got["createdAt"]))
	})

	It("second-timestamps keeps whole seconds", func() {
		w := open(server.SecondTimestamps)
		created := createTask(w, "test_task_working", map[string]any{"ms": 50})
		Expect(created["createdAt"]).To(MatchRegexp(`T\d\d:\d\d:\d\dZ$`))
		Expect(created["lastUpdatedAt"]).To(Equal(created["createdAt"]))
	})

	It("deletes-cancelled-tasks answers the cancel with the cancelled task, then knows it no more", func() {
		w := open(server.DeletesCancelledTasks)
		id := createTask(w, "test_task_working", map[string]any{"ms": 5000})["taskId"].(string)
		Expect(result(taskCall(w, `"cancel"`, "tasks/cancel", id))).To(HaveKeyWithValue("status", "cancelled"))
		for _, method := range []string{"tasks/get", "tasks/result", "tasks/cancel"} {
			m := taskCall(w, `"after"`, method, id)
			Expect(m.Error).NotTo(BeNil(), method)
			Expect(m.Error.Code).To(Equal(codes.InvalidParams), method)
		}
	})

	It("short-ttl grants 2000 ms whatever was asked", func() {
		w := open(server.ShortTTL)
		w.send(request(`"create"`, "tools/call", map[string]any{"name": "test_task_working", "arguments": map[string]any{"ms": 50},
			"task": map[string]any{"ttl": 600000}}))
		m, _ := answer(w, `"create"`)
		Expect(result(m)["task"]).To(HaveKeyWithValue("ttl", BeNumerically("==", 2000)))
	})

	It("slow-poll-no-notifications suggests 5000 ms and notifies nothing", func() {
		w := open(server.SlowPollNoNotifications)
		created := createTask(w, "test_task_working", map[string]any{"ms": 10})
		Expect(created).To(HaveKeyWithValue("pollInterval", BeNumerically("==", 5000)))
		w.send(request(`"result"`, "tasks/result", map[string]any{"taskId": created["taskId"]}))
		_, notes := answer(w, `"result"`)
		Expect(notes).To(BeEmpty(), "no notifications/tasks/status before the result")
		Expect(w.rest()).To(BeEmpty())
	})

	It("nondeterministic-output answers two plain calls differently", func() {
		w := open(server.NondeterministicOutput)
		texts := []string{}
		for _, id := range []string{"1", "2"} {
			w.send(request(id, "tools/call", map[string]any{"name": "test_task_working", "arguments": map[string]any{"ms": 1}}))
			m, _ := answer(w, id)
			texts = append(texts, string(m.Result))
		}
		Expect(texts[0]).To(ContainSubstring("(run "))
		Expect(texts[0]).NotTo(Equal(texts[1]))
	})

	It("informative-task-errors names the cause and the id", func() {
		w := open(server.InformativeTaskErrors)
		m := taskCall(w, `"get"`, "tasks/get", "no-such-task")
		Expect(m.Error.Code).To(Equal(codes.InvalidParams))
		Expect(m.Error.Message).To(ContainSubstring("Task no-such-task not found"))
	})

	It("repeats-terminal-notification tells completed twice; notifies-working-after-terminal adds working", func() {
		statuses := func(f *fault.Fault) []string {
			w := open(f)
			id := createTask(w, "test_task_working", map[string]any{"ms": 10})["taskId"].(string)
			w.send(request(`"result"`, "tasks/result", map[string]any{"taskId": id}))
			_, notes := answer(w, `"result"`)
			for _, f := range w.rest() {
				m, err := jsonrpc.Decode([]byte(f))
				Expect(err).NotTo(HaveOccurred())
				notes = append(notes, m)
			}
			var out []string
			for _, n := range notes {
				var p struct {
					Status string `json:"status"`
				}
				Expect(json.Unmarshal(n.Params, &p)).To(Succeed())
				out = append(out, p.Status)
			}
			return out
		}
		Expect(statuses(nil)).To(Equal([]string{"completed"}))
		Expect(statuses(server.RepeatsTerminalNotification)).To(Equal([]string{"completed", "completed"}))
		Expect(statuses(server.NotifiesWorkingAfterTerminal)).To(Equal([]string{"completed", "working"}))
	})

	It("cancels-own-tasks cancels a task nobody cancelled", func() {
		w := open(server.CancelsOwnTasks)
		created := createTask(w, "test_task_working", map[string]any{"ms": 10})
		Expect(created).To(HaveKeyWithValue("status", "working"))
		m := taskCall(w, `"result"`, "tasks/result", created["taskId"].(string))
		Expect(m.Error).NotTo(BeNil(), "the cancelled task's result is an error: %s", m.Raw)
		Expect(result(taskCall(w, `"get"`, "tasks/get", created["taskId"].(string)))).To(HaveKeyWithValue("status", "cancelled"))
	})

	It("result-error-while-working refuses tasks/result until the task is done", func() {
		w := open(server.ResultErrorWhileWorking)
		id := createTask(w, "test_task_working", map[string]any{"ms": 5000})["taskId"].(string)
		m := taskCall(w, `"result"`, "tasks/result", id)
		Expect(m.Error).NotTo(BeNil())
		Expect(m.Error.Code).To(Equal(codes.InternalError))
		Expect(result(taskCall(w, `"get"`, "tasks/get", id))).To(HaveKeyWithValue("status", "working"))
	})

	It("works plainly for ms, tells a progress token it started, and answers a cancelled call only as the fault", func() {
		script := func(f *fault.Fault) *wire {
			w := open(f)
			w.send(request("1", "tools/call", map[string]any{"name": "test_task_working", "arguments": map[string]any{"ms": 200},
				"_meta": map[string]any{"progressToken": "p-1"}}))
			started := w.next()
			Expect(started.Method).To(Equal("notifications/progress"))
			Expect(string(started.Params)).To(ContainSubstring(`"progressToken":"p-1"`))
			w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
			return w
		}
		faulty := script(server.RespondsAfterCancel)
		m, _ := answer(faulty, "1")
		Expect(result(m)).To(HaveKey("content"))
		// The reference sends nothing for the cancelled call (rest is a
		// barrier: by then every handler has returned).
		w := script(nil)
		w.send(request("2", "ping", nil))
		Expect(w.next().ID.String()).To(Equal("2"))
		Expect(w.rest()).To(BeEmpty())
	})
})
