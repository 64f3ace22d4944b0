package consolidate

import (
	"math"
	"strings"
	"testing"
	"time"

	"rhizome/backend/link"
)

// now is the time every test run takes as the present.
var now = time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC)

// daysAgo is the instant d days (fractional) before now.
func daysAgo(d float64) time.Time { return now.Add(-time.Duration(d * float64(day))) }

// TestRelevanceAutoMemValues checks the score against values computed by
// hand from AutoMem's code's formula (ERRATA.md lines 77-83). Worked
// example, the first row: decay = e^-0.1 = 0.904837; access = e^-0.15 =
// 0.860708, so 0.3 + 0.3*0.860708 = 0.558212; density = 1 + 0.3*ln 3 =
// 1.329584; (0.5 + 0.5) = 1; (0.7 + 0.3*0.8) = 0.94; the product is
// 0.904837 * 0.558212 * 1.329584 * 1 * 0.94 = 0.631268.
func TestRelevanceAutoMemValues(t *testing.T) {
	old := DefaultSettings()
	old.DecayRate = 0.1 // the spec's rate, which ERRATA replaced
	cases := []struct {
		name             string
		age, sinceAccess float64 // days; sinceAccess < 0: never accessed
		edges            int
		importance, conf float64
		settings         Settings
		want             float64
	}{
		{"10 days old, read 3 days ago, 2 edges", 10, 3, 2, 0.5, 0.8, DefaultSettings(), 0.6312676839449614},
		{"half a day old, never read: access counts in full", 0.5, -1, 0, 0.5, 0.5, DefaultSettings(), 0.507456364388268},
		{"400 days old: the importance floor 0.6*0.3", 400, 400, 0, 0.6, 0.5, DefaultSettings(), 0.18},
		{"capped at 1", 0, 0, 1000, 1, 1, DefaultSettings(), 1},
		{"the spec's rate 0.1 decays ten times faster", 10, 3, 2, 0.5, 0.8, old, 0.2566542874667391},
		{"60 days, one edge, low importance", 60, 60, 1, 0.2, 0.5, DefaultSettings(), 0.12422517189716388},
		{"read exactly a day ago: access decays", 2, 1, 0, 0.5, 0.5, DefaultSettings(), 0.48771108576923944},
		{"read 23.99 hours ago: access in full", 2, 23.99 / 24, 0, 0.5, 0.5, DefaultSettings(), 0.49990132338644516},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := Node{ID: link.Knowledge("k"), Kind: "Lesson", Importance: c.importance, Confidence: c.conf, CreatedAt: daysAgo(c.age)}
			if c.sinceAccess >= 0 {
				n.LastAccessed = daysAgo(c.sinceAccess)
			}
			got := Relevance(&n, c.edges, now, &c.settings)
			if math.Abs(got-c.want) > 1e-9 {
				t.Errorf("ERRATA AutoMem formula: relevance = %.12f, want %.12f", got, c.want)
			}
		})
	}
}

// TestRelevanceFutureTimes: a node created or read after the run's time
// (clock skew between machines) counts as new, not as a negative age.
func TestRelevanceFutureTimes(t *testing.T) {
	s := DefaultSettings()
	n := Node{Importance: 0.5, Confidence: 0.5, CreatedAt: now.Add(48 * time.Hour)}
	if got, want := Relevance(&n, 0, now, &s), 0.51; math.Abs(got-want) > 1e-12 {
		t.Errorf("relevance of a node from the future = %v, want %v (age 0)", got, want)
	}
}

func TestSettingsValidate(t *testing.T) {
	if err := DefaultSettings().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	cases := []struct {
		field string
		edit  func(*Settings)
	}{
		{"decayRate", func(s *Settings) { s.DecayRate = -0.01 }},
		{"decayRate", func(s *Settings) { s.DecayRate = math.NaN() }},
		{"archiveBelow", func(s *Settings) { s.ArchiveBelow = 1.5 }},
		{"deleteBelow", func(s *Settings) { s.DeleteBelow = 0.3 }},
		{"creativeSimilarity", func(s *Settings) { s.CreativeSimilarity = math.Inf(1) }},
		{"clusterMinPoints", func(s *Settings) { s.ClusterMinPoints = 1 }},
		{"creativeNeighbours", func(s *Settings) { s.CreativeNeighbours = 0 }},
		{"forgetEveryDays", func(s *Settings) { s.ForgetEveryDays = -1 }},
	}
	for _, c := range cases {
		s := DefaultSettings()
		c.edit(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), "setting "+c.field) {
			t.Errorf("bad %s: error %v, want one naming the setting", c.field, err)
		}
	}
}

func TestDue(t *testing.T) {
	s := DefaultSettings()
	h := time.Hour
	cases := []struct {
		name string
		last map[Cycle]time.Time
		want []Cycle
	}{
		{"never ran: all due", nil, []Cycle{Decay, Creative, Cluster, Forget}},
		{"all just ran: none", map[Cycle]time.Time{Decay: now.Add(-h), Creative: now.Add(-h), Cluster: now.Add(-h), Forget: now.Add(-h)}, nil},
		{"a day and a week", map[Cycle]time.Time{Decay: now.Add(-24 * h), Creative: now.Add(-7 * 24 * h), Cluster: now.Add(-29 * 24 * h), Forget: now.Add(-89 * 24 * h)}, []Cycle{Decay, Creative}},
		{"a month and a quarter", map[Cycle]time.Time{Decay: now.Add(-23 * h), Creative: now.Add(-6 * 24 * h), Cluster: now.Add(-30 * 24 * h), Forget: now.Add(-90 * 24 * h)}, []Cycle{Cluster, Forget}},
		{"clock went back", map[Cycle]time.Time{Decay: now.Add(h), Creative: now.Add(-h), Cluster: now.Add(-h), Forget: now.Add(-h)}, []Cycle{Decay}},
	}
	for _, c := range cases {
		got := Due(c.last, now, s)
		if strings.Join(cyclesStrings(got), ",") != strings.Join(cyclesStrings(c.want), ",") {
			t.Errorf("%s: due %v, want %v", c.name, got, c.want)
		}
	}
	off := DefaultSettings()
	off.ForgetEveryDays = 0
	if got := Due(nil, now, off); len(got) != 3 || got[2] != Cluster {
		t.Errorf("forget's schedule off: due %v, want decay, creative, cluster", got)
	}
	next := NextRun(map[Cycle]time.Time{Decay: now}, s)
	if !next[Decay].Equal(now.Add(24*h)) || !next[Forget].IsZero() {
		t.Errorf("next runs %v: want decay a day on, forget due now (zero)", next)
	}
}

func cyclesStrings(cs []Cycle) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	return out
}
