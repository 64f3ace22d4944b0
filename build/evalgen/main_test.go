package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"rhizome/backend/eval"
)

// committed is where the generated files live in the repository.
const committed = "../../backend/eval/testdata"

// TestFilesAreCommitted regenerates the files into a temporary folder and
// checks they equal the committed ones byte for byte: the generator is
// deterministic, and the committed data is what it writes.
func TestFilesAreCommitted(t *testing.T) {
	dir := t.TempDir()
	files, err := writeFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("%d files, want 4", len(files))
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(committed, f.name))
		if err != nil {
			t.Fatalf("%v (run: go run ./build/evalgen -out backend/eval/testdata)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the committed file (%d vs %d bytes); regenerate with go run ./build/evalgen -out backend/eval/testdata",
				f.name, len(got), len(want))
		}
	}
}

var diaRE = regexp.MustCompile(`D\d+:\d+`)

// TestLoCoMoFiles checks the LoCoMo files' shape: dates, sessions, turns,
// categories, and that every evidence id names a turn of its
// conversation.
func TestLoCoMoFiles(t *testing.T) {
	speakers := map[string]string{}
	for _, name := range []string{"synthetic-locomo-tune.json", "synthetic-locomo-test.json"} {
		data := readCommitted(t, name)
		var samples []struct {
			SampleID     string                     `json:"sample_id"`
			Conversation map[string]json.RawMessage `json:"conversation"`
			QA           []map[string]any           `json:"qa"`
		}
		if err := json.Unmarshal(data, &samples); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(samples) != conversationsPerFile {
			t.Errorf("%s: %d conversations, want %d", name, len(samples), conversationsPerFile)
		}
		for _, s := range samples {
			var a, b string
			json.Unmarshal(s.Conversation["speaker_a"], &a)
			json.Unmarshal(s.Conversation["speaker_b"], &b)
			for _, p := range []string{a, b} {
				if other, ok := speakers[p]; ok && other != name {
					t.Errorf("%s: speaker %s is also in %s", name, p, other)
				}
				speakers[p] = name
			}
			turns := map[string]bool{}
			var last time.Time
			nSess, nTurns := 0, 0
			for n := 1; ; n++ {
				key := "session_" + itoa(n)
				raw, ok := s.Conversation[key]
				if !ok {
					break
				}
				nSess++
				var when string
				json.Unmarshal(s.Conversation[key+"_date_time"], &when)
				at, err := time.Parse("3:04 pm on 2 January, 2006", when)
				if err != nil {
					t.Errorf("%s %s %s_date_time %q: %v", name, s.SampleID, key, when, err)
				}
				if !at.After(last) {
					t.Errorf("%s %s %s: %s is not after the session before", name, s.SampleID, key, when)
				}
				last = at
				var ts []lcTurnJSON
				if err := json.Unmarshal(raw, &ts); err != nil {
					t.Fatalf("%s %s %s: %v", name, s.SampleID, key, err)
				}
				if len(ts) < 12 || len(ts) > 30 {
					t.Errorf("%s %s %s: %d turns, want 12-30", name, s.SampleID, key, len(ts))
				}
				for i, tr := range ts {
					if tr.DiaID != "D"+itoa(n)+":"+itoa(i+1) {
						t.Errorf("%s %s %s[%d]: dia_id %q", name, s.SampleID, key, i, tr.DiaID)
					}
					if tr.Speaker != a && tr.Speaker != b {
						t.Errorf("%s %s %s: speaker %q", name, s.SampleID, tr.DiaID, tr.Speaker)
					}
					if i > 0 && tr.Speaker == ts[i-1].Speaker {
						t.Errorf("%s %s %s: the same speaker twice in a row", name, s.SampleID, tr.DiaID)
					}
					if strings.ContainsAny(tr.Text, "{}") || strings.ContainsAny(tr.BlipCaption, "{}") || tr.Text == "" {
						t.Errorf("%s %s %s: unfilled text %q", name, s.SampleID, tr.DiaID, tr.Text)
					}
					if (tr.BlipCaption == "") != (len(tr.ImgURL) == 0) {
						t.Errorf("%s %s %s: img_url and blip_caption go together", name, s.SampleID, tr.DiaID)
					}
					turns[tr.DiaID] = true
				}
				nTurns += len(ts)
			}
			if nSess < 15 || nSess > 25 {
				t.Errorf("%s %s: %d sessions, want 15-25", name, s.SampleID, nSess)
			}
			if nTurns < 300 || nTurns > 560 {
				t.Errorf("%s %s: %d turns, want about 300-550", name, s.SampleID, nTurns)
			}
			if len(s.QA) < 120 || len(s.QA) > 200 {
				t.Errorf("%s %s: %d questions, want 120-200", name, s.SampleID, len(s.QA))
			}
			seen := map[string]bool{}
			for i, qa := range s.QA {
				cat, _ := qa["category"].(float64)
				if cat < 1 || cat > 5 || cat != float64(int(cat)) {
					t.Errorf("%s %s qa %d: category %v, want 1-5", name, s.SampleID, i, qa["category"])
				}
				q, _ := qa["question"].(string)
				if q == "" || strings.ContainsAny(q, "{}") || seen[q] {
					t.Errorf("%s %s qa %d: question %q empty, unfilled or asked twice", name, s.SampleID, i, q)
				}
				seen[q] = true
				_, hasAnswer := qa["answer"]
				_, hasAdv := qa["adversarial_answer"]
				if (cat == 5) != hasAdv || hasAnswer == hasAdv {
					t.Errorf("%s %s qa %d: category %v with answer %v, adversarial_answer %v", name, s.SampleID, i, cat, hasAnswer, hasAdv)
				}
				evs, _ := qa["evidence"].([]any)
				var ids []string
				for _, e := range evs {
					ids = append(ids, diaRE.FindAllString(e.(string), -1)...)
				}
				if cat != 5 && len(ids) == 0 {
					t.Errorf("%s %s qa %d (%q): no evidence", name, s.SampleID, i, q)
				}
				if cat == 1 && len(ids) < 2 {
					t.Errorf("%s %s qa %d (%q): multi-hop with %d evidence turns", name, s.SampleID, i, q, len(ids))
				}
				for _, id := range ids {
					if !turns[id] {
						t.Errorf("%s %s qa %d (%q): evidence %s names no turn", name, s.SampleID, i, q, id)
					}
				}
			}
		}
		// The reader the benchmark runner uses reads it whole.
		b, dropped, err := eval.ReadLoCoMo(bytes.NewReader(data), name)
		if err != nil {
			t.Fatal(err)
		}
		if dropped != 0 {
			t.Errorf("%s: the reader dropped %d evidence ids", name, dropped)
		}
		if len(b.Conversations) != conversationsPerFile {
			t.Errorf("%s: the reader found %d conversations", name, len(b.Conversations))
		}
	}
}

