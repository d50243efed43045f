// Package workspace is the ground every tool stands on: the workspace
// root and the programs commands may use (Env), path resolution that
// cannot leave the root, the jail-safe reads and writes beneath it, the
// ignore rules that decide what a walk sees, the protected and secret
// files, and the environment a command is given.
package workspace
