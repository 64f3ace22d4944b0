package consolidate

import (
	"fmt"
	"math"
	"slices"
	"time"
)

// Settings are the rates, thresholds and intervals of relevance and the
// four cycles. DefaultSettings gives AutoMem's code's values (ERRATA.md,
// "AutoMem (relevance and consolidation)", lines 77-83) and, where ERRATA
// says nothing, the values of AutoMem's consolidation.py that they come
// with (named on each field). Days are 86,400-second days.
type Settings struct {
	// DecayRate is the age decay per day: decay = exp(-DecayRate * age
	// days). ERRATA: 0.01 (the spec's 0.1 archived 84% of real memories
	// within ~30 days).
	DecayRate float64 `json:"decayRate"`
	// AccessDecayRate is the access-recency decay per day: access = 1 when
	// the last access is under AccessFreshDays old, else exp(-AccessDecayRate
	// * days since access). ERRATA: 0.05.
	AccessDecayRate float64 `json:"accessDecayRate"`
	// AccessFreshDays is how long an access counts in full. ERRATA: 1.
	AccessFreshDays float64 `json:"accessFreshDays"`
	// RelationshipWeight scales relationship density: density = 1 +
	// RelationshipWeight * ln(1 + edges). ERRATA: 0.3.
	RelationshipWeight float64 `json:"relationshipWeight"`
	// ImportanceFloor makes importance * ImportanceFloor the lowest score a
	// node can decay to. ERRATA: 0.3 ("clamped to [importance * 0.3, 1]").
	ImportanceFloor float64 `json:"importanceFloor"`

	// ArchiveBelow archives a node whose relevance is under it. 0.2
	// (automem-features.md, "Relevance Scoring"; consolidation.py).
	ArchiveBelow float64 `json:"archiveBelow"`
	// DeleteBelow deletes a node whose relevance is under it, when
	// DeleteEnabled. 0.05 (the spec; consolidation.py).
	DeleteBelow float64 `json:"deleteBelow"`
	// DeleteEnabled turns deleting on (the spec: "optional, configurable").
	// Off by default: such nodes are archived instead.
	DeleteEnabled bool `json:"deleteEnabled"`
	// ProtectImportance protects a node whose importance is at least this
	// much. ERRATA: 0.7.
	ProtectImportance float64 `json:"protectImportance"`
	// ProtectYoungerThanDays protects a node younger than this. ERRATA: 90.
	ProtectYoungerThanDays float64 `json:"protectYoungerThanDays"`
	// ProtectedKinds are never forgotten. ERRATA: decisions and insights.
	ProtectedKinds []string `json:"protectedKinds"`

	// CreativeSimilarity links two unconnected nodes whose cosine similarity
	// is above it. 0.75 (the spec, issue 10 section 3).
	CreativeSimilarity float64 `json:"creativeSimilarity"`
	// CreativeMinRelevance is the relevance a node needs to take part in the
	// creative cycle. 0.3 (the spec: "Sample random nodes with relevance >
	// 0.3"; consolidation.py's sample query).
	CreativeMinRelevance float64 `json:"creativeMinRelevance"`
	// CreativeNeighbours is how many nearest neighbours of each node the
	// creative cycle considers. 10.
	CreativeNeighbours int `json:"creativeNeighbours"`
	// CreativeLinksPerNode bounds the edges one run adds to one node. 3.
	CreativeLinksPerNode int `json:"creativeLinksPerNode"`
	// CreativeMaxEdges bounds the edges one run adds, the most similar pairs
	// first; 0 means no bound. 1000 (AutoMem samples 30 nodes a run; the
	// bound keeps a weekly run readable in its log).
	CreativeMaxEdges int `json:"creativeMaxEdges"`

	// ClusterSimilarity is the density radius, as a cosine similarity: two
	// nodes are neighbours when their similarity is above it. 0.75
	// (consolidation.py's similarity_threshold).
	ClusterSimilarity float64 `json:"clusterSimilarity"`
	// ClusterMinRelevance is the relevance a node needs to be clustered. 0.3
	// (consolidation.py clusters memories with relevance_score > 0.3).
	ClusterMinRelevance float64 `json:"clusterMinRelevance"`
	// ClusterNeighbours is how many nearest neighbours of each node the
	// cluster cycle considers. 16.
	ClusterNeighbours int `json:"clusterNeighbours"`
	// ClusterMinPoints is DBSCAN's minPts: a node with at least this many
	// nodes (itself included) within the radius is a core node. 3
	// (consolidation.py's min_cluster_size).
	ClusterMinPoints int `json:"clusterMinPoints"`
	// ClusterMinSize is the smallest cluster that gets a MetaPattern. 5
	// (consolidation.py makes a meta-memory for clusters of 5 or more).
	ClusterMinSize int `json:"clusterMinSize"`

	// Intervals between scheduled runs of each cycle, in days; 0 disables
	// the schedule (the cycle still runs on demand). 1, 7, 30, 90 (the spec;
	// consolidation.py's ConsolidationScheduler).
	DecayEveryDays    float64 `json:"decayEveryDays"`
	CreativeEveryDays float64 `json:"creativeEveryDays"`
	ClusterEveryDays  float64 `json:"clusterEveryDays"`
	ForgetEveryDays   float64 `json:"forgetEveryDays"`
}

