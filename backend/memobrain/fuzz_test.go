package memobrain

import (
	"bytes"
	"testing"
)

// FuzzReadSnapshot feeds arbitrary bytes to ReadSnapshot: it returns a
// snapshot or an error, never panics; a snapshot it accepts is written back
// equal to the input as JSON, is detected by LooksLikeSnapshot, and writing
// is stable.
func FuzzReadSnapshot(f *testing.F) {
	for _, name := range []string{"example_snapshot.json", "example_snapshot_bare.json", "variants/thought_forms.json", "variants/run_result.json"} {
		b := readFile(f, name)
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte(`{"nodes": {"1": {"node_id": 1, "kind": "task", "thought": "[{\"role\": \"a\", \"content\": \"b\"}]"}}, "edges": [{"src": "1", "dst": 1}]}`))
	f.Add([]byte(`{"memory": {"nodes": {" 1": {"node_id": 1, "kind": "", "thought": [], "active": "Flushed"}}, "edges": []}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadSnapshot(data)
		if err != nil {
			return
		}
		out, err := WriteSnapshot(s)
		if err != nil {
			t.Fatalf("an accepted snapshot does not write: %v", err)
		}
		if !jsonEqual(t, bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), out) {
			t.Fatalf("read and written, the snapshot changed:\n%s\n----\n%s", data, out)
		}
		if !LooksLikeSnapshot(data) {
			t.Fatalf("an accepted snapshot is not detected: %s", data)
		}
		again, err := ReadSnapshot(out)
		if err != nil {
			t.Fatalf("a written snapshot does not read: %v", err)
		}
		if out2, _ := WriteSnapshot(again); !bytes.Equal(out, out2) {
			t.Fatal("writing is not stable")
		}
		_ = PrettyPrint(s.Graph)
	})
}

// FuzzReadPatch feeds arbitrary bytes to the readers of the model's replies
// and applies what they accept to the example: never a panic; an applied
// operation is recorded so that replaying the log gives the same graph.
func FuzzReadPatch(f *testing.F) {
	for _, p := range examplePatches {
		f.Add([]byte(p))
	}
	f.Add([]byte(`{"add_nodes": [{"tmp_id": "1", "kind": "subtask", "thought": []}], "add_edges": [{"src": "Node 3", "dst": "1"}, {"src": 1, "dst": 9.0}]}`))
	f.Add([]byte(`{"flush_ops": [{"id": 6, "rationale": "x"}], "fold_ops": [{"ids": [4, 5], "rationale": null, "notes": [{"role": "Agent_X", "content": "\u00e9"}]}]}`))
	f.Add([]byte("```json\n{\"flush_ops\": [], \"fold_ops\": [{\"ids\": [1, 4], \"rationale\": \"\", \"notes\": []}]}\n```"))
	base := buildExample(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := base.clone()
		applied := false
		if p, err := ReadPatch(data); err == nil {
			if _, err := g.ApplyPatch(p, []int{16, 17}); err == nil {
				applied = true
			}
		}
		if ff, err := ReadFlushAndFold(data); err == nil {
			if _, err := g.ApplyFlushAndFold(ff); err == nil {
				applied = true
			}
		}
		if !applied {
			return
		}
		out, err := WriteSnapshot(NewSnapshot(g))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ReadSnapshot(out); err != nil {
			t.Fatalf("the graph after %s does not read back: %v", data, err)
		}
		r, err := Replay(g.Log(), len(g.Log().Steps))
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := WriteSnapshot(NewSnapshot(r)); !bytes.Equal(got, out) {
			t.Fatalf("replay differs after %s", data)
		}
		_ = PrettyPrint(g)
	})
}
