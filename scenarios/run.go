package scenarios

import (
	"context"
	"errors"
	"fmt"
	"net"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/jsonrpc"
	"github.com/mcpconform/mcpconform/transport"
)

// Outcome is a verdict on one check.
type Outcome string

const (
	Pass    Outcome = "pass"
	Fail    Outcome = "fail"
	Skip    Outcome = "skip"
	Errored Outcome = "error"
)

// Verdict is what a scenario concluded about one check.
type Verdict struct {
	Check   Check
	Outcome Outcome
	// Message: "Expected: …\nActual: …" for failures, the reason otherwise.
	Message string
	At      time.Duration
}

// Env is what a scenario runs against.
type Env struct {
	Target    client.Target
	Version   string
	Transport string
	// Fixtures maps fixture names to the target's own tools and arguments.
	Fixtures map[string]Fixture
	// AuthTokens, when two are given, are the bearer tokens of sessions A
	// and B: two authorization contexts.
	AuthTokens []string
	// QuietWindow bounds a wait for something that must NOT arrive (a
	// notification to the wrong session, a response after a cancel).
	QuietWindow time.Duration
	// ResponseTimeout bounds each single wait for the target.
	ResponseTimeout time.Duration
	// Step, if set, is told about each step (Ginkgo's By).
	Step func(text string)
}

// Fixture is what the target offers under a fixture name: its own tool and
// the arguments to call it with.
type Fixture struct {
	Tool      string         `yaml:"tool"`
	Arguments map[string]any `yaml:"arguments"`
}

// Fixture returns the target's tool for a fixture; defaults are the fixture
// name and the given default arguments.
func (e Env) Fixture(name string, defaultArgs map[string]any) Fixture {
	f := e.Fixtures[name]
	if f.Tool == "" {
		f.Tool = name
	}
	if f.Arguments == nil {
		f.Arguments = defaultArgs
	}
	if f.Arguments == nil {
		f.Arguments = map[string]any{}
	}
	return f
}

// Result is one execution of a scenario.
type Result struct {
	Scenario   *Scenario
	Verdicts   []Verdict // in catalogue order
	Transcript string
	Stderr     string
	Duration   time.Duration
}

// T is handed to a scenario body.
type T struct {
	Ctx context.Context
	Env Env

	scenario   *Scenario
	transcript *jsonrpc.Transcript
	start      time.Time

	mu       sync.Mutex
	verdicts map[string]Verdict
	levels   map[string]Level
	sessions []*client.Session
	stderr   []string
}

// abort unwinds a body; reason says why the rest was not judged.
type abort struct {
	outcome Outcome
	reason  string
}

// Execute runs one scenario body and returns a verdict for every check. It
// never panics and never outlives ctx by more than the close of its sessions.
func Execute(ctx context.Context, s *Scenario, env Env) *Result {
	if env.ResponseTimeout == 0 {
		env.ResponseTimeout = 5 * time.Second
	}
	if env.QuietWindow == 0 {
		env.QuietWindow = 250 * time.Millisecond
	}
	t := &T{
		Ctx:        ctx,
		Env:        env,
		scenario:   s,
		transcript: jsonrpc.NewTranscript(),
		start:      time.Now(),
		verdicts:   map[string]Verdict{},
	}
	rest := abort{outcome: Errored, reason: "the scenario ended without judging this check (a defect in mcpconform)"}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if a, ok := r.(abort); ok {
					rest = a
					return
				}
				rest = abort{Errored, fmt.Sprintf("panic in scenario: %v\n%s", r, debug.Stack())}
			}
		}()
		s.Run(t)
	}()
	t.closeSessions()
	if ctx.Err() != nil && rest.outcome != Skip {
		rest = abort{Errored, "the scenario deadline passed before this check was judged (raise --timeout?)"}
	}
	res := &Result{Scenario: s, Duration: time.Since(t.start)}
	for _, c := range s.Checks {
		v, ok := t.verdicts[c.ID]
		if l, raised := t.levels[c.ID]; raised {
			c.Level = l
			v.Check.Level = l
		}
		if !ok {
			v = Verdict{Check: c, Outcome: rest.outcome, Message: rest.reason, At: time.Since(t.start)}
		}
		res.Verdicts = append(res.Verdicts, v)
	}
	res.Transcript = t.transcript.String()
	res.Stderr = strings.Join(t.stderr, "")
	return res
}

// Step announces what the body does next.
func (t *T) Step(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	t.transcript.Eventf("", "step: %s", text)
	if t.Env.Step != nil {
		t.Env.Step(text)
	}
}

// Transcript is the scenario's transcript (shared by its sessions).
func (t *T) Transcript() *jsonrpc.Transcript { return t.transcript }

func (t *T) check(id string) Check {
	c, ok := t.scenario.Check(id)
	if !ok {
		panic(abort{Errored, fmt.Sprintf("scenario %s judged unknown check %q (a defect in mcpconform)", t.scenario.ID, id)})
	}
	return c
}

// Escalate raises a check's level for this run (a SHOULD that becomes a
// MUST when two authorization contexts are given), saying why.
func (t *T) Escalate(id string, level Level, why string) {
	t.check(id)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.levels == nil {
		t.levels = map[string]Level{}
	}
	t.levels[id] = level
	t.transcript.Eventf("", "%s judged at %s: %s", id, level, why)
}

