package config_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

func TestCostKeysResolveWithTheProjectOnlyTightening(t *testing.T) {
	user, warnings, err := config.Parse("config.json", []byte(`{"maxSpendUsd": 5, "maxSpendPerTurn": 1, "maxSteps": 30,
		"models": {"house": {"contextWindow": 32000, "input": 0.5, "output": 1.5}}}`))
	if err != nil || len(warnings) != 0 {
		t.Fatalf("parse: %v %v", err, warnings)
	}
	project, _, err := config.Parse(".shiro/config.json", []byte(`{"maxSpendUsd": 2, "maxSpendPerTurn": 3, "models": {"house": {"input": 0}}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{MaxSteps: 7})
	if err != nil {
		t.Fatal(err)
	}
	if s.MaxSpendUSD != 2 || s.MaxSpendPerTurn != 1 || s.MaxSteps != 7 {
		t.Fatalf("ceilings %v/%v steps %d; want the project's lower session ceiling, the user's lower turn one, the flag's steps", s.MaxSpendUSD, s.MaxSpendPerTurn, s.MaxSteps)
	}
	m := s.Models["house"]
	if m.ContextWindow != 32000 || m.Input == nil || *m.Input != 0.5 || *m.Output != 1.5 {
		t.Fatalf("models = %+v (the project's entry must not reprice)", s.Models)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "project config: models and maxSteps can only be set in your own config") {
		t.Fatalf("warnings = %q", s.Warnings)
	}
	// With no ceiling of the user's, the project's still applies.
	s, _ = config.Resolve(config.File{}, project, env(nil), config.Flags{})
	if s.MaxSpendUSD != 2 || s.MaxSteps != 0 {
		t.Fatalf("ceiling %v steps %d", s.MaxSpendUSD, s.MaxSteps)
	}
}

func TestBadCostKeysNameTheFileAndField(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"maxSpendUsd": 0}`, `config.json: field "maxSpendUsd" must be a positive number`},
		{`{"maxSpendPerTurn": -1}`, `config.json: field "maxSpendPerTurn" must be a positive`},
		{`{"maxSteps": 0}`, `config.json: field "maxSteps" must be between 1 and 1000`},
		{`{"maxSpendUsd": "5"}`, `config.json: field "maxSpendUsd" should be a number`},
		{`{"models": {"m": {"imput": 1}}}`, `config.json: field "models.m": json: unknown field "imput"`},
		{`{"models": {"m": {"output": -2}}}`, `config.json: field "models.m": "output" must be a price of zero or more`},
		{`{"models": {"m": {"contextWindow": "big"}}}`, `config.json: field "models.m"`},
		{`{"models": ["m"]}`, `config.json: field "models" should be`},
	} {
		_, _, err := config.Parse("config.json", []byte(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.body, err, tc.want)
		}
	}
}
