package main

import (
	"net/url"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcpconform/mcpconform/fakes/authref"
	"github.com/mcpconform/mcpconform/internal/secret"
	"github.com/mcpconform/mcpconform/protocol"
	"github.com/mcpconform/mcpconform/scenarios"
	"github.com/mcpconform/mcpconform/scenarios/asside"
	"github.com/mcpconform/mcpconform/transport"
)

type authserverFlags struct {
	runFlags
	url                                 string
	reference                           bool
	fault, liberty                      string
	clientID, clientSecret, redirectURI string
	approval                            []string
	configPath                          string
}

// authserverJudgeCmd judges an OAuth authorization server (the one an MCP
// server names in its Protected Resource Metadata).
func authserverJudgeCmd() *cobra.Command {
	f := &authserverFlags{}
	cmd := &cobra.Command{
		Use:   "authserver (--url ISSUER | --reference)",
		Short: "Judge an OAuth authorization server for MCP: mcpconform plays the client's part of the flow",
		Long: `Judge an authorization server as the MCP authorization pages and the RFCs they name
ask: its metadata (RFC 8414 or OpenID Connect Discovery), the authorization code
grant with PKCE S256, PKCE enforcement, single-use codes, exact redirect URIs,
token errors, refresh token rotation and dynamic registration where offered.

The approval step must be automatic: run the server in a test mode that approves
every authorization request with a redirect at once (mcpconform reads the
Location, and follows nothing). Without a registration_endpoint, name a client
registered for the redirect URI ` + asside.DefaultRedirectURI + ` (or --redirect-uri)
with --client-id (and --client-secret for a confidential one); otherwise the grant
checks are skipped with the reason.

Exit codes: 0 every judged check passed, 1 a check failed, 2 usage or setup error,
3 some checks could not be judged.`,
		Example: `  mcpconform authserver --reference
  mcpconform authserver --url http://127.0.0.1:9000
  mcpconform authserver --url http://127.0.0.1:9000/realms/test --client-id mcp-test --client-secret "$SECRET"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return exitWith(runAuthserver(cmd, f))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.url, "url", "", "the authorization server's issuer identifier")
	fl.BoolVar(&f.reference, "reference", false, "judge the built-in reference authorization server")
	fl.StringVar(&f.fault, "fault", "", "with --reference: serve this fault instead")
	fl.StringVar(&f.liberty, "liberty", "", "with --reference: serve this conformant variant instead")
	fl.StringVar(&f.clientID, "client-id", "", "a client registered with the server beforehand (else one is registered dynamically)")
	fl.StringVar(&f.clientSecret, "client-secret", "", "that client's secret (a confidential client); a secret, redacted everywhere")
	fl.StringVar(&f.redirectURI, "redirect-uri", "", "that client's registered redirect URI (default "+asside.DefaultRedirectURI+")")
	fl.StringArrayVar(&f.approval, "approve-field", nil, "NAME=VALUE of the login or consent form the authorization endpoint shows (repeatable; values are secrets)")
	fl.StringVar(&f.configPath, "config", "", "YAML file: approval.fields, the login form's fields (see README)")
	f.runFlags.register(fl)
	return cmd
}

func runAuthserver(cmd *cobra.Command, f *authserverFlags) (int, error) {
	versions, err := f.runFlags.versions([]string{protocol.DefaultVersion})
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	if (f.url == "") == !f.reference {
		return exitUsage, usageErr("name exactly one target: --url ISSUER or --reference")
	}
	if (f.fault != "" || f.liberty != "") && !f.reference {
		return exitUsage, usageErr("--fault and --liberty go with --reference")
	}
	secret.Add(f.clientSecret)
	cfg, err := loadConfig(f.configPath)
	if err != nil {
		return exitUsage, usageErr("%v", err)
	}
	approval := map[string]string{}
	for k, v := range cfg.Approval.Fields {
		approval[k] = v
	}
	for _, kv := range f.approval {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return exitUsage, usageErr("--approve-field %q: want NAME=VALUE", kv)
		}
		approval[k] = v
	}
	for _, v := range approval {
		secret.Add(v)
	}
	target := asside.Target{Issuer: f.url, ClientID: f.clientID, ClientSecret: f.clientSecret, RedirectURI: f.redirectURI, Approval: approval}
	describe := target.String()
	if f.reference {
		v, err := findVariant(f.fault, f.liberty, authref.Faults(), authref.Liberties())
		if err != nil {
			return exitUsage, usageErr("%v", err)
		}
		as, err := authref.Start(v)
		if err != nil {
			return exitUsage, usageErr("starting the reference authorization server: %v", err)
		}
		defer as.Close()
		target.Issuer, describe = as.Issuer(), "built-in reference authorization server"
		if len(target.Approval) == 0 {
			target.Approval = authref.LoginFields // its login form's, asked by as-login-form only
		}
		if v != nil {
			describe += " with " + v.Kind() + " " + v.Name
		}
	} else if u, err := url.Parse(f.url); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return exitUsage, usageErr("--url %q: want the issuer, an http(s) URL", f.url)
	}
	p := &plan{side: scenarios.AuthServerSide, versions: versions, transports: []transport.Kind{transport.HTTP}, flags: &f.runFlags,
		targets: map[transport.Kind]scenarios.Target{transport.HTTP: target}, describe: describe}
	if err := p.check(); err != nil {
		return exitUsage, usageErr("%v", err)
	}
	return p.execute(cmd)
}
