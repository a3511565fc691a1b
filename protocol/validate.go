package protocol

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// SchemaError is a message that does not match the MCP schema.
type SchemaError struct {
	// Version is the protocol version validated against ("" for Decode).
	Version string
	// Type is the generated Go type validated against, e.g.
	// "v20251125.InitializeResult".
	Type string
	// Path is the JSONPath of the offending value, e.g.
	// "$.result.capabilities.tools.listChanged"; for a missing required
	// member it is the path the member should have had.
	Path string
	// Reason says what is wrong, e.g. "required property is missing".
	Reason string
}

func (e *SchemaError) Error() string {
	where := e.Type
	if e.Version != "" {
		where += ", MCP " + e.Version
	}
	return fmt.Sprintf("%s: %s (%s)", e.Path, e.Reason, where)
}

var (
	// ErrUnknownVersion is returned (wrapped) when there is no schema for the
	// protocol version: it is unknown or older than 2025-03-26.
	ErrUnknownVersion = errors.New("no schema for protocol version")
	// ErrUnknownMethod is returned (wrapped) when the version's schema has no
	// message for the method (or, from ValidateResult, no result: the
	// method is a notification). Callers that only want to check what can be
	// checked should treat it, like ErrUnknownVersion, as "nothing to
	// validate" via errors.Is.
	ErrUnknownMethod = errors.New("no schema for method")
)

// ValidateParams validates the params of a request or notification of the
// given version and method. params is the raw "params" member (nil or empty
// when absent). The check runs on the whole JSON-RPC message, so paths start
// with "$.params" and a missing required params member is reported as such.
//
// It returns nil when valid, a *SchemaError on a violation, and an error
// wrapping ErrUnknownVersion or ErrUnknownMethod when there is no schema.
func ValidateParams(version, method string, params json.RawMessage) error {
	e, err := lookup(version, method)
	if err != nil {
		return err
	}
	if len(params) > 0 && !json.Valid(params) {
		return &SchemaError{Version: version, Type: e.request.String(), Path: "$.params", Reason: "invalid JSON"}
	}
	// The envelope is written around params as they are: encoding them
	// again would scan and copy the whole message once more.
	quoted, _ := json.Marshal(method)
	raw := make([]byte, 0, len(params)+len(quoted)+48)
	raw = append(append(raw, `{"jsonrpc":"2.0","method":`...), quoted...)
	if e.result != nil {
		raw = append(raw, `,"id":0`...)
	}
	if len(params) > 0 {
		raw = append(append(raw, `,"params":`...), params...)
	}
	raw = append(raw, '}')
	return validate(version, raw, e.request, "$")
}

// ValidateResult validates the result of a request of the given version and
// method. result is the raw "result" member of the response; paths start
// with "$.result".
//
// The result type follows the method, adjusted by what the result says it
// is: in 2025-11-25 a result with a "task" member is a CreateTaskResult
// (task-augmented tools/call, sampling/createMessage, elicitation/create);
// in 2026-07-28 resultType "input_required" selects InputRequiredResult
// (tools/call, prompts/get, resources/read), "task" the tasks extension's
// CreateTaskResult (tools/call), and any resultType other than these and
// "complete" is a violation ("a resultType of any value unrecognized by the
// client MUST be considered invalid", /specification/2026-07-28/basic/index).
//
// It returns nil when valid, a *SchemaError on a violation, and an error
// wrapping ErrUnknownVersion or ErrUnknownMethod when there is no schema.
func ValidateResult(version, method string, result json.RawMessage) error {
	e, err := lookup(version, method)
	if err != nil {
		return err
	}
	if e.result == nil {
		return fmt.Errorf("%w: %s is a notification and has no result", ErrUnknownMethod, method)
	}
	t := e.result
	var members map[string]json.RawMessage
	_ = json.Unmarshal(result, &members) // if this fails, validate reports why
	switch version {
	case V20251125:
		if _, ok := members["task"]; ok && e.task != nil {
			t = e.task
		}
	case V20260728:
		raw, ok := members["resultType"]
		var resultType string
		if !ok || json.Unmarshal(raw, &resultType) != nil {
			break // missing or not a string: the schema check says so
		}
		allowed := []string{"complete"}
		if e.inputRequired {
			allowed = append(allowed, "input_required")
		}
		if e.task != nil {
			allowed = append(allowed, "task")
		}
		switch {
		case resultType == "complete":
		case resultType == "input_required" && e.inputRequired:
			t = inputRequiredResult
		case resultType == "task" && e.task != nil:
			t = e.task
		default:
			quoted := make([]string, len(allowed))
			for i, a := range allowed {
				quoted[i] = strconv.Quote(a)
			}
			return &SchemaError{Version: version, Type: t.String(), Path: "$.result.resultType",
				Reason: fmt.Sprintf("invalid value %q for %s, expected one of %s", resultType, method, strings.Join(quoted, ", "))}
		}
	}
	return validate(version, result, t, "$.result")
}

