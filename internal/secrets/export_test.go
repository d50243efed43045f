package secrets

// IsEnvVar reports whether a variable is withheld by its name alone
// (ClassifyEnv with no value): the tests' shorthand.
func IsEnvVar(name string) bool { return ClassifyEnv(name, "") != EnvKept }