// DefaultSettings returns AutoMem's rates and thresholds (see Settings).
func DefaultSettings() Settings {
	return Settings{
		DecayRate:          0.01,
		AccessDecayRate:    0.05,
		AccessFreshDays:    1,
		RelationshipWeight: 0.3,
		ImportanceFloor:    0.3,

		ArchiveBelow:           0.2,
		DeleteBelow:            0.05,
		ProtectImportance:      0.7,
		ProtectYoungerThanDays: 90,
		ProtectedKinds:         []string{KindDecision, KindInsight},

		CreativeSimilarity:   0.75,
		CreativeMinRelevance: 0.3,
		CreativeNeighbours:   10,
		CreativeLinksPerNode: 3,
		CreativeMaxEdges:     1000,

		ClusterSimilarity:   0.75,
		ClusterMinRelevance: 0.3,
		ClusterNeighbours:   16,
		ClusterMinPoints:    3,
		ClusterMinSize:      5,

		DecayEveryDays:    1,
		CreativeEveryDays: 7,
		ClusterEveryDays:  30,
		ForgetEveryDays:   90,
	}
}

// Validate reports the first setting out of range, by its JSON name: a
// negative or non-finite rate, day count or interval; a threshold,
// similarity or weight outside [0, 1]; DeleteBelow above ArchiveBelow; a
// neighbour count under 1; ClusterMinPoints under 2 or ClusterMinSize under
// 2; a negative edge bound.
func (s Settings) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"decayRate", s.DecayRate}, {"accessDecayRate", s.AccessDecayRate},
		{"accessFreshDays", s.AccessFreshDays}, {"relationshipWeight", s.RelationshipWeight},
		{"protectYoungerThanDays", s.ProtectYoungerThanDays},
		{"decayEveryDays", s.DecayEveryDays}, {"creativeEveryDays", s.CreativeEveryDays},
		{"clusterEveryDays", s.ClusterEveryDays}, {"forgetEveryDays", s.ForgetEveryDays},
	} {
		if !(f.v >= 0 && !math.IsInf(f.v, 0)) {
			return fmt.Errorf("consolidate: setting %s: %v, want a finite number >= 0", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"importanceFloor", s.ImportanceFloor}, {"archiveBelow", s.ArchiveBelow},
		{"deleteBelow", s.DeleteBelow}, {"protectImportance", s.ProtectImportance},
		{"creativeSimilarity", s.CreativeSimilarity}, {"creativeMinRelevance", s.CreativeMinRelevance},
		{"clusterSimilarity", s.ClusterSimilarity}, {"clusterMinRelevance", s.ClusterMinRelevance},
	} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("consolidate: setting %s: %v is outside [0, 1]", f.name, f.v)
		}
	}
	if s.DeleteBelow > s.ArchiveBelow {
		return fmt.Errorf("consolidate: setting deleteBelow: %v is above archiveBelow %v", s.DeleteBelow, s.ArchiveBelow)
	}
	for _, f := range []struct {
		name string
		v    int
		min  int
	}{
		{"creativeNeighbours", s.CreativeNeighbours, 1}, {"creativeLinksPerNode", s.CreativeLinksPerNode, 1},
		{"creativeMaxEdges", s.CreativeMaxEdges, 0}, {"clusterNeighbours", s.ClusterNeighbours, 1},
		{"clusterMinPoints", s.ClusterMinPoints, 2}, {"clusterMinSize", s.ClusterMinSize, 2},
	} {
		if f.v < f.min {
			return fmt.Errorf("consolidate: setting %s: %d, want at least %d", f.name, f.v, f.min)
		}
		if f.v > maxCount && f.name != "creativeMaxEdges" {
			return fmt.Errorf("consolidate: setting %s: %d, want at most %d", f.name, f.v, maxCount)
		}
	}
	return nil
}

