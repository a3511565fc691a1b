package server

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the resources and utilities families (resources,
// logging, pagination). Each fault breaks one rule of those pages.
var (
	StaticTextError = &fault.Fault{Name: "static-text-error",
		Description: "lists test://static-text but answers resources/read of it with -32603"}
	BlobNotBase64 = &fault.Fault{Name: "blob-not-base64",
		Description: "answers resources/read of test://static-binary with a blob that is not base64 (raw bytes as text)"}
	TemplateNotSubstituted = &fault.Fault{Name: "template-not-substituted",
		Description: "reads test://template/{id}/data without substituting the id: the text names no id"}
	ReadURINotEchoed = &fault.Fault{Name: "read-uri-not-echoed",
		Description: "answers resources/read of test://watched-resource with an item whose uri is test://another-resource"}
	ReadContentsNoText = &fault.Fault{Name: "read-contents-no-text",
		Description: "answers resources/read of test://watched-resource with an item that has neither text nor blob"}
	MissingResourceEmptyContents = &fault.Fault{Name: "missing-resource-empty-contents", Versions: legacy,
		Description: "answers resources/read of an unknown URI with a result whose contents is empty"}
	MissingResourceInternalError = &fault.Fault{Name: "missing-resource-internal-error", Versions: legacy,
		Description: "answers resources/read of an unknown URI with -32603 instead of -32002"}
	SubscribeRefused = &fault.Fault{Name: "subscribe-refused", Versions: legacy,
		Description: "declares resources.subscribe but answers resources/subscribe with -32601"}
	UnsubscribeRefused = &fault.Fault{Name: "unsubscribe-refused", Versions: legacy,
		Description: "answers resources/unsubscribe with -32601"}
	UpdatedAfterUnsubscribe = &fault.Fault{Name: "updated-after-unsubscribe", Versions: legacy,
		Description: "sends notifications/resources/updated for a resource right after the client unsubscribed from it"}
	SetLevelRefused = &fault.Fault{Name: "set-level-refused", Versions: legacy,
		Description: "declares logging but answers logging/setLevel of a valid level with -32603"}
	InvalidLevelAccepted = &fault.Fault{Name: "invalid-level-accepted", Versions: legacy,
		Description: `answers logging/setLevel with level "verbose" (no syslog level) with an empty result`}
	SetLevelIgnored = &fault.Fault{Name: "set-level-ignored", Versions: legacy,
		Description: "accepts logging/setLevel but keeps logging below the level set"}
	InvalidCursorAccepted = &fault.Fault{Name: "invalid-cursor-accepted",
		Description: "answers resources/list with an invalid cursor with the first page"}
	ListChangedUndeclared = &fault.Fault{Name: "list-changed-undeclared", Versions: legacy,
		Description: "declares resources.listChanged false but sends notifications/resources/list_changed while it answers resources/list"}
	LastPageNeverEnds = &fault.Fault{Name: "last-page-never-ends",
		Description: "gives the last page of resources/list a nextCursor that leads to the same page again"}
)

// Liberties of the same families.
var (
	ResourcePagesOfOne = &fault.Fault{Name: "resource-pages-of-one", Liberty: true,
		Description: "pages resources/list and resources/templates/list one item at a time, with cursors of another form",
		Freedom:     "Page size is determined by the server, and clients MUST NOT assume a fixed page size"}
	ResourcesUnpaginated = &fault.Fault{Name: "resources-unpaginated", Liberty: true,
		Description: "answers resources/list in one page (no nextCursor) and refuses any cursor with -32602",
		Freedom:     "An optional nextCursor field if more results exist"}
	NoResourceUpdates = &fault.Fault{Name: "no-resource-updates", Liberty: true, Versions: legacy,
		Description: "accepts subscriptions but sends no notifications/resources/updated (its resources never change)",
		Freedom:     "Clients can subscribe to specific resources and receive notifications when they change:"}
)

var resourceFaults = fault.Set{
	StaticTextError, BlobNotBase64, TemplateNotSubstituted, ReadURINotEchoed, ReadContentsNoText, MissingResourceEmptyContents, MissingResourceInternalError,
	SubscribeRefused, UnsubscribeRefused, UpdatedAfterUnsubscribe,
	SetLevelRefused, InvalidLevelAccepted, SetLevelIgnored,
	InvalidCursorAccepted, LastPageNeverEnds, ListChangedUndeclared,
}

var resourceLiberties = fault.Set{ResourcePagesOfOne, ResourcesUnpaginated, NoResourceUpdates}
