package server

import "github.com/mcpconform/mcpconform/fakes/fault"

// Faults and liberties of the prompts family (prompts/list, prompts/get,
// completion/complete), at every version.
var (
	PromptSystemRole = &fault.Fault{Name: "prompt-system-role",
		Description: "answers test_simple_prompt with a message of role \"system\""}
	PromptContentUnknownType = &fault.Fault{Name: "prompt-content-unknown-type",
		Description: "sends the text block of test_prompt_with_image with type \"txt\""}
	PromptMissingArgumentAccepted = &fault.Fault{Name: "prompt-missing-argument-accepted",
		Description: "serves prompts/get without a required argument (it renders as an empty string)"}
	PromptWrongTypeAccepted = &fault.Fault{Name: "prompt-wrong-type-accepted",
		Description: "serves prompts/get with a number where the argument map holds strings"}
	PromptUnknownEmpty = &fault.Fault{Name: "prompt-unknown-empty",
		Description: "answers prompts/get for an unknown prompt with an empty message list"}
	PromptInvalidParamsInternal = &fault.Fault{Name: "prompt-invalid-params-internal",
		Description: "answers every invalid prompts/get (unknown name, missing or mistyped argument) with -32603 instead of -32602",
		Why:         "one wrong code for every kind of invalid params: each check of an invalid prompts/get sees it"}
	PromptErrorCodeZero = &fault.Fault{Name: "prompt-error-code-zero",
		Description: "answers the failing handler of test_prompt_error with error code 0"}
	PromptErrorEmptyMessages = &fault.Fault{Name: "prompt-error-empty-messages",
		Description: "answers the failing handler of test_prompt_error with a success and an empty message list"}
	PromptSimpleEmpty = &fault.Fault{Name: "prompt-simple-empty",
		Description: "answers test_simple_prompt with no messages"}
	PromptArgsIgnored = &fault.Fault{Name: "prompt-args-ignored",
		Description: "renders test_prompt_with_arguments without the values it was given"}
	PromptEmbeddedMissing = &fault.Fault{Name: "prompt-embedded-missing",
		Description: "answers test_prompt_with_embedded_resource with text only, no embedded resource"}
	PromptImageMissing = &fault.Fault{Name: "prompt-image-missing",
		Description: "answers test_prompt_with_image with text only, no image"}
	PromptImageNotBase64 = &fault.Fault{Name: "prompt-image-not-base64",
		Description: "answers test_prompt_with_image with image data that is not base64"}
	PromptsListCursorLoops = &fault.Fault{Name: "prompts-list-cursor-loops",
		Description: "gives the last page of prompts/list a nextCursor that leads back to the first"}
	PromptsInvalidCursorAccepted = &fault.Fault{Name: "prompts-invalid-cursor-accepted",
		Description: "answers prompts/list with an unknown cursor with the first page"}
	CompletionError = &fault.Fault{Name: "completion-error",
		Description: "declares completions but answers completion/complete for an argument of test_prompt_with_arguments with -32603"}
	// From 2026-07-28 the schema bounds the values itself (maxItems 100):
	// 101 values are a message of no version there.
	CompletionTooManyValues = &fault.Fault{Name: "completion-too-many-values", Versions: legacy,
		Description: "answers completion/complete with 101 values"}
	CompletionTotalInconsistent = &fault.Fault{Name: "completion-total-inconsistent",
		Description: "answers completion/complete with 3 values, total 1 and hasMore false"}
	CompletionUnknownPromptEmpty = &fault.Fault{Name: "completion-unknown-prompt-empty",
		Description: "answers completion/complete for an unknown prompt with an empty completion"}
	CompletionUnknownTemplateEmpty = &fault.Fault{Name: "completion-unknown-template-empty",
		Description: "answers completion/complete for a resource template it does not have with an empty completion"}
	CompletionUndeclaredServed = &fault.Fault{Name: "completion-undeclared-served",
		Description: "does not declare the completions capability, yet serves completion/complete"}

	PromptErrorServerCode = &fault.Fault{Name: "prompt-error-server-code", Liberty: true,
		Description: "answers the failing handler of test_prompt_error with -32004 (an implementation-defined server error, the TMS MCP vendor's code)",
		Freedom:     "-32000 to -32099: Server error. Reserved for implementation-defined server-errors."}
	PromptsOnePage = &fault.Fault{Name: "prompts-one-page", Liberty: true,
		Description: "lists every prompt on one page",
		Freedom:     "Page size is determined by the server, and clients MUST NOT assume a fixed page size."}
	CompletionUnknownTemplateOtherCode = &fault.Fault{Name: "completion-unknown-template-other-code", Liberty: true,
		Description: "refuses completion/complete for a resource template it does not have with -32002 (resource not found) instead of -32602",
		Freedom:     "Servers **SHOULD** return standard JSON-RPC errors for common failure cases: (no code is named for an unknown resource reference)"}
	CompletionNoValues = &fault.Fault{Name: "completion-no-values", Liberty: true,
		Description: "answers completion/complete with no values (nothing to suggest)",
		Freedom:     "Servers return an array of completion values ranked by relevance"}
)

var (
	promptFaults = fault.Set{PromptSystemRole, PromptContentUnknownType, PromptMissingArgumentAccepted, PromptWrongTypeAccepted,
		PromptUnknownEmpty, PromptInvalidParamsInternal, PromptErrorCodeZero, PromptErrorEmptyMessages, PromptSimpleEmpty,
		PromptArgsIgnored, PromptEmbeddedMissing, PromptImageMissing, PromptImageNotBase64, PromptsListCursorLoops, PromptsInvalidCursorAccepted,
		CompletionError, CompletionTooManyValues, CompletionTotalInconsistent, CompletionUnknownPromptEmpty, CompletionUnknownTemplateEmpty, CompletionUndeclaredServed}
	promptLiberties = fault.Set{PromptErrorServerCode, PromptsOnePage, CompletionNoValues, CompletionUnknownTemplateOtherCode}
)
