// Package skills loads skills — named markdown instructions the model pulls
// in on demand — from the bundled catalogue and from the registry, user and
// project directories, later sources overriding earlier ones by name. It also
// provides the catalogue block of the system prompt and the `skill` tool.
package skills

// Origin says where a skill was loaded from.
type Origin string

// The origins in precedence order: a later origin overrides an earlier one
// for the same name. Claude Code's folders (~/.claude/skills,
// .claude/skills) are read unchanged, each just below shiro's own folder of
// the same reach.
const (
	OriginBundled       Origin = "bundled"
	OriginRegistry      Origin = "registry"
	OriginClaudeUser    Origin = "claude-user"
	OriginUser          Origin = "user"
	OriginClaudeProject Origin = "claude-project"
	OriginProject       Origin = "project"
)

// Skill is one loaded skill.
type Skill struct {
	Name        string
	Description string
	// Body is the markdown after the frontmatter, cut at BodyCap characters
	// with a note when the file holds more.
	Body   string
	Origin Origin
	// Path is the file the skill came from; bundled skills have a
	// "bundled/<name>.md" path that is not on disk.
	Path string
	// Dir is the skill's own folder, for a skill in the folder layout
	// (<name>/SKILL.md) on disk: its other files (scripts, references) are
	// there. Empty for a single-file skill and a bundled one.
	Dir string
	// Extra holds every frontmatter key other than name and description
	// (for example the Agent Skills `license` or `allowed-tools`), as decoded
	// by YAML. Get and List hand out deep copies.
	Extra map[string]any
	// Overrode is the origin of the skill of the same name that this one
	// replaced, and OverrodePath its file; both are empty when none was.
	Overrode     Origin
	OverrodePath string
}

// Sources names the directories to load skills from. An empty directory
// name, or one that does not exist, contributes nothing.
type Sources struct {
	// RegistryDir holds skills installed from the registry
	// ($SHIRO_HOME/.shiro-neko/registry/skills).
	RegistryDir string
	// UserDir holds the user's own skills ($SHIRO_HOME/.shiro-neko/skills).
	UserDir string
	// ProjectDir holds the project's skills (<workspace>/.shiro/skills).
	ProjectDir string
	// ClaudeUserDir and ClaudeProjectDir are Claude Code's skill folders
	// (~/.claude/skills, <workspace>/.claude/skills).
	ClaudeUserDir, ClaudeProjectDir string
	// NoBundled leaves out the skills compiled into the binary.
	NoBundled bool
}
