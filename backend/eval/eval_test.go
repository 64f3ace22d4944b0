package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"rhizome/backend/pisession"
	"rhizome/backend/session"
)

func readMini(t *testing.T) *Benchmark {
	t.Helper()
	f, err := os.Open("testdata/locomo-mini.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, dropped, err := ReadLoCoMo(f, "locomo-mini.json")
	if err != nil {
		t.Fatal(err)
	}
	if dropped != 1 {
		t.Errorf("dropped %d evidence ids, want 1 (D9:99)", dropped)
	}
	return b
}

func TestReadLoCoMo(t *testing.T) {
	b := readMini(t)
	if len(b.Conversations) != 2 || b.Sessions() != 4 || b.Turns() != 15 || len(b.Questions) != 9 {
		t.Fatalf("%d conversations, %d sessions, %d turns, %d questions; want 2, 4, 15, 9",
			len(b.Conversations), b.Sessions(), b.Turns(), len(b.Questions))
	}
	c := b.Conversations[0]
	if want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC); !c.Sessions[0].Time.Equal(want) {
		t.Errorf("session_1 at %v, want %v", c.Sessions[0].Time, want)
	}
	if got := c.Sessions[0].Turns[5].Text; !strings.HasSuffix(got, "[shares a photo: a painting of a sunrise over a lake]") {
		t.Errorf("an image turn's text is %q: want its caption appended", got)
	}
	if c.Sessions[0].Turns[0].Role != "user" || c.Sessions[0].Turns[1].Role != "assistant" {
		t.Errorf("roles %q, %q: speaker_a is the user", c.Sessions[0].Turns[0].Role, c.Sessions[0].Turns[1].Role)
	}
	byText := map[string]Question{}
	for _, q := range b.Questions {
		byText[q.Text] = q
	}
	multi := byText["What career is Caroline considering after the support group?"]
	if multi.Category != "multi-hop" || strings.Join(multi.Evidence, ",") != "D1:3,D1:5" || strings.Join(multi.EvidenceSessions, ",") != "session_1" {
		t.Errorf("\"D1:3; D1:5\" read as %+v", multi)
	}
	adv := byText["What did Melanie research?"]
	if adv.Category != "adversarial" || adv.Answer != "Adoption agencies" || len(adv.Evidence) != 0 {
		t.Errorf("an adversarial question read as %+v: want its adversarial_answer and no evidence to score", adv)
	}
	two := byText["What business did Jon start?"]
	if two.Conversation != 1 || strings.Join(two.EvidenceSessions, ",") != "session_1,session_2" {
		t.Errorf("a two-session question read as %+v", two)
	}
}

func TestReadErrorsNamePlace(t *testing.T) {
	cases := []struct {
		name, locomo, want string
	}{
		{"not a list", `{"a": 1}`, "top level"},
		{"bad category", `[{"sample_id": "s", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "hi"}]}, "qa": [{"question": "q", "answer": "a", "evidence": [], "category": 9}]}]`, "sample 0 (s), qa 0: category 9"},
		{"bad date", `[{"sample_id": "s", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1_date_time": "yesterday", "session_1": []}, "qa": []}]`, "session_1_date_time"},
		{"no speakers", `[{"sample_id": "s", "conversation": {"session_1": []}, "qa": []}]`, "speaker_a"},
		{"twice", `[{"sample_id": "s", "conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"speaker": "A", "dia_id": "D1:1", "text": "x"}, {"speaker": "B", "dia_id": "D1:1", "text": "y"}]}, "qa": []}]`, `dia_id "D1:1" twice`},
	}
	for _, c := range cases {
		_, _, err := ReadLoCoMo(strings.NewReader(c.locomo), "f.json")
		if err == nil || !strings.Contains(err.Error(), "f.json") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one naming f.json and %q", c.name, err, c.want)
		}
	}
	_, err := ReadLongMemEval(strings.NewReader(`[{"question_id": "q1", "haystack_session_ids": ["a"], "haystack_dates": [], "haystack_sessions": [[]]}]`), "l.json")
	if err == nil || !strings.Contains(err.Error(), "l.json: question 0 (q1)") || !strings.Contains(err.Error(), "differ in length") {
		t.Errorf("mismatched haystack: %v", err)
	}
	_, err = ReadLongMemEval(strings.NewReader(`[{"question_id": "q1", "haystack_session_ids": ["a"], "haystack_dates": ["2023/05/20 (Sat) 02:21"], "haystack_sessions": [[{"role": "system", "content": "x"}]]}]`), "l.json")
	if err == nil || !strings.Contains(err.Error(), `haystack_sessions[0][0].role "system"`) {
		t.Errorf("a system turn: %v", err)
	}
}

