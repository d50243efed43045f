package plugin

// The builtins one at a time and all together, with the real home
// directory and environment, for the tests; the product resolves the
// ones its configuration names (Resolve).

// Builtins builds every builtin plugin, in registry order.
func Builtins(deps BuiltinDeps) []Plugin {
	deps = deps.withDefaults()
	reg := registry()
	out := make([]Plugin, len(reg))
	for i, b := range reg {
		out[i] = b.build(deps)
	}
	return out
}

// Secrets is the secrets builtin.
func Secrets() Plugin { return secretsPlugin(BuiltinDeps{}.withDefaults()) }

// Protect is the protect builtin with its state directory stateDir.
func Protect(stateDir string) Plugin {
	return protectPlugin(BuiltinDeps{StateDir: stateDir}.withDefaults())
}