// TestLongMemEvalFiles checks the LongMemEval files' shape: dates, and
// that every turn marked has_answer is in an answer session.
func TestLongMemEvalFiles(t *testing.T) {
	const layout = "2006/01/02 (Mon) 15:04"
	questions := map[string]string{}
	for _, name := range []string{"synthetic-longmemeval-tune.json", "synthetic-longmemeval-test.json"} {
		data := readCommitted(t, name)
		if len(data) > 3<<20 {
			t.Errorf("%s: %d bytes, want under 3 MB", name, len(data))
		}
		var items []lmeItem
		if err := json.Unmarshal(data, &items); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(items) != questionsPerFile {
			t.Errorf("%s: %d questions, want %d", name, len(items), questionsPerFile)
		}
		for _, it := range items {
			place := name + " " + it.QuestionID
			if other, ok := questions[it.Question]; ok {
				t.Errorf("%s: question %q asked twice (also in %s)", place, it.Question, other)
			}
			questions[it.Question] = name
			if !slices.Contains(eval.LongMemEvalTypes, it.QuestionType) {
				t.Errorf("%s: question_type %q", place, it.QuestionType)
			}
			asked := parseDate(t, place, layout, it.QuestionDate)
			n := len(it.HaystackSessions)
			if n < 20 || n > 30 || len(it.HaystackSessionIDs) != n || len(it.HaystackDates) != n {
				t.Errorf("%s: %d sessions, %d ids, %d dates", place, n, len(it.HaystackSessionIDs), len(it.HaystackDates))
				continue
			}
			var last time.Time
			marked := 0
			for i, s := range it.HaystackSessions {
				at := parseDate(t, place, layout, it.HaystackDates[i])
				if at.Before(last) || !at.Before(asked) {
					t.Errorf("%s: haystack date %s out of order or not before the question", place, it.HaystackDates[i])
				}
				last = at
				if len(s) < 6 || len(s) > 14 {
					t.Errorf("%s: session %s has %d turns, want 6-14", place, it.HaystackSessionIDs[i], len(s))
				}
				for j, tr := range s {
					want := "user"
					if j%2 == 1 {
						want = "assistant"
					}
					if tr.Role != want || tr.Content == "" || strings.ContainsAny(tr.Content, "{}") {
						t.Errorf("%s: session %s turn %d: role %q, content %q", place, it.HaystackSessionIDs[i], j, tr.Role, tr.Content)
					}
					if tr.HasAnswer {
						marked++
						if !slices.Contains(it.AnswerSessionIDs, it.HaystackSessionIDs[i]) {
							t.Errorf("%s: turn %d of session %s has_answer, but the session is not an answer session", place, j, it.HaystackSessionIDs[i])
						}
					}
				}
			}
			for _, sid := range it.AnswerSessionIDs {
				if !slices.Contains(it.HaystackSessionIDs, sid) {
					t.Errorf("%s: answer session %s is not in the haystack", place, sid)
				}
			}
			abs := strings.HasSuffix(it.QuestionID, "_abs")
			if abs && marked > 0 {
				t.Errorf("%s: an abstention question with has_answer turns", place)
			}
			if !abs && marked < len(it.AnswerSessionIDs) {
				t.Errorf("%s: %d has_answer turns for %d answer sessions", place, marked, len(it.AnswerSessionIDs))
			}
		}
		if _, err := eval.ReadLongMemEval(bytes.NewReader(data), name); err != nil {
			t.Fatal(err)
		}
	}
}

// parseDate parses s with layout and checks it formats back the same (Go
// does not check the weekday).
func parseDate(t *testing.T, place, layout, s string) time.Time {
	t.Helper()
	at, err := time.Parse(layout, s)
	if err != nil {
		t.Errorf("%s: date %q: %v", place, s, err)
	} else if at.Format(layout) != s {
		t.Errorf("%s: date %q has the wrong weekday (%s)", place, s, at.Format(layout))
	}
	return at
}

func readCommitted(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(committed, name))
	if err != nil {
		t.Fatalf("%v (run: go run ./build/evalgen -out backend/eval/testdata)", err)
	}
	return data
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
