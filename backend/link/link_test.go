package link

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

var now = time.Date(2025, 12, 24, 11, 6, 53, 530_123_456, time.FixedZone("CET", 3600))

func TestNew(t *testing.T) {
	l, err := New(LoomNode(treeID, loomNode), Node(nodeID), DerivedFrom, "  started from *this* message \n", ByUser, now)
	if err != nil {
		t.Fatal(err)
	}
	id, err := ulid.ParseStrict(l.ID)
	if err != nil {
		t.Fatalf("id %q is not a ULID: %v", l.ID, err)
	}
	if got := ulid.Time(id.Time()); !got.Equal(now.Truncate(time.Millisecond)) {
		t.Errorf("ULID time = %v, want the creation time %v", got, now)
	}
	if l.CreatedAt.Location() != time.UTC || l.CreatedAt.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("createdAt = %v, want UTC at millisecond precision", l.CreatedAt)
	}
	if l.Note != "started from *this* message" {
		t.Errorf("note = %q, want it trimmed", l.Note)
	}

	// Links made in the same millisecond still get distinct, ordered ids.
	prev := l.ID
	for range 1000 {
		m, err := New(Session(sessionID), Project("/srv/app"), PartOf, "", ByOffline, now)
		if err != nil {
			t.Fatal(err)
		}
		if m.ID <= prev {
			t.Fatalf("id %s after %s: not increasing within one millisecond", m.ID, prev)
		}
		prev = m.ID
	}
}

