package scenarios

import (
	"sync"
	"time"

	"github.com/mcpconform/mcpconform/fakes/issuer"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/transport"
)

// Target is what a scenario runs against; the side driver knows its
// concrete type (serverside: the server to dial; clientside: the client
// command to launch).
type Target interface{ String() string }

// Env is what a scenario runs against.
type Env struct {
	Target  Target
	Version string
	// VersionExplicit says the user named Version (not "all", not a
	// default): a target that does not implement it then fails, once.
	VersionExplicit bool
	Transport       transport.Kind
	// Fixtures maps fixture names to the target's own tools and arguments.
	Fixtures map[string]Fixture
	// AuthTokens, when two are given, are the bearer tokens of sessions A
	// and B: two authorization contexts.
	AuthTokens []string
	// Auth, when set, is the issuer the target trusts: the authorization
	// family mints the tokens its checks need there.
	Auth *Auth
	// Profiles are the opt-in profiles enabled for this run.
	Profiles []string
	Timing   Timing
	// Gate, shared by the scenarios of one transport and version, closes
	// when the target cannot even complete the handshake there.
	Gate *Gate
	// Wire, shared the same way, collects schema violations of every
	// session for the check that judges them all.
	Wire *WireLedger
	// Step, if set, is told about each step (Ginkgo's By).
	Step func(text string)
	// MaxRounds is the bound a client's MRTR loop is judged against
	// (--max-rounds); zero means DefaultMaxRounds.
	MaxRounds int
}

// Auth is what the authorization family knows of a protected target.
type Auth struct {
	// Issuer mints tokens the target was configured to trust.
	Issuer *issuer.Issuer
	// Resource is the audience of the tokens the target serves (its
	// canonical URI).
	Resource string
	// Scopes are those of a valid token (nil: no scope claim).
	Scopes []string
	// Form is how tokens are written: JWTs, or opaque tokens the target
	// introspects.
	Form issuer.Form
	// ScopeTool, when set, is a tool the target serves only to a token
	// with a scope: a token without scopes must be refused there with 403.
	ScopeTool string
}

// MintBound makes a sound token bound to a DPoP key's thumbprint.
func (a *Auth) MintBound(subject, jkt string) (string, error) {
	return a.Issuer.Mint(issuer.Token{Subject: subject, Audience: a.Resource, Scopes: a.Scopes, Form: a.Form, JKT: jkt})
}

// Mint makes a token of the run's issuer for subject; the defect makes it
// invalid in one way.
func (a *Auth) Mint(subject string, scopes []string, defect issuer.Defect) (string, error) {
	return a.Issuer.Mint(issuer.Token{Subject: subject, Audience: a.Resource, Scopes: scopes, Form: a.Form, Defect: defect})
}

// DefaultMaxRounds is the vendor default of the MRTR client loop's bound
// (seeds 001: "MaxRounds … Default 10"); the spec itself sets none.
const DefaultMaxRounds = 10

// RoundLimit is the MRTR bound the run judges clients against.
func (e Env) RoundLimit() int {
	if e.MaxRounds > 0 {
		return e.MaxRounds
	}
	return DefaultMaxRounds
}

// Timing is every duration the suite waits by: set once from the command
// line and used by the run and the self-test alike.
type Timing struct {
	// ResponseTimeout bounds each single wait for the target.
	ResponseTimeout time.Duration
	// StartTimeout bounds the first answer of a target process the run
	// starts (a stdio server's handshake): it includes the process's own
	// start-up, which is no response time and grows with the machine's load.
	StartTimeout time.Duration
	// QuietWindow bounds a wait for something that must NOT arrive (a
	// notification to the wrong session, a response after a cancel).
	QuietWindow time.Duration
	// ScenarioTimeout bounds one scenario, body and cleanup.
	ScenarioTimeout time.Duration
	// Poll is the interval to poll a task at when the target names none.
	Poll time.Duration
}

// HandshakeWait is how long a handshake over kind may take: over stdio
// each session starts a process, so its start-up is allowed for.
func (t Timing) HandshakeWait(kind transport.Kind) time.Duration {
	if kind == transport.Stdio {
		return max(t.ResponseTimeout, t.StartTimeout)
	}
	return t.ResponseTimeout
}

// DefaultTiming is what the command line starts from.
func DefaultTiming() Timing {
	return Timing{ResponseTimeout: 5 * time.Second, StartTimeout: 15 * time.Second, QuietWindow: 250 * time.Millisecond,
		ScenarioTimeout: 60 * time.Second, Poll: protocol.DefaultPollInterval}
}

// OrDefaults fills the durations left at zero.
func (t Timing) OrDefaults() Timing {
	d := DefaultTiming()
	if t.ResponseTimeout <= 0 {
		t.ResponseTimeout = d.ResponseTimeout
	}
	if t.StartTimeout <= 0 {
		t.StartTimeout = d.StartTimeout
	}
	if t.QuietWindow <= 0 {
		t.QuietWindow = d.QuietWindow
	}
	if t.ScenarioTimeout <= 0 {
		t.ScenarioTimeout = d.ScenarioTimeout
	}
	if t.Poll <= 0 {
		t.Poll = d.Poll
	}
	return t
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

// Gate remembers the first handshake a target could not complete on one
// transport and version: the scenarios after it there are not judged, so a
// target that cannot even start costs one timeout, not one per scenario.
// A target that does not implement the version closes it too, as
// information rather than error.
type Gate struct {
	mu          sync.Mutex
	reason      string
	unsupported bool
}

// Close records why the target cannot be judged here; the first reason stays.
func (g *Gate) Close(reason string) { g.close(reason, false) }

// CloseUnsupported records that the target does not implement the version.
func (g *Gate) CloseUnsupported(reason string) { g.close(reason, true) }

func (g *Gate) close(reason string, unsupported bool) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.reason == "" {
		g.reason, g.unsupported = reason, unsupported
	}
}

// Closed returns the reason once the gate is closed.
func (g *Gate) Closed() (string, bool) {
	if g == nil {
		return "", false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.reason, g.reason != ""
}

// Unsupported reports a gate closed because the version is not implemented.
func (g *Gate) Unsupported() bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.unsupported
}
