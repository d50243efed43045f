package config

import (
	"encoding/json"
	"path/filepath"
)

// ProjectConfigFile is the project's own config, .shiro/config.json.
func ProjectConfigFile(root string) string { return filepath.Join(ProjectDir(root), "config.json") }

// ConfigTrust is the record of approved project configs (see
// internal/trust): what a project's config switches on that runs programs
// or widens what the model is offered applies only once approved.
func (p Paths) ConfigTrust() string { return filepath.Join(p.State(), "config-trust.json") }

// ProjectApprovalName is the name a project config's approval is kept
// under in ConfigTrust.
const ProjectApprovalName = ".shiro/config.json"

// ApprovalContent is the part of a project config an approval covers: its
// plugins and toolSets as written, encoded the same way every time. Other
// keys a project may set only tighten (permission, sandbox), only tune
// (workflow, compactAt, the spend ceilings), or are ignored; changing them
// does not ask again.
func (f File) ApprovalContent() []byte {
	data, _ := json.Marshal(struct {
		Plugins  *[]string `json:"plugins,omitempty"`
		ToolSets *[]string `json:"toolSets,omitempty"`
	}{f.Plugins, f.ToolSets})
	return data
}