// maxCount bounds the neighbour, link and point counts of Settings.
const maxCount = 1000

// day is the length of a day in the formula.
const day = 24 * time.Hour

// days is d in days, fractional.
func days(d time.Duration) float64 { return d.Seconds() / day.Seconds() }

// Relevance is a node's relevance score at time now, with edges the number
// of edges that touch it, by AutoMem's code's formula (ERRATA.md lines
// 77-83, "AutoMem (relevance and consolidation)"):
//
//	decay   = exp(-DecayRate * age_days)                  (age from CreatedAt, >= 0)
//	access  = 1 if days_since_access < AccessFreshDays     (LastAccessed, or CreatedAt
//	          else exp(-AccessDecayRate * days_since_access)  when never accessed)
//	density = 1 + RelationshipWeight * ln(1 + edges)
//	score   = decay * (0.3 + 0.3*access) * density * (0.5 + importance) * (0.7 + 0.3*confidence)
//
// clamped to [importance * ImportanceFloor, 1]. Ages are fractional days;
// times after now count as now.
func Relevance(n *Node, edges int, now time.Time, s *Settings) float64 {
	age := math.Max(0, days(now.Sub(n.CreatedAt)))
	decay := math.Exp(-s.DecayRate * age)
	last := n.LastAccessed
	if last.IsZero() {
		last = n.CreatedAt
	}
	since := math.Max(0, days(now.Sub(last)))
	access := 1.0
	if since >= s.AccessFreshDays {
		access = math.Exp(-s.AccessDecayRate * since)
	}
	density := 1 + s.RelationshipWeight*math.Log1p(float64(max(edges, 0)))
	score := decay * (0.3 + 0.3*access) * density * (0.5 + n.Importance) * (0.7 + 0.3*n.Confidence)
	return math.Min(1, math.Max(score, n.Importance*s.ImportanceFloor))
}

// Protection is a reason a node is never forgotten.
type Protection string

// The protections of issue 10, section 3, and ERRATA.md line 82.
const (
	ProtectedImportance Protection = "importance" // importance >= ProtectImportance
	ProtectedYoung      Protection = "young"      // younger than ProtectYoungerThanDays
	ProtectedKind       Protection = "kind"       // a kind in ProtectedKinds (decisions, insights)
	ProtectedTouched    Protection = "touched"    // a person touched it (TouchedByPerson, or an edge a person made)
)

// Protections lists why node n may not be forgotten at time now, in the
// order above; empty when it may. touched says whether a person touched it
// (its TouchedByPerson flag or an edge made by a person).
func Protections(n *Node, touched bool, now time.Time, s *Settings) []Protection {
	var p []Protection
	if n.Importance >= s.ProtectImportance {
		p = append(p, ProtectedImportance)
	}
	if days(now.Sub(n.CreatedAt)) < s.ProtectYoungerThanDays {
		p = append(p, ProtectedYoung)
	}
	if slices.Contains(s.ProtectedKinds, n.Kind) {
		p = append(p, ProtectedKind)
	}
	if touched || n.TouchedByPerson {
		p = append(p, ProtectedTouched)
	}
	return p
}
