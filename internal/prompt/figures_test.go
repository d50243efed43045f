package prompt_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
)

var updateFigures = flag.Bool("update-figures", false, "rewrite the measured figures in docs/prompt-caching.md")

// figuresDoc is the doc whose figures TestPromptCachingFigures measures.
const figuresDoc = "docs/prompt-caching.md"

// TestPromptCachingFigures measures every figure docs/prompt-caching.md
// quotes about the wire (the default request's parts, and the cache hit
// ratios of the scripted sessions) and checks them against the doc's
// generated blocks, so that the doc cannot drift from the code. Figures
// are rounded (sizes to two significant digits, ratios to whole percents)
// so that an edit of a few bytes does not make the doc wrong.
//
//	go test ./internal/prompt -run PromptCachingFigures -update-figures
//
// rewrites the blocks after a change that moves them.
func TestPromptCachingFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the scripted sessions of the doc")
	}
	blocks := map[string]string{
		"sizes":     sizeFigures(t),
		"placement": placementFigures(t),
		"fanout":    fanOutFigures(t),
		"short":     shortFigures(t),
	}
	path := filepath.Join(repoRoot(t), figuresDoc)
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	for _, name := range []string{"sizes", "placement", "fanout", "short"} {
		re := figureBlock(name)
		found := re.FindStringSubmatch(text)
		if found == nil {
			t.Fatalf("%s has no block %q: put <!-- figures:%s --> and <!-- /figures --> around it", figuresDoc, name, name)
		}
		if found[1] == blocks[name] || (!*updateFigures && closeEnough(found[1], blocks[name])) {
			continue
		}
		if !*updateFigures {
			t.Errorf("%s: the %q figures moved; run\n\tgo test ./internal/prompt -run PromptCachingFigures -update-figures\nwant:\n%s\ngot:\n%s",
				figuresDoc, name, blocks[name], found[1])
			continue
		}
		text = strings.Replace(text, found[0], "<!-- figures:"+name+" -->\n"+blocks[name]+"<!-- /figures -->", 1)
	}
	if *updateFigures && text != string(doc) {
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
}

