package files

import (
	"fmt"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// pictureFile is what readText finds in place of text: a picture, which
// read_file returns as an image and read_many_files only names.
type pictureFile struct {
	rel       string
	mediaType string
	size      int64
}

func (p *pictureFile) Error() string {
	return fmt.Sprintf("%s is a picture (%s), not text: read it alone with read_file to see it.", p.rel, p.mediaType)
}

// readPicture returns a picture to the model as an image, scaled down
// when it is larger than a model reads; the text says what it is, for
// the transcript and for a model that cannot see it.
func readPicture(env *workspace.Env, p *pictureFile) (tool.Result, error) {
	if p.size > picture.MaxFileBytes {
		return tool.Result{}, tool.Failf("%s is a picture of %d bytes: pictures over %d bytes are not read.", p.rel, p.size, picture.MaxFileBytes)
	}
	data, err := env.ReadFile(p.rel)
	if err != nil {
		return tool.Result{}, fmt.Errorf("read %s: %w", p.rel, err)
	}
	img, info, err := picture.Prepare(p.rel, data)
	if err != nil {
		return tool.Result{}, tool.Failf("%v", err)
	}
	return tool.Result{Output: fmt.Sprintf("%s: %s (the picture follows as an image)", p.rel, info), Images: []llm.Image{img}}, nil
}
