package segment

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"rhizome/backend/claudecode"
	"rhizome/backend/codex"
	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
	"rhizome/backend/sessionformat"
)

// realOtherFiles lists the real Claude Code and Codex logs of the readers'
// testdata (made by the real programs) and the hand-made older ones.
func realOtherFiles(t *testing.T) map[string][]string {
	t.Helper()
	glob := func(pattern string) []string {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	cc := append(glob("../claudecode/testdata/claude-home/projects/*/*.jsonl"),
		glob("../claudecode/testdata/claude-home/projects/*/*/subagents/*.jsonl")...)
	cc = append(cc, glob("../claudecode/testdata/handmade/*.jsonl")...)
	cx := append(glob("../codex/testdata/codex-home/sessions/*/*/*/*.jsonl"),
		glob("../codex/testdata/codex-home/archived_sessions/*.jsonl")...)
	cx = append(cx, glob("../codex/testdata/handmade/*.jsonl")...)
	if len(cc) < 4 || len(cx) < 6 {
		t.Fatalf("real files missing: %v %v", cc, cx)
	}
	return map[string][]string{sessionformat.ClaudeCode: cc, sessionformat.Codex: cx}
}

func readOther(t *testing.T, format, path string) []session.Entry {
	t.Helper()
	switch format {
	case sessionformat.ClaudeCode:
		s, err := claudecode.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.Entries
	default:
		s, err := codex.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return s.Entries
	}
}

// Claude Code's forest and Codex's linear rollouts break pi's rule "a
// parent that is not the previous entry is a tree jump": metadata lines have
// no parent, parallel tool results hang off their own call, a compaction
// root's parent is in another file. With OptionsFor(format) only what the
// readers flag as a real branch starts one (Entry.Rewind; a Codex
// thread_rolled_back), so the real files get no false tree jumps, and every
// rewind the reader found is a branch boundary whose link comes from the
// segment of the entry the prompt was written under.
func TestOptionsForFormatBranchOnlyOnRewinds(t *testing.T) {
	for format, files := range realOtherFiles(t) {
		for _, path := range files {
			entries := readOther(t, format, path)
			opts := OptionsFor(format)
			segs := Split(entries, opts)
			checkSegmentsCoverEntries(t, segs, entries)
			links := Links(segs, entries)
			var rewinds, rollbacks []string
			for _, e := range entries {
				if e.Rewind {
					rewinds = append(rewinds, e.ID)
				}
				if len(e.RolledBackTurns) > 0 {
					rollbacks = append(rollbacks, e.ID)
				}
			}
			var branches []string
			for i, s := range segs {
				for _, b := range s.Boundaries {
					switch b.Type {
					case TreeJump:
						t.Errorf("%s: segment %d starts with a tree jump at %s: Claude Code and Codex files take branches from the reader's flags", filepath.Base(path), i, b.EntryID)
					case Branch:
						branches = append(branches, b.EntryID)
						if b.TargetEntryID == "" {
							t.Errorf("%s: branch at %s has no target", filepath.Base(path), b.EntryID)
						}
					}
				}
			}
			if want := append(slices.Clone(rewinds), rollbacks...); !sameSet(branches, want) {
				t.Errorf("%s: branches at %v, rewinds and rollbacks at %v", filepath.Base(path), branches, want)
			}
			for _, l := range links {
				if l.Type == EdgeBranch && l.From >= l.To {
					t.Errorf("%s: branch link %d -> %d", filepath.Base(path), l.From, l.To)
				}
			}
			// The same file read with pi's rule: the false tree jumps this
			// option exists for (at least in the real Claude Code session).
			if format == sessionformat.ClaudeCode && filepath.Base(path) == "5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41.jsonl" {
				jumps := 0
				for _, s := range Split(entries, DefaultOptions()) {
					for _, b := range s.Boundaries {
						if b.Type == TreeJump {
							jumps++
						}
					}
				}
				if jumps <= len(rewinds) || len(rewinds) == 0 {
					t.Errorf("pi's rule on the real Claude Code session: %d tree jumps for %d rewinds; the test no longer shows the artefacts", jumps, len(rewinds))
				}
			}
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// The hand-made Claude Code file keeps an older sub-agent inline: its
// isSidechain lines start a segment of their own (a subagent boundary and
// edge), and the conversation returning from it starts the next.
func TestSidechainRunIsASubagentSegment(t *testing.T) {
	entries := readOther(t, sessionformat.ClaudeCode, "../claudecode/testdata/handmade/older-format.jsonl")
	segs := Split(entries, OptionsFor(sessionformat.ClaudeCode))
	links := Links(segs, entries)
	found := false
	for i, s := range segs {
		if len(s.Boundaries) == 0 || s.Boundaries[0].Type != SubAgent {
			continue
		}
		first := entries[s.StartSeq]
		if first.Sidechain {
			found = true
			if links[i-1].Type != EdgeSubagent {
				t.Errorf("link into the sidechain segment %d is %s, want %s", i, links[i-1].Type, EdgeSubagent)
			}
			for _, e := range entries[s.StartSeq : s.EndSeq+1] {
				if !e.Sidechain {
					t.Errorf("segment %d holds line %d, not of the sidechain", i, e.Line)
				}
			}
		} else if links[i-1].Type != EdgeContinuation || links[i-1].Metadata["returned"] != true {
			t.Errorf("link out of the sidechain into segment %d: %+v", i, links[i-1])
		}
	}
	if !found {
		t.Fatal("no subagent segment for the inline sidechain lines")
	}
}

// A Builder resumed from the State of another (serialised as JSON, as the
// importer stores it between two imports of a growing file) goes on exactly
// as the uninterrupted one, at every cut of every real file of every
// format: the resumed one knows the entries before the cut only through the
// lookup (the library's entries), never through the state.
func TestBuilderResumeMatchesUninterrupted(t *testing.T) {
	all := map[string][]string{sessionformat.Pi: pitest.Samples()}
	for f, files := range realOtherFiles(t) {
		all[f] = files
	}
	for format, files := range all {
		for _, path := range files {
			var entries []session.Entry
			if format == sessionformat.Pi {
				s, err := pisession.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				entries = s.Entries
			} else {
				entries = readOther(t, format, path)
			}
			opts := OptionsFor(format)
			want := builderRun(t, entries, opts, -1)
			cuts := []int{0, 1, 2, len(entries) / 3, len(entries) / 2, len(entries) - 1, len(entries)}
			if len(entries) < 200 {
				cuts = cuts[:0]
				for k := 0; k <= len(entries); k++ {
					cuts = append(cuts, k)
				}
			}
			for _, k := range cuts {
				if k < 0 || k > len(entries) {
					continue
				}
				if got := builderRun(t, entries, opts, k); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s (%s) resumed after %d of %d entries:\n got %s\nwant %s", filepath.Base(path), format, k, len(entries), jsonOf(got), jsonOf(want))
				}
			}
		}
	}
}

// builderRun feeds entries to a Builder and returns the closed segments and
// links it reports (the last segment from Finish); cut >= 0 stops after
// cut entries, serialises the state and resumes in a new Builder.
func builderRun(t *testing.T, entries []session.Entry, opts Options, cut int) []any {
	t.Helper()
	b := NewBuilder(opts)
	segOf := map[string]int{}
	var out []any
	for i := range entries {
		if i == cut {
			raw, err := json.Marshal(b.State())
			if err != nil {
				t.Fatal(err)
			}
			var st BuilderState
			if err := json.Unmarshal(raw, &st); err != nil {
				t.Fatal(err)
			}
			known := maps(segOf)
			b = ResumeBuilder(opts, st, func(id string) (int, bool) { i, ok := known[id]; return i, ok })
		}
		step := b.Add(&entries[i])
		if entries[i].ID != "" {
			segOf[entries[i].ID] = step.Segment
		}
		if step.Closed != nil {
			out = append(out, *step.Closed)
		}
		if step.Link != nil {
			out = append(out, *step.Link)
		}
	}
	if cut == len(entries) {
		raw, _ := json.Marshal(b.State())
		var st BuilderState
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		known := maps(segOf)
		b = ResumeBuilder(opts, st, func(id string) (int, bool) { i, ok := known[id]; return i, ok })
	}
	if s := b.Finish(); s != nil {
		out = append(out, *s)
	}
	// Through JSON, as stored: times and metadata compare as stored.
	var norm []any
	if err := json.Unmarshal([]byte(jsonOf(out)), &norm); err != nil {
		t.Fatal(err)
	}
	return norm
}

func maps(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