// figureNumber is a number as the blocks write them: "45", "2.1", "0.97".
var figureNumber = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?`)

// closeEnough reports whether got says what want, the doc's block, says:
// the same words, and every number within one unit of its last digit.
// The sessions run on this repository's own tree, whose overview moves
// with every file added, and a figure that moves by a point of rounding
// is not the doc going wrong.
func closeEnough(want, got string) bool {
	if figureNumber.ReplaceAllString(want, "#") != figureNumber.ReplaceAllString(got, "#") {
		return false
	}
	ws, gs := figureNumber.FindAllString(want, -1), figureNumber.FindAllString(got, -1)
	for i := range ws {
		w, err1 := strconv.ParseFloat(ws[i], 64)
		g, err2 := strconv.ParseFloat(gs[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		unit := 1.0
		if dot := strings.IndexByte(ws[i], '.'); dot >= 0 {
			unit = math.Pow(10, -float64(len(ws[i])-dot-1))
		}
		if math.Abs(w-g) > unit+1e-9 {
			return false
		}
	}
	return true
}

// figureBlock finds a generated block; group 1 is its content.
func figureBlock(name string) *regexp.Regexp {
	return regexp.MustCompile(`(?s)<!-- figures:` + name + ` -->\n(.*?)<!-- /figures -->`)
}

// kb writes a size in kilobytes (1,000 bytes) to two significant digits.
func kb(n int) string {
	k := float64(n) / 1000
	switch {
	case k >= 10:
		return fmt.Sprintf("%.0f KB", k)
	case k >= 1:
		return fmt.Sprintf("%.1f KB", k)
	}
	return fmt.Sprintf("%.2f KB", k)
}

func percent(r float64) string { return fmt.Sprintf("%.0f %%", 100*r) }

// sizeFigures measures the default request on this repository, split into
// its parts.
func sizeFigures(t *testing.T) string {
	srv := newCachingServer(t, taskSession(3, readFiles)...)
	a := openApp(t, srv.URL, "anthropic", repoRoot(t), nil)
	runTurn(t, a.Session, "go")
	calls := srv.upstream.ModelCalls()
	b0, b2 := decode(t, calls[0]), decode(t, calls[2])
	tools, _ := json.Marshal(b0["tools"])
	stable := b0.system()[0]["text"].(string)
	blocks := b2.lastBlocks()
	tail := blocks[len(blocks)-1]["text"].(string)
	catalogue, _ := skills.Load(skills.Sources{})
	enabled, _ := plugin.Resolve(a.Loaded.Settings.Plugins, plugin.BuiltinDeps{})
	appendices := 0
	for _, x := range plugin.NewHost(enabled...).Appendices() {
		appendices += len(x)
	}
	var out strings.Builder
	fmt.Fprintf(&out, "| part | size |\n|---|---|\n")
	fmt.Fprintf(&out, "| tool definitions (%d tools, as sent) | %s |\n", len(b0.toolNames()), kb(len(tools)))
	fmt.Fprintf(&out, "| stable system prompt | %s |\n", kb(len(stable)))
	fmt.Fprintf(&out, "| of which the workspace overview | %s |\n", kb(len(a.Workspace.Overview())))
	fmt.Fprintf(&out, "| of which the workflow policy | %s |\n", kb(len(a.Workspace.Policy())))
	fmt.Fprintf(&out, "| of which the skill catalogue | %s |\n", kb(len(catalogue.PromptSection())))
	fmt.Fprintf(&out, "| of which the plugin appendices | %s |\n", kb(appendices))
	fmt.Fprintf(&out, "| volatile tail with a two-item task list | %s |\n", kb(len(tail)))
	return out.String()
}

// placementFigures measures where the volatile part goes: a second system
// block against the tail after the last breakpoint, at 10 and 20 steps.
func placementFigures(t *testing.T) string {
	sys10, tail10 := measurePlacement(t, 10, agent.VolatileSystemBlock), measurePlacement(t, 10, agent.VolatileTail)
	sys20, tail20 := measurePlacement(t, 20, agent.VolatileSystemBlock), measurePlacement(t, 20, agent.VolatileTail)
	var out strings.Builder
	fmt.Fprintf(&out, "| placement | 10 steps, after the first request | 20 steps, after the first request |\n|---|---|---|\n")
	fmt.Fprintf(&out, "| second system block | %s read from cache | %s |\n", percent(sys10.ratio(1)), percent(sys20.ratio(1)))
	fmt.Fprintf(&out, "| tail after the last breakpoint (shipped) | **%s** | **%s** |\n", percent(tail10.ratio(1)), percent(tail20.ratio(1)))
	fmt.Fprintf(&out, "| best any breakpoint placement could do with the tail layout | %s | %s |\n", percent(tail10.idealRatio(1)), percent(tail20.idealRatio(1)))
	return out.String()
}

// fanOutFigures measures the lookback breakpoint on the two wide
// sessions of TestWideFanOutHitRatio.
func fanOutFigures(t *testing.T) string {
	var out strings.Builder
	fmt.Fprintf(&out, "| session | without the lookback breakpoint | with it | best possible |\n|---|---|---|---|\n")
	for _, c := range []struct {
		name string
		wide func(int) bool
	}{
		{"every step makes 12 parallel calls", func(int) bool { return true }},
		{"step 4 makes 12 parallel calls", func(step int) bool { return step == 4 }},
	} {
		with, without := fanOutMeasure(t, fanOutSession(10, c.wide))
		fmt.Fprintf(&out, "| %s | %s | **%s** | %s |\n", c.name, percent(without.ratio(1)), percent(with.ratio(1)), percent(with.idealRatio(1)))
	}
	return out.String()
}

// shortFigures measures the sessions of short steps at 10 and 20 steps.
func shortFigures(t *testing.T) string {
	var out strings.Builder
	fmt.Fprintf(&out, "| each step makes | 10 steps, after the first request | 20 steps | best possible (10, 20) |\n|---|---|---|---|\n")
	for _, c := range shortSteps {
		s10, s20 := measureShort(t, 10, c.call), measureShort(t, 20, c.call)
		fmt.Fprintf(&out, "| %s | **%s** | **%s** | %s, %s |\n", c.name, percent(s10.ratio(1)), percent(s20.ratio(1)), percent(s10.idealRatio(1)), percent(s20.idealRatio(1)))
	}
	return out.String()
}

// A figure one unit of its last digit away still matches; two units, other
// words, or a number more or less do not.
func TestCloseEnoughFigures(t *testing.T) {
	for _, c := range []struct {
		want, got string
		ok        bool
	}{
		{"| step 4 | 83 % | **87 %** |", "| step 4 | 84 % | **87 %** |", true},
		{"| overview | 2.0 KB |", "| overview | 2.1 KB |", true},
		{"| overview | 2.0 KB |", "| overview | 2.2 KB |", false},
		{"| step 4 | 83 % |", "| step 4 | 85 % |", false},
		{"| step 4 | 83 % |", "| step four | 83 % |", false},
		{"| 47 tools | 19 KB |", "| 47 tools | 19 KB | 3 |", false},
	} {
		if got := closeEnough(c.want, c.got); got != c.ok {
			t.Errorf("closeEnough(%q, %q) = %v, want %v", c.want, c.got, got, c.ok)
		}
	}
}