func (t *T) record(id string, o Outcome, msg string) {
	c := t.check(id)
	t.mu.Lock()
	if l, ok := t.levels[id]; ok {
		c.Level = l
	}
	t.mu.Unlock()
	if o == Fail && t.Ctx.Err() != nil {
		// Past the scenario's deadline a missing answer proves nothing.
		o, msg = Errored, "the scenario deadline passed before this check was judged ("+msg+")"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if prev, ok := t.verdicts[id]; ok && prev.Outcome == Fail {
		return // the first failure stands
	}
	t.verdicts[id] = Verdict{Check: c, Outcome: o, Message: msg, At: time.Since(t.start)}
}

// Pass records that the check held.
func (t *T) Pass(id string) { t.record(id, Pass, "") }

// Fail records a violation with expected and actual, in that order.
func (t *T) Fail(id, expected, actual string) {
	t.record(id, Fail, fmt.Sprintf("Expected: %s\nActual:   %s", expected, actual))
}

// Judge passes or fails the check.
func (t *T) Judge(id string, ok bool, expected, actual string) bool {
	if ok {
		t.Pass(id)
	} else {
		t.Fail(id, expected, actual)
	}
	return ok
}

// Skip records why the check could not apply (missing fixture/capability).
func (t *T) Skip(id, reason string) { t.record(id, Skip, reason) }

// SkipRest stops the body: every check not yet judged is skipped with reason.
func (t *T) SkipRest(reason string) { panic(abort{Skip, reason}) }

// Blocked stops the body because the target failed a prerequisite: the
// checks not yet judged cannot be judged and are skipped, saying why. (The
// prerequisite's own check carries the failure.)
func (t *T) Blocked(format string, args ...any) {
	panic(abort{Skip, "not judged: " + fmt.Sprintf(format, args...)})
}

// Abort stops the body on a harness problem (could not start or reach the
// target): the checks not yet judged are errors, not failures.
func (t *T) Abort(format string, args ...any) {
	panic(abort{Errored, fmt.Sprintf(format, args...)})
}

// Wait is a context for one wait on the target.
func (t *T) Wait() (context.Context, context.CancelFunc) {
	return context.WithTimeout(t.Ctx, t.Env.ResponseTimeout)
}

// Connect opens a session without a handshake. A failure to connect is a
// harness error (Abort).
func (t *T) Connect(label string, opts client.Options) *client.Session {
	opts.Transcript = t.transcript
	opts.Label = label
	if opts.Version == "" {
		opts.Version = t.Env.Version
	}
	ctx, cancel := t.Wait()
	defer cancel()
	s, err := client.Connect(ctx, t.Env.Target, opts)
	if err != nil {
		t.Abort("could not connect to the target (%s): %v", t.Env.Target, err)
	}
	t.mu.Lock()
	t.sessions = append(t.sessions, s)
	t.mu.Unlock()
	return s
}

// Open connects and performs the version's handshake. If the target fails
// the handshake, the scenario's remaining checks are blocked.
func (t *T) Open(label string, opts client.Options) *client.Session {
	s := t.Connect(label, opts)
	ctx, cancel := t.Wait()
	defer cancel()
	if _, err := s.Open(ctx); err != nil {
		t.abortIfUnreachable(err)
		t.Blocked("the %s handshake failed: %v", handshakeName(s), err)
	}
	return s
}

func handshakeName(s *client.Session) string {
	if s.Stateless() {
		return "server/discover"
	}
	return "initialize"
}

// Request sends a request and waits; a timeout or lost connection is
// returned as an error for the body to judge. A target that cannot be
// reached at all is a harness error (Abort), not a verdict.
func (t *T) Request(s *client.Session, method string, params any) (*jsonrpc.Message, error) {
	return t.Do(s, client.Call{Method: method, Params: params})
}

// Do is Request with a full call description.
func (t *T) Do(s *client.Session, c client.Call) (*jsonrpc.Message, error) {
	ctx, cancel := t.Wait()
	defer cancel()
	resp, err := s.Do(ctx, c)
	t.abortIfUnreachable(err)
	return resp, err
}

// abortIfUnreachable turns a failure to connect into a harness error.
func (t *T) abortIfUnreachable(err error) {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		t.Abort("could not reach the target (%s): %v", t.Env.Target, err)
	}
}

func (t *T) closeSessions() {
	t.mu.Lock()
	sessions := t.sessions
	t.sessions = nil
	t.mu.Unlock()
	for _, s := range sessions {
		_ = s.Close()
		if st, ok := stderrOf(s); ok && st != "" {
			t.stderr = append(t.stderr, st)
		}
	}
}

func stderrOf(s *client.Session) (string, bool) {
	c, ok := transport.As[interface{ Stderr() string }](s.Conn())
	if !ok {
		return "", false
	}
	return c.Stderr(), true
}

// Describe renders a response for a failure message: compact and free of
// ports so CI can group failures (the transcript keeps the full detail).
func Describe(m *jsonrpc.Message, err error) string {
	switch {
	case err != nil:
		return "no JSON-RPC response: " + maskAddresses(err.Error())
	case m == nil:
		return "no response"
	case m.Error != nil:
		s := fmt.Sprintf("error %d %q", m.Error.Code, m.Error.Message)
		if len(m.Error.Data) > 0 {
			s += " data=" + abbreviate(string(m.Error.Data), 200)
		}
		return s
	default:
		return "result " + abbreviate(string(m.Result), 300)
	}
}

var hostPort = regexp.MustCompile(`(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]|localhost):\d+`)

// maskAddresses replaces host:port pairs (ephemeral ports differ per run).
func maskAddresses(s string) string { return hostPort.ReplaceAllString(s, "$1:PORT") }

// abbreviate cuts s to about n bytes without splitting a character.
func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
