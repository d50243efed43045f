package llm

// SchemaInstruction tells a model whose protocol has no structured-output
// format how to shape its final answer. The tool calls before it are not
// affected: only the message that ends the turn must be the JSON value.
func SchemaInstruction(schema []byte) string {
	return "When you give your final answer (the message that ends your turn, after any tool calls), " +
		"it must be exactly one JSON value that validates against the JSON Schema below: no prose " +
		"around it and no code fence.\n\n" + string(schema)
}
