package loom

import (
	"os"
	"testing"
)

// FuzzImport feeds arbitrary bytes to both tree importers: they must return
// a tree or an error, never panic, and a tree they return must verify and
// export.
func FuzzImport(f *testing.F) {
	for _, name := range []string{"testdata/socketteer-lighthouse.json", "testdata/socketteer-lighthouse.rhizome.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`{"root":{"id":"1","text":"a","children":[{"id":"1","text":"b","children":[]}]}}`))
	f.Add([]byte(`[{"text":"x","children":null}]`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if tr, err := Import(data, memBlobs{}); err == nil {
			VerifyTree(tr)
			if _, err := tr.Export(memBlobs{}); err != nil {
				t.Errorf("an imported tree does not export: %v", err)
			}
		}
		imp, err := ImportSocketteer(data, SocketteerOptions{GroveID: grove, Human: human, Now: testClock(), NewID: testIDs()})
		if err == nil {
			if got := VerifyTree(imp.Tree); got != nil {
				t.Errorf("a freshly imported socketteer tree does not verify: %+v", got)
			}
		}
	})
}
