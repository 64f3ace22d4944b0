package app

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The use cases know nothing of how they are reached: the window binds them,
// `rhizome serve` (serve.go, beside main.go) serves an explicit list of them
// over HTTP. No file of package app imports net/http or reflect.
func TestAppImportsNoTransport(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "net/http" || p == "reflect" {
				t.Errorf("%s imports %s: the transport belongs beside main.go (serve.go)", f, p)
			}
		}
	}
}
