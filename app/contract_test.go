package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"rhizome/backend/graph"
)

// The string unions the frontend's types narrow a field to (the ts_type tags
// that build/contract writes into models.ts) are exactly the values the Go
// side gives that field: the constants of the domain type, read from its
// package's source.
func TestTSUnionsAreTheGoValues(t *testing.T) {
	modes := constsOfType(t, "../backend/loom", "Mode")
	authors := constsOfType(t, "../backend/loom", "AuthorType")
	views := constsOfType(t, "../backend/authorship", "View")
	ops := constsOfType(t, "../backend/authorship", "Op")
	changes := constsOfType(t, "../backend/graph", "ChangeType")
	statuses := constsNamed(t, "ingest", "Status")
	itemKinds := constsOfType(t, "../backend/link", "Kind")
	makers := constsOfType(t, "../backend/link", "CreatedBy")
	vocabularies := constsNamed(t, "../backend/link", "Vocabulary")
	hitKinds := constsNamed(t, "../store", "Hit")
	marks := constsNamed(t, "../store", "Mark")
	openViews := constsNamed(t, ".", "view")
	kinds := constsOfType(t, "../backend/summary", "Kind")
	queued := constsNamed(t, "../store", "Queue")
	formats := constsNamed(t, "ingest", "format")
	for _, c := range []struct {
		v     any
		field string
		want  []string
	}{
		{FileReport{}, "Status", statuses},
		{SessionSummary{}, "Format", formats},
		{WatchedFolder{}, "Agent", append([]string{""}, formats...)},
		{LoomTreeInfo{}, "Mode", modes},
		{LoomTreeSpec{}, "Mode", modes},
		{LoomPathView{}, "Mode", modes},
		{LoomPathView{}, "View", views},
		{LoomNode{}, "AuthorType", authors},
		{LoomVersion{}, "AuthorType", authors},
		{AuthorshipRun{}, "Author", authors},
		{DiffOp{}, "Op", ops},
		{graph.FieldChange{}, "Type", changes},
		{ItemView{}, "Kind", itemKinds},
		{LinkView{}, "CreatedBy", makers},
		{RelationView{}, "Vocabulary", vocabularies},
		{SearchHit{}, "Kind", hitKinds},
		{NoteView{}, "Marks", marks},
		{OpenTarget{}, "View", openViews},
		{SummaryView{}, "Kind", kinds},
		{SummaryView{}, "Queued", queued},
	} {
		typ := reflect.TypeOf(c.v)
		f, ok := typ.FieldByName(c.field)
		if !ok {
			t.Errorf("%s has no field %s", typ, c.field)
			continue
		}
		got := union(f.Tag.Get("ts_type"))
		if len(c.want) < 2 || !slices.Equal(got, c.want) {
			t.Errorf("%s.%s: ts_type union %q, want the Go values %q", typ, c.field, got, c.want)
		}
	}
}

// union lists the string literals of a TypeScript union such as
// "'a' | 'b'", sorted.
func union(ts string) []string {
	var vals []string
	for _, m := range regexp.MustCompile(`'([^']*)'`).FindAllStringSubmatch(ts, -1) {
		vals = append(vals, m[1])
	}
	slices.Sort(vals)
	return vals
}

// constsOfType lists, sorted, the string constants declared with type typ
// in the package in dir.
func constsOfType(t *testing.T, dir, typ string) []string {
	return stringConsts(t, dir, func(name string, vs *ast.ValueSpec) bool {
		id, ok := vs.Type.(*ast.Ident)
		return ok && id.Name == typ
	})
}

// constsNamed lists, sorted, the string constants of the package in dir
// whose names start with prefix.
func constsNamed(t *testing.T, dir, prefix string) []string {
	return stringConsts(t, dir, func(name string, _ *ast.ValueSpec) bool {
		return strings.HasPrefix(name, prefix)
	})
}

func stringConsts(t *testing.T, dir string, keep func(string, *ast.ValueSpec) bool) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var vals []string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, s := range gd.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) || !keep(n.Name, vs) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						v, _ := strconv.Unquote(lit.Value)
						vals = append(vals, v)
					}
				}
			}
		}
	}
	slices.Sort(vals)
	return vals
}
