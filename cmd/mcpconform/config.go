package main

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/mcpconform/mcpconform/internal/yamlline"
	"github.com/mcpconform/mcpconform/scenarios"
)

// configFile is mcpconform.yaml: how a target's own tools stand in for the
// suite's fixtures, and the bearer tokens of two authorization contexts.
type configFile struct {
	Fixtures map[string]scenarios.Fixture `yaml:"fixtures"`
	Auth     struct {
		Tokens []string `yaml:"tokens"`
	} `yaml:"auth"`
	// Approval is how mcpconform authserver gets past a login form.
	Approval struct {
		Fields map[string]string `yaml:"fields"`
	} `yaml:"approval"`
}

func loadConfig(path string) (*configFile, error) {
	cfg := &configFile{}
	if path == "" {
		return cfg, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--config: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true) // a misspelt key is an error, not a silent default
	if err := dec.Decode(cfg); err != nil {
		return nil, fmt.Errorf("--config %s: %w", path, yamlline.Fix(b, err))
	}
	for name, f := range cfg.Fixtures {
		if f.Tool == "" {
			return nil, fmt.Errorf("--config %s: fixture %s has no tool", path, name)
		}
	}
	return cfg, nil
}
