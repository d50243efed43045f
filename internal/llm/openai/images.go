package openai

import (
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/shiro-neko/shiro/internal/llm"
)

// imageURL is an image as the data: URL both OpenAI wires take; an image
// whose bytes were never put back is an error, not an empty picture.
func imageURL(img llm.Image) (string, error) {
	if len(img.Data) == 0 {
		return "", fmt.Errorf("image %s has no bytes to send", img.SHA256)
	}
	return img.DataURL(), nil
}

// chatUserMessage is a user message of text and the message's image
// parts: plain text when there are no images (the form every
// OpenAI-compatible server takes), content parts when there are. Nil when
// there is nothing to send.
func chatUserMessage(text string, parts []llm.Part) (*openai.ChatCompletionMessageParamUnion, error) {
	var content []openai.ChatCompletionContentPartUnionParam
	for _, p := range parts {
		img, ok := p.(llm.Image)
		if !ok {
			continue
		}
		url, err := imageURL(img)
		if err != nil {
			return nil, err
		}
		content = append(content, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url}))
	}
	if len(content) == 0 {
		if text == "" {
			return nil, nil
		}
		msg := openai.UserMessage(text)
		return &msg, nil
	}
	if text != "" {
		content = append(content, openai.TextContentPart(text))
	}
	msg := openai.UserMessage(content)
	return &msg, nil
}

// toolImagesMessage carries the pictures tool results returned. Chat
// completions' tool messages take text only, so they follow the tool
// messages as a user message that names the call each came from; the
// model then reads them as it would have read them inside the result.
// Nil when no result has images.
func toolImagesMessage(parts []llm.Part) (*openai.ChatCompletionMessageParamUnion, error) {
	var content []openai.ChatCompletionContentPartUnionParam
	var names []string
	for _, part := range parts {
		r, ok := part.(llm.ToolResult)
		if !ok || len(r.Images) == 0 {
			continue
		}
		names = append(names, fmt.Sprintf("%s (%s)", r.CallID, r.Name))
		for _, img := range r.Images {
			url, err := imageURL(img)
			if err != nil {
				return nil, err
			}
			content = append(content, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: url}))
		}
	}
	if len(content) == 0 {
		return nil, nil
	}
	intro := openai.TextContentPart("The images returned by tool call " + strings.Join(names, ", ") + ":")
	msg := openai.UserMessage(append([]openai.ChatCompletionContentPartUnionParam{intro}, content...))
	return &msg, nil
}

// responsesUserItem is a user input message of text and the message's
// image parts; ok is false when there is nothing to send.
func responsesUserItem(text string, parts []llm.Part) (item responses.ResponseInputItemUnionParam, ok bool, err error) {
	var content responses.ResponseInputMessageContentListParam
	for _, p := range parts {
		img, isImage := p.(llm.Image)
		if !isImage {
			continue
		}
		url, err := imageURL(img)
		if err != nil {
			return item, false, err
		}
		content = append(content, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
			ImageURL: openai.String(url), Detail: responses.ResponseInputImageDetailAuto,
		}})
	}
	if len(content) == 0 {
		if text == "" {
			return item, false, nil
		}
		return responses.ResponseInputItemParamOfMessage(text, responses.EasyInputMessageRoleUser), true, nil
	}
	if text != "" {
		content = append(content, responses.ResponseInputContentParamOfInputText(text))
	}
	return responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser), true, nil
}

// functionCallOutput is a tool result as a function_call_output item:
// its text alone, or, with pictures, a list of the text and the images,
// which the Responses API takes in a function's output.
func functionCallOutput(r llm.ToolResult) (responses.ResponseInputItemUnionParam, error) {
	if len(r.Images) == 0 {
		out := responses.ResponseInputItemParamOfFunctionCallOutput(resultText(r))
		out.OfFunctionCallOutput.CallID = openai.String(r.CallID)
		return out, nil
	}
	var list responses.ResponseFunctionCallOutputItemListParam
	if text := resultText(r); text != "" {
		list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: text}})
	}
	for _, img := range r.Images {
		url, err := imageURL(img)
		if err != nil {
			return responses.ResponseInputItemUnionParam{}, err
		}
		list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
			ImageURL: openai.String(url), Detail: responses.ResponseInputImageContentDetailAuto,
		}})
	}
	return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
		CallID: openai.String(r.CallID),
		Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list},
	}}, nil
}
