package agent

import (
	"fmt"

	"github.com/shiro-neko/shiro/internal/llm"
)

// userMessage is the person's message: the pictures first, then the
// words, the order in which vision models read a question about a
// picture best.
func userMessage(text string, images []llm.Image) llm.Message {
	if len(images) == 0 {
		return llm.UserText(text)
	}
	parts := make([]llm.Part, 0, len(images)+1)
	for _, img := range images {
		parts = append(parts, img)
	}
	return llm.Message{Role: llm.RoleUser, Parts: append(parts, llm.Text{Text: text})}
}

// seesImages asks the catalogue, through the config, whether model takes
// pictures.
func (s *session) seesImages(model string) bool {
	return s.cfg.SeesImages == nil || s.cfg.SeesImages(model)
}

// noVision is the error for a turn with pictures on a model without
// vision.
func noVision(model string, n int) string {
	what := "an image"
	if n > 1 {
		what = fmt.Sprintf("%d images", n)
	}
	return fmt.Sprintf("this message has %s, and the model catalogue says %s cannot read images: nothing was sent. "+
		"Switch to a model with vision (/model), or send the message without the pictures. "+
		"If the model does read images, say so with \"vision\": true under \"models\" in config.json.", what, model)
}

// toolImages are the pictures a tool returned, as the model gets them: all
// of them for a model with vision, none (and a line in the output saying
// why) for one without.
func (t *turn) toolImages(out string, images []llm.Image) (string, []llm.Image) {
	if len(images) == 0 || t.s.seesImages(t.model) {
		return out, images
	}
	return out + fmt.Sprintf("\n[%d image(s) not shown: the model catalogue says %s cannot read images.]", len(images), t.model), nil
}