func TestLinkJSON(t *testing.T) {
	l, err := New(Entry(sessionID, entryID), URL("https://github.com/badlogic/pi-mono/issues/288"), References, "the issue", ByUser, now)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"source":"rhizome:entry/` + sessionID + `/` + entryID + `"`,
		`"target":"https://github.com/badlogic/pi-mono/issues/288"`,
		`"type":"REFERENCES"`, `"createdBy":"user"`, `"createdAt":"2025-12-24T10:06:53.53Z"`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("json %s lacks %s", b, want)
		}
	}
	var back Link
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Source != l.Source || back.Target != l.Target || back.ID != l.ID || !back.CreatedAt.Equal(l.CreatedAt) {
		t.Errorf("round trip: %+v, want %+v", back, l)
	}
	if err := back.Validate(); err != nil {
		t.Errorf("round-tripped link invalid: %v", err)
	}
}

func TestLinkValidate(t *testing.T) {
	good := func() Link {
		l, err := New(Node(nodeID), Node("0123456789abcdef"), LeadsTo, "", ByModel, now)
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	for _, tc := range []struct {
		name   string
		change func(*Link)
		want   string
	}{
		{"id", func(l *Link) { l.ID = "not-a-ulid" }, "field id"},
		{"lowercase id", func(l *Link) { l.ID = strings.ToLower(l.ID) + "!" }, "field id"},
		{"source", func(l *Link) { l.Source = Session("") }, "field source: link: session item: field id is empty"},
		{"external source", func(l *Link) { l.Source = URL("https://example.com/") }, "outside the library"},
		{"target", func(l *Link) { l.Target = File("rel/x") }, "field target"},
		{"self", func(l *Link) { l.Target = l.Source }, "the same item"},
		{"type", func(l *Link) { l.Type = "LIKES" }, `field type: unknown relation "LIKES"`},
		{"lowercase type", func(l *Link) { l.Type = "leads_to" }, "field type"},
		{"note size", func(l *Link) { l.Note = strings.Repeat("x", MaxNoteBytes+1) }, "field note: the note is 65537 bytes"},
		{"note utf8", func(l *Link) { l.Note = "a\xffb" }, "not valid UTF-8"},
		{"note NUL", func(l *Link) { l.Note = "a\x00b" }, "NUL"},
		{"maker", func(l *Link) { l.CreatedBy = "robot" }, `field createdBy: "robot"`},
		{"time", func(l *Link) { l.CreatedAt = time.Time{} }, "field createdAt"},
	} {
		l := good()
		tc.change(&l)
		err := l.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	// A note holding script is valid here: sanitising is the renderer's.
	l := good()
	l.Note = "<script>alert(1)</script>"
	if err := l.Validate(); err != nil {
		t.Errorf("markdown note with HTML: %v", err)
	}
	for _, by := range []CreatedBy{ByUser, ByModel, ByOffline, ByBoundary, ByConsolidation} {
		l.CreatedBy = by
		if err := l.Validate(); err != nil {
			t.Errorf("createdBy %q: %v", by, err)
		}
	}
}

func TestRelations(t *testing.T) {
	// The AutoMem and ccmemory lists, and the two relations the specs
	// use besides (automem-features.md "Cycles", context-graph-dag.md).
	want := map[Relation]string{
		"RELATES_TO": VocabularyAutoMem, "LEADS_TO": VocabularyAutoMem, "OCCURRED_BEFORE": VocabularyAutoMem,
		"PREFERS_OVER": VocabularyAutoMem, "EXEMPLIFIES": VocabularyAutoMem, "CONTRADICTS": VocabularyAutoMem,
		"REINFORCES": VocabularyAutoMem, "INVALIDATED_BY": VocabularyAutoMem, "EVOLVED_INTO": VocabularyAutoMem,
		"DERIVED_FROM": VocabularyAutoMem, "PART_OF": VocabularyAutoMem, "SHARES_THEME": VocabularyAutoMem,
		"SUPERSEDES": VocabularyCCMemory, "CONSTRAINS": VocabularyCCMemory, "DEPENDS_ON": VocabularyCCMemory,
		"CONFLICTS_WITH": VocabularyCCMemory, "IMPACTS": VocabularyCCMemory, "INFORMS": VocabularyCCMemory,
		"CITES": VocabularyCCMemory, "SIMILAR_TO": VocabularyCCMemory, "REFERENCES": VocabularyCCMemory,
	}
	rs := Relations()
	if len(rs) != len(want) {
		t.Errorf("%d relations, want %d", len(rs), len(want))
	}
	labels := map[string]Relation{}
	for _, r := range rs {
		if want[r.Type] != r.Vocabulary {
			t.Errorf("%s: vocabulary %q, want %q", r.Type, r.Vocabulary, want[r.Type])
		}
		if r.Description == "" || !strings.HasSuffix(r.Description, ".") || r.Label == "" || r.Inverse == "" {
			t.Errorf("%s: description, label and inverse must be set: %+v", r.Type, r)
		}
		if !r.Directed && r.Label != r.Inverse {
			t.Errorf("%s is symmetric but reads %q one way and %q back", r.Type, r.Label, r.Inverse)
		}
		if r.Directed && r.Label == r.Inverse {
			t.Errorf("%s is directed but its backlink reads the same (%q)", r.Type, r.Label)
		}
		if other, ok := labels[r.Label]; ok {
			t.Errorf("%s and %s share the label %q", r.Type, other, r.Label)
		}
		labels[r.Label] = r.Type
		if got, ok := Lookup(r.Type); !ok || got != r {
			t.Errorf("Lookup(%s) = %+v, %v", r.Type, got, ok)
		}
	}
	if r, _ := Lookup(LeadsTo); r.Label != "led to" || r.Inverse != "came from" {
		t.Errorf("LEADS_TO reads %q / %q, want \"led to\" / \"came from\"", r.Label, r.Inverse)
	}
	rs[0].Label = "changed"
	if r, _ := Lookup(rs[0].Type); r.Label == "changed" {
		t.Error("Relations returned the vocabulary itself, not a copy")
	}
}

func TestParseRelation(t *testing.T) {
	for in, want := range map[string]Relation{
		"LEADS_TO": LeadsTo, "leads to": LeadsTo, "Leads-To": LeadsTo, " derived_from ": DerivedFrom,
		"similar to": SimilarTo, "part of": PartOf,
	} {
		got, err := ParseRelation(in)
		if err != nil || got != want {
			t.Errorf("ParseRelation(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseRelation("likes")
	if err == nil || !strings.Contains(err.Error(), `unknown relation "likes"`) || !strings.Contains(err.Error(), "REFERENCES") {
		t.Errorf("ParseRelation(likes) = %v, want an error listing the vocabulary", err)
	}
	if !LeadsTo.Directed() || SimilarTo.Directed() || Relation("X").Directed() {
		t.Error("Directed: LEADS_TO reads one way, SIMILAR_TO both, unknown relations neither")
	}
}
