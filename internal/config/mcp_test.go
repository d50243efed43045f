package config_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/config"
)

func TestMCPSettingsComeFromTheUserOnly(t *testing.T) {
	user, warns, err := config.Parse("u.json", []byte(`{"mcp":{"directToolBudgetBytes":4096,"startTimeoutMs":9000}}`))
	if err != nil || len(warns) != 0 {
		t.Fatalf("parse: %v %v", err, warns)
	}
	project, _, err := config.Parse("p.json", []byte(`{"mcp":{"directToolBudgetBytes":999999},"mcpServers":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.Resolve(user, project, env(nil), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	if *s.MCP.DirectToolBudgetBytes != 4096 || *s.MCP.StartTimeoutMs != 9000 {
		t.Errorf("mcp settings = %+v", s.MCP)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "a project's MCP servers go in .mcp.json") {
		t.Errorf("warnings = %q", s.Warnings)
	}
}

func TestMCPSettingsOutOfRangeNameTheField(t *testing.T) {
	for src, want := range map[string]string{
		`{"mcp":{"directToolBudgetBytes":-1}}`: `c.json: field "mcp.directToolBudgetBytes" must be between 0 and 1048576`,
		`{"mcp":{"startTimeoutMs":5}}`:         `c.json: field "mcp.startTimeoutMs" must be between 100 and 600000`,
		`{"mcp":3}`:                            `c.json: field "mcp" should be an object`,
	} {
		if _, _, err := config.Parse("c.json", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}
