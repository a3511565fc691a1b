package protocol_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	. "github.com/onsi/gomega/gstruct"

	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/protocol/codes"
	"github.com/mcpconform/mcpconform/protocol/exttasks"
	v1 "github.com/mcpconform/mcpconform/protocol/v20251125"
)

var _ = Describe("protocol versions", func() {
	It("lists every known version, newest first", func() {
		Expect(protocol.Supported()).To(Equal([]string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}))
		Expect(protocol.Latest).To(Equal(protocol.Supported()[0]))
		Expect(protocol.LatestStateful).To(Equal("2025-11-25"))
	})

	It("tells stateful from stateless versions", func() {
		Expect(protocol.IsStateless(protocol.V20260728)).To(BeTrue())
		Expect(protocol.IsStateful(protocol.V20260728)).To(BeFalse())
		for _, v := range []string{protocol.V20241105, protocol.V20250326, protocol.V20250618, protocol.V20251125} {
			Expect(protocol.IsStateful(v)).To(BeTrue(), v)
			Expect(protocol.IsStateless(v)).To(BeFalse(), v)
		}
		Expect(protocol.IsStateless("2099-01-01")).To(BeFalse())
		Expect(protocol.IsStateful("2099-01-01")).To(BeFalse())
		Expect(protocol.IsKnown("2099-01-01")).To(BeFalse())
		era, ok := protocol.EraOf(protocol.V20251125)
		Expect(ok).To(BeTrue())
		Expect(era.String()).To(Equal("stateful"))
	})

	It("has a schema for every judged version", func() {
		Expect(protocol.SchemaVersions()).To(Equal([]string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}))
		Expect(protocol.HasSchema(protocol.V20241105)).To(BeFalse())
		for _, v := range protocol.Judged() {
			Expect(protocol.HasSchema(v)).To(BeTrue(), v)
			Expect(protocol.SchemaFor(v)).To(Equal(v), "%s is judged with its own schema", v)
		}
	})

	It("maps the methods of each version", func() {
		Expect(protocol.Methods(protocol.V20251125)).To(ContainElements(
			"initialize", "notifications/initialized", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get",
			"resources/list", "resources/read", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel",
			"notifications/tasks/status", "elicitation/create", "sampling/createMessage", "roots/list"))
		Expect(protocol.Methods(protocol.V20260728)).To(ContainElements(
			"server/discover", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list", "resources/read",
			"subscriptions/listen", "tasks/get", "tasks/update", "tasks/cancel", "notifications/tasks",
			"elicitation/create", "sampling/createMessage", "roots/list"))
		Expect(protocol.Methods(protocol.V20260728)).NotTo(ContainElements("initialize", "ping", "logging/setLevel"))
	})

	It("maps only what each older version has", func() {
		common := []string{"initialize", "notifications/initialized", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get",
			"resources/list", "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
			"completion/complete", "logging/setLevel", "sampling/createMessage", "roots/list",
			"notifications/cancelled", "notifications/progress", "notifications/message", "notifications/resources/updated",
			"notifications/resources/list_changed", "notifications/prompts/list_changed", "notifications/tools/list_changed",
			"notifications/roots/list_changed"}
		Expect(protocol.Methods(protocol.V20250326)).To(ConsistOf(common))
		Expect(protocol.Methods(protocol.V20250618)).To(ConsistOf(append(common, "elicitation/create")))
		for _, v := range []string{protocol.V20250326, protocol.V20250618} {
			Expect(protocol.Methods(v)).NotTo(ContainElements("tasks/get", "tasks/result", "tasks/list", "tasks/cancel",
				"notifications/tasks/status", "notifications/elicitation/complete", "server/discover"), v)
		}
	})

	It("makes values of the generated types", func() {
		r, err := protocol.NewResult(protocol.V20251125, protocol.MethodInitialize)
		Expect(err).NotTo(HaveOccurred())
		Expect(r).To(BeAssignableToTypeOf(&v1.InitializeResult{}))
		m, err := protocol.NewMessage(protocol.V20260728, protocol.NotificationTasks)
		Expect(err).NotTo(HaveOccurred())
		Expect(m).To(BeAssignableToTypeOf(&exttasks.TaskStatusNotification{}))
		_, err = protocol.NewResult(protocol.V20260728, protocol.NotificationTasks)
		Expect(err).To(MatchError(protocol.ErrUnknownMethod))
	})
})

var _ = Describe("names", func() {
	It("names error codes", func() {
		Expect(codes.Name(-32602)).To(Equal("InvalidParams"))
		Expect(codes.Name(codes.UnsupportedProtocolVersion)).To(Equal("UnsupportedProtocolVersion"))
		Expect(codes.Name(-1)).To(Equal("-1"))
	})

	It("spots notifications", func() {
		Expect(protocol.IsNotification(protocol.NotificationTasksStatus)).To(BeTrue())
		Expect(protocol.IsNotification(protocol.MethodTasksGet)).To(BeFalse())
	})
})

var _ = Describe("the version table", func() {
	It("says what each judged version speaks and has", func() {
		v, ok := protocol.Lookup(protocol.V20251125)
		Expect(ok).To(BeTrue())
		Expect(v).To(MatchFields(IgnoreExtras, Fields{"Era": Equal(protocol.Stateful), "Handshake": Equal(protocol.MethodInitialize),
			"Probe": Equal(protocol.MethodPing), "SchemaOf": Equal(protocol.V20251125), "TasksV1": BeTrue(), "MRTR": BeFalse()}))
		v, _ = protocol.Lookup(protocol.V20260728)
		Expect(v).To(MatchFields(IgnoreExtras, Fields{"Era": Equal(protocol.Stateless), "Handshake": Equal(protocol.MethodServerDiscover),
			"Probe": Equal(protocol.MethodServerDiscover), "TasksExtension": BeTrue(), "MRTR": BeTrue(), "Discover": BeTrue(), "TasksV1": BeFalse()}))
		v, _ = protocol.Lookup(protocol.V20250618)
		Expect(v.SchemaOf).To(Equal(protocol.V20250618), "judged with its own schema")
		v, _ = protocol.Lookup(protocol.V20241105)
		Expect(v.SchemaOf).To(Equal(protocol.V20251125), "only recognised: read with the newest schema of its era")
		_, ok = protocol.Lookup("1999-01-01")
		Expect(ok).To(BeFalse())
	})

	It("lists the judged versions in reading order, and each era apart", func() {
		Expect(protocol.Judged()).To(Equal([]string{"2025-11-25", "2025-06-18", "2025-03-26", "2026-07-28"}))
		Expect(protocol.JudgedStateful()).To(Equal([]string{"2025-11-25", "2025-06-18", "2025-03-26"}))
		Expect(protocol.JudgedStateless()).To(Equal([]string{"2026-07-28"}))
		Expect(protocol.Where(func(v protocol.Version) bool { return v.TasksV1 })).To(Equal([]string{"2025-11-25"}))
		Expect(protocol.SchemaFor("2025-03-26")).To(Equal("2025-03-26"))
		Expect(protocol.SchemaFor("2024-11-05")).To(Equal("2025-11-25"))
		Expect(protocol.SchemaFor("1999-01-01")).To(Equal("1999-01-01"))
	})
})
