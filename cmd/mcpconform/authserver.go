package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mcpconform/mcpconform/fakes/client"
	"github.com/mcpconform/mcpconform/fakes/issuer"
	"github.com/mcpconform/mcpconform/scenarios"
	serverauth "github.com/mcpconform/mcpconform/scenarios/server/auth"
)

// issuerFlags say where mcpconform's issuer is: served by this run
// (--auth-listen) or by a `mcpconform auth-server` started before the
// target (--auth-state alone), and what the target expects of a token.
type issuerFlags struct {
	listen, state, resource, format, scopeTool string
	scopes                                     []string
}

func (f *issuerFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.listen, "auth-listen", "", "serve mcpconform's authorization server (issuer, JWKS, introspection) on this loopback HOST:PORT for the run; configure the target to trust it")
	fl.StringVar(&f.state, "auth-state", "", "the issuer's key and URL (a file, mode 0600): made by --auth-listen if absent; alone, the issuer of a running 'mcpconform auth-server --state FILE'")
	fl.StringVar(&f.resource, "auth-resource", "", "the audience of the tokens the target serves (default: the target's URL)")
	fl.StringSliceVar(&f.scopes, "auth-scopes", nil, "scopes of a valid token (default: the scopes_supported of the target's Protected Resource Metadata)")
	fl.StringVar(&f.format, "auth-token-format", "jwt", "jwt (RFC 9068), or opaque: the target introspects each token at the issuer (RFC 7662)")
	fl.StringVar(&f.scopeTool, "auth-scope-tool", "", "a tool the target serves only to a token with a scope (judges 403 insufficient_scope when the first request needs none)")
}

func (f *issuerFlags) set() bool { return f.listen != "" || f.state != "" }

// start serves or loads the issuer; stop ends what it served.
func (f *issuerFlags) start(stderr io.Writer) (iss *issuer.Issuer, stop func(), err error) {
	if f.format != "jwt" && f.format != "opaque" {
		return nil, nil, fmt.Errorf("--auth-token-format %q: want jwt or opaque", f.format)
	}
	if f.listen == "" {
		if iss, err = issuer.Load(f.state, "", false); err != nil {
			return nil, nil, fmt.Errorf("--auth-state: %w", err)
		}
		fmt.Fprintf(stderr, "mcpconform: tokens of issuer %s (served by 'mcpconform auth-server --state %s')\n", iss.URL(), f.state)
		return iss, func() {}, nil
	}
	ln, url, err := issuer.Listen(f.listen)
	if err != nil {
		return nil, nil, fmt.Errorf("--auth-listen: %w", err)
	}
	if f.state != "" {
		iss, err = issuer.Load(f.state, url, true)
	} else {
		iss, err = issuer.New(url)
	}
	if err != nil {
		_ = ln.Close()
		return nil, nil, fmt.Errorf("--auth-state: %w", err)
	}
	srv := iss.Serve(ln)
	info := iss.Info()
	fmt.Fprintf(stderr, "mcpconform: authorization server %s (jwks_uri %s, introspection_endpoint %s)\n", info.Issuer, info.JWKSURI, info.IntrospectionEndpoint)
	return iss, func() { _ = srv.Close() }, nil
}

// tokensFor is the run's authorization for one target: the issuer, the
// audience and scopes of its tokens, and the tokens of sessions A and B.
func (f *issuerFlags) tokensFor(ctx context.Context, iss *issuer.Issuer, t client.Target) (*scenarios.Auth, []string, error) {
	a := &scenarios.Auth{Issuer: iss, Resource: f.resource, Scopes: f.scopes, ScopeTool: f.scopeTool}
	if a.Resource == "" {
		a.Resource = t.URL
	}
	if f.format == "opaque" {
		a.Form = issuer.Opaque
	}
	if a.Scopes == nil {
		a.Scopes = serverauth.AdvertisedScopes(ctx, t.URL)
	}
	var tokens []string
	for _, subject := range []string{"mcpconform-subject-a", "mcpconform-subject-b"} {
		tok, err := a.Mint(subject, a.Scopes, issuer.Sound)
		if err != nil {
			return nil, nil, err
		}
		tokens = append(tokens, tok)
	}
	return a, tokens, nil
}

func authServerCmd() *cobra.Command {
	var listen, state, info string
	cmd := &cobra.Command{
		Use:   "auth-server --listen HOST:PORT [--state FILE]",
		Short: "Run mcpconform's authorization server alone, so a protected target can be started against it first",
		Long: `Serve mcpconform's authorization server on loopback until interrupted: RFC 8414
metadata, the JWKS its tokens are signed with, and an RFC 7662 introspection
endpoint. Configure the server under test to trust the issuer it prints, then
judge it with 'mcpconform server --url URL --auth-state FILE': that run mints
its tokens with the key in FILE (kept across runs, mode 0600).

Exit codes: 0 stopped by a signal, 2 usage or setup error.`,
		Example: `  mcpconform auth-server --listen 127.0.0.1:9400 --state .mcpconform-issuer.json --info issuer.json &
  MY_ISSUER=http://127.0.0.1:9400 ./my-server &
  mcpconform server --url http://127.0.0.1:3000/mcp --auth-state .mcpconform-issuer.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				return exitWith(exitUsage, usageErr("--listen HOST:PORT is required (a loopback address)"))
			}
			f := issuerFlags{listen: listen, state: state, format: "jwt"}
			iss, stop, err := f.start(cmd.ErrOrStderr())
			if err != nil {
				return exitWith(exitUsage, usageErr("%v", err))
			}
			defer stop()
			if info != "" {
				b, _ := json.MarshalIndent(iss.Info(), "", "  ")
				if err := os.WriteFile(info, append(b, '\n'), 0o644); err != nil {
					return exitWith(exitUsage, usageErr("--info: %v", err))
				}
			}
			b, _ := json.MarshalIndent(iss.Info(), "", "  ")
			fmt.Fprintln(cmd.OutOrStdout(), string(b))
			ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer cancel()
			<-ctx.Done()
			return nil
		},
	}
	cmd.Flags().StringVar(&listen, "listen", "", "loopback HOST:PORT to serve on, e.g. 127.0.0.1:9400")
	cmd.Flags().StringVar(&state, "state", "", "keep the signing key and issuer in this file (made if absent), so the target trusts the same key across runs")
	cmd.Flags().StringVar(&info, "info", "", "write the issuer, jwks_uri and introspection_endpoint (nothing secret) to this JSON file")
	return cmd
}
