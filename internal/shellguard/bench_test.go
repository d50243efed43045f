package shellguard

import "testing"

// typicalCommands are one-line commands an agent runs all the time.
var typicalCommands = []string{
	"go test ./... -x",
	"git status && git diff",
	"ls -la | grep foo",
	"npm run build 2>&1 | tail -20",
	"rg -n 'func main' --type go",
	`git commit -m "fix: handle empty input" && git push -u origin feature`,
}

func BenchmarkCheck(b *testing.B) {
	for _, src := range typicalCommands {
		b.Run(src, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if Check(src) != nil {
					b.Fatal("blocked")
				}
			}
		})
	}
}

func BenchmarkEffective(b *testing.B) {
	for _, src := range typicalCommands[:3] {
		b.Run(src, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Effective(src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckWorstCase is the slowest input of the hostile set at the
// size limit: a 240 KB pipeline with a download at its head.
func BenchmarkCheckWorstCase(b *testing.B) {
	src := hostileInputs()["long download pipe"]
	b.ReportAllocs()
	for b.Loop() {
		Check(src)
	}
}
