package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/tool"
)

// render turns a tool's result into the text the model reads, and says
// whether the server reported the call as failed. Tool results reach the
// model as text only (llm.ToolResult carries no image parts), so images
// and audio become a line saying what was left out; resource links and
// embedded resources are named with their URI. Structured content is
// added as JSON only when no text block came with it: servers are asked
// to put it in a text block too, and when they put something else there
// (a file's text rather than {"content": …}) that is what to read, and
// the JSON would only say it twice. The whole is capped like every
// tool's output.
func render(res *sdk.CallToolResult) (string, bool) {
	var parts []string
	hasText := false
	for _, c := range res.Content {
		if _, ok := c.(*sdk.TextContent); ok {
			hasText = true
		}
		if s := renderContent(c); s != "" {
			parts = append(parts, s)
		}
	}
	if res.StructuredContent != nil && !hasText {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, "structured content:\n"+string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if text == "" {
		text = "(the tool returned no content)"
	}
	return tool.Cap(text), res.IsError
}

func renderContent(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image %s, %s: not shown, since tool results reach the model as text only]", c.MIMEType, size(len(c.Data)))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio %s, %s: not shown, since tool results reach the model as text only]", c.MIMEType, size(len(c.Data)))
	case *sdk.ResourceLink:
		line := "[resource link " + c.URI
		if c.Name != "" && c.Name != c.URI {
			line += " (" + c.Name + ")"
		}
		if c.MIMEType != "" {
			line += ", " + c.MIMEType
		}
		line += "]"
		if c.Description != "" {
			line += " " + c.Description
		}
		return line
	case *sdk.EmbeddedResource:
		return renderResource(c.Resource)
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Sprintf("[content of type %T]", c)
	}
	return string(b)
}

// renderResource shows a resource's contents: text as it is, a blob as a
// line naming it.
func renderResource(r *sdk.ResourceContents) string {
	if r == nil {
		return ""
	}
	head := "[resource " + r.URI
	if r.MIMEType != "" {
		head += ", " + r.MIMEType
	}
	if r.Text != "" || r.Blob == nil {
		return head + "]\n" + r.Text
	}
	return head + fmt.Sprintf(", %s of binary data: not shown]", size(len(r.Blob)))
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