// Decode strictly decodes raw into target, a pointer to a generated type
// (or any type built from them), and returns a *SchemaError on a schema
// violation, with paths starting at root (e.g. "$" or "$.result"). target is
// only written when raw is valid.
func Decode(raw json.RawMessage, target any, root string) error {
	t := reflect.TypeOf(target)
	if t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("protocol.Decode: target must be a non-nil pointer, got %T", target)
	}
	if err := validate("", raw, t.Elem(), root); err != nil {
		return err
	}
	return json.Unmarshal(raw, target)
}

// NewResult returns a pointer to a new zero value of the result type of a
// method (the plain result, not the task or input-required alternatives).
func NewResult(version, method string) (any, error) {
	e, err := lookup(version, method)
	if err != nil {
		return nil, err
	}
	if e.result == nil {
		return nil, fmt.Errorf("%w: %s is a notification and has no result", ErrUnknownMethod, method)
	}
	return reflect.New(e.result).Interface(), nil
}

// NewMessage returns a pointer to a new zero value of the JSON-RPC request
// or notification type of a method.
func NewMessage(version, method string) (any, error) {
	e, err := lookup(version, method)
	if err != nil {
		return nil, err
	}
	return reflect.New(e.request).Interface(), nil
}

// Methods returns the methods (requests and notifications) the schema of
// version covers, sorted.
func Methods(version string) []string {
	return slices.Sorted(maps.Keys(registry[version]))
}

func lookup(version, method string) (entry, error) {
	methods, ok := registry[version]
	if !ok {
		return entry{}, fmt.Errorf("%w %q", ErrUnknownVersion, version)
	}
	e, ok := methods[method]
	if !ok {
		return entry{}, fmt.Errorf("%w %q in MCP %s", ErrUnknownMethod, method, version)
	}
	return e, nil
}

// validationKey names one validation: the same bytes against the same type
// at the same root always get the same verdict.
type validationKey struct {
	version, root string
	t             reflect.Type
	sum           [sha256.Size]byte
}

// validated memoises validate. A run sends and receives the same messages
// many times over (each scenario lists the tools; a self-test judges the
// catalogue against a thousand variants of one reference), and the schema
// walk costs far more than a hash of the bytes. It is emptied when full.
var (
	validatedMu sync.Mutex
	validated   = map[validationKey]error{}
)

const validatedMax = 1 << 14

func validate(version string, raw []byte, t reflect.Type, root string) error {
	key := validationKey{version: version, root: root, t: t, sum: sha256.Sum256(raw)}
	validatedMu.Lock()
	err, ok := validated[key]
	validatedMu.Unlock()
	if ok {
		return err
	}
	err = validateOnce(version, raw, t, root)
	validatedMu.Lock()
	if len(validated) >= validatedMax {
		clear(validated)
	}
	validated[key] = err
	validatedMu.Unlock()
	return err
}

func validateOnce(version string, raw []byte, t reflect.Type, root string) error {
	if !json.Valid(raw) {
		return &SchemaError{Version: version, Type: t.String(), Path: root, Reason: "invalid JSON"}
	}
	// One typed decode of the whole value first: for a valid message it
	// passes, and the walk then need not decode each level again.
	var v *violation
	if json.Unmarshal(raw, reflect.New(t).Interface()) == nil {
		v = checkFast(raw, t, root)
	} else {
		v = check(raw, t, root, 0, false)
	}
	if v != nil {
		return &SchemaError{Version: version, Type: t.String(), Path: v.path, Reason: v.reason}
	}
	return nil
}