func TestReadLongMemEval(t *testing.T) {
	f, err := os.Open("testdata/longmemeval-mini.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := ReadLongMemEval(f, "longmemeval-mini.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Conversations) != 3 || len(b.Questions) != 3 || b.Turns() != 12 {
		t.Fatalf("%d conversations, %d questions, %d turns; want 3, 3, 12", len(b.Conversations), len(b.Questions), b.Turns())
	}
	q := b.Questions[0]
	if strings.Join(q.Evidence, ",") != "s-a#0" || strings.Join(q.EvidenceSessions, ",") != "s-a" || !q.Time.Equal(time.Date(2023, 5, 30, 23, 40, 0, 0, time.UTC)) {
		t.Errorf("question 0 read as %+v", q)
	}
	if abs := b.Questions[2]; len(abs.Evidence) != 0 || len(abs.EvidenceSessions) != 0 {
		t.Errorf("an abstention question has evidence %v, sessions %v: want none", abs.Evidence, abs.EvidenceSessions)
	}
}

// The written sessions read back with the pi reader the import uses: one
// message entry per turn, the speaker's name before the text, dated.
func TestWritePiSessionsReadBack(t *testing.T) {
	b := readMini(t)
	dir := t.TempDir()
	w, err := WritePiSessions(b, dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Files) != 4 || len(w.Turn) != 15 || len(w.Project) != 2 || w.Project[0] != "/eval/locomo/conv-mini-1" {
		t.Fatalf("wrote %d files, %d turns, projects %v", len(w.Files), len(w.Turn), w.Project)
	}
	f, err := os.Open(w.Files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := pisession.NewReader(bufio.NewReader(f), w.Files[0])
	hdr, err := rd.Header()
	if err != nil {
		t.Fatal(err)
	}
	if hdr.Cwd != w.Project[0] || w.Session[hdr.ID] != "session_1" {
		t.Errorf("header %+v", hdr)
	}
	var texts []string
	for {
		e, err := rd.Next()
		if err != nil {
			break
		}
		if w.Turn[TurnRef{Session: hdr.ID, Entry: e.ID}] == "" {
			t.Errorf("entry %s maps to no turn", e.ID)
		}
		texts = append(texts, session.EntryText(e))
	}
	if len(texts) != 6 || !strings.HasPrefix(texts[2], "Caroline: I went to an LGBTQ support group") {
		t.Errorf("read back %d entries: %q", len(texts), texts)
	}
	if problems := append(rd.Malformed(), rd.Warnings()...); len(problems) > 0 {
		t.Errorf("the reader found problems: %v", problems)
	}
}

func TestBM25RanksTheRareWordFirst(t *testing.T) {
	b := readMini(t)
	x := NewBM25(b.Conversations[0])
	got := x.Search("adoption agencies", 10)
	if len(got) == 0 || got[0] != "D2:2" {
		t.Errorf("bm25 for adoption agencies: %v, want D2:2 first", got)
	}
	if got := x.Search("zebra", 10); len(got) != 0 {
		t.Errorf("a word no turn holds found %v", got)
	}
}

func TestScore(t *testing.T) {
	b := readMini(t)
	search := map[int]Ranked{}
	for i, q := range b.Questions {
		// The evidence itself, first: recall 1 everywhere.
		search[i] = Ranked{Turns: q.Evidence, Sessions: q.EvidenceSessions, Latency: time.Duration(i+1) * time.Millisecond}
	}
	rep := Score(b, search, map[int]Ranked{}, LoCoMoCategories)
	last := rep.Rows[len(rep.Rows)-1]
	if last.Category != "overall" || last.Search.Questions != 8 || last.Search.TurnRecall[10] != 1 || last.Search.SessionAll != 1 || last.BM25.TurnRecall[10] != 0 {
		t.Errorf("overall %+v", last)
	}
	for _, r := range rep.Rows {
		if r.Category == "adversarial" {
			t.Errorf("adversarial questions have no evidence, yet a row: %+v", r)
		}
	}
	if rep.P50Millis != 5 || rep.P95Millis != 9 {
		t.Errorf("latency p50 %v, p95 %v; want 5 and 9 ms", rep.P50Millis, rep.P95Millis)
	}
	if got := Recall([]string{"a", "b"}, []string{"x", "a", "y"}, 2); got != 0.5 {
		t.Errorf("Recall = %v, want 0.5", got)
	}
}

// FuzzReaders: no input makes a reader panic; what reads, writes as pi
// sessions.
func FuzzReaders(f *testing.F) {
	for _, name := range []string{"testdata/locomo-mini.json", "testdata/longmemeval-mini.json"} {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"conversation": {"speaker_a": "A", "speaker_b": "B", "session_1": [{"dia_id": "D1:1"}]}, "qa": [{"evidence": ["D1:1; D1:1"], "category": 1}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		if b, _, err := ReadLoCoMo(bytes.NewReader(data), "f"); err == nil {
			if _, err := WritePiSessions(b, filepath.Join(dir, "l")); err != nil {
				t.Fatal(err)
			}
		}
		if b, err := ReadLongMemEval(bytes.NewReader(data), "f"); err == nil {
			if _, err := WritePiSessions(b, filepath.Join(dir, "m")); err != nil {
				t.Fatal(err)
			}
		}
		var v any
		_ = json.Unmarshal(data, &v)
	})
}
