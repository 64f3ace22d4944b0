// Package graph holds the knowledge-graph node and edge model built from pi
// sessions, and its versioning.
//
// See ../shared/specs/pi-brain-node-model.md, "Node Data Structure", "Edge
// Data Structure" and "Versioning".
package graph

// Node is one unit of work extracted from a session segment.
// See pi-brain-node-model.md, "Core Types".
type Node struct {
	ID               string            `json:"id"` // 16 hex characters
	Version          int               `json:"version"`
	PreviousVersions []string          `json:"previousVersions"` // "{id}-v{n}"
	Source           NodeSource        `json:"source"`
	Classification   Classification    `json:"classification"`
	Content          Content           `json:"content"`
	Lessons          LessonsByLevel    `json:"lessons"`
	Observations     ModelObservations `json:"observations"`
	Metadata         NodeMetadata      `json:"metadata"`
	Semantic         SemanticData      `json:"semantic"`
	DaemonMeta       DaemonMeta        `json:"daemonMeta"`
}

// NodeSource links a node to its session segment.
type NodeSource struct {
	SessionFile   string        `json:"sessionFile"`
	Segment       SegmentSource `json:"segment"`
	Computer      string        `json:"computer"`
	SessionID     string        `json:"sessionId"`
	ParentSession string        `json:"parentSession,omitempty"`
}

// SegmentSource names a segment's first and last entry ids and its size.
type SegmentSource struct {
	StartEntryID string `json:"startEntryId"`
	EndEntryID   string `json:"endEntryId"`
	EntryCount   int    `json:"entryCount"`
}

// NodeType classifies the work of a node.
type NodeType string

// Node types of the spec.
const (
	TypeCoding        NodeType = "coding"
	TypeDebugging     NodeType = "debugging"
	TypeRefactoring   NodeType = "refactoring"
	TypeSysadmin      NodeType = "sysadmin"
	TypeResearch      NodeType = "research"
	TypePlanning      NodeType = "planning"
	TypeQA            NodeType = "qa"
	TypeBrainstorm    NodeType = "brainstorm"
	TypeHandoff       NodeType = "handoff"
	TypeDocumentation NodeType = "documentation"
	TypeConfiguration NodeType = "configuration"
	TypeData          NodeType = "data"
	TypeOther         NodeType = "other"
)

// NodeTypes lists every node type in the spec's order.
var NodeTypes = []NodeType{TypeCoding, TypeDebugging, TypeRefactoring, TypeSysadmin, TypeResearch,
	TypePlanning, TypeQA, TypeBrainstorm, TypeHandoff, TypeDocumentation, TypeConfiguration, TypeData, TypeOther}

// Classification says what kind of work a node is.
type Classification struct {
	Type         NodeType `json:"type"`
	Project      string   `json:"project"` // absolute path (the session's cwd)
	IsNewProject bool     `json:"isNewProject"`
	HadClearGoal bool     `json:"hadClearGoal"`
	Language     string   `json:"language,omitempty"`
	Frameworks   []string `json:"frameworks,omitempty"`
}

// Outcome of a segment's work.
type Outcome string

// Outcomes of the spec.
const (
	OutcomeSuccess   Outcome = "success"
	OutcomePartial   Outcome = "partial"
	OutcomeFailed    Outcome = "failed"
	OutcomeAbandoned Outcome = "abandoned"
)

// Content is what happened in the segment.
type Content struct {
	Summary      string         `json:"summary"`
	Outcome      Outcome        `json:"outcome"`
	KeyDecisions []Decision     `json:"keyDecisions"`
	FilesTouched []string       `json:"filesTouched"` // relative to the project root when inside it
	ToolsUsed    []string       `json:"toolsUsed"`
	ErrorsSeen   []ErrorSummary `json:"errorsSeen"`
}

// Decision is a key decision taken in a segment.
type Decision struct {
	What                   string   `json:"what"`
	Why                    string   `json:"why"`
	AlternativesConsidered []string `json:"alternativesConsidered"`
}

// ErrorSummary is an error met in a segment.
type ErrorSummary struct {
	Type     string `json:"type"`
	Message  string `json:"message"`
	Resolved bool   `json:"resolved"`
}

// LessonsByLevel holds lessons by level; every list is non-nil.
type LessonsByLevel struct {
	Project  []Lesson `json:"project"`
	Task     []Lesson `json:"task"`
	User     []Lesson `json:"user"`
	Model    []Lesson `json:"model"`
	Tool     []Lesson `json:"tool"`
	Skill    []Lesson `json:"skill"`
	Subagent []Lesson `json:"subagent"`
}

// Lesson is one learned insight.
type Lesson struct {
	Level      string   `json:"level"`
	Summary    string   `json:"summary"`
	Details    string   `json:"details"`
	Confidence string   `json:"confidence"` // high | medium | low
	Tags       []string `json:"tags"`
	Actionable string   `json:"actionable,omitempty"`
}

// ModelObservations records model behaviour in a segment.
type ModelObservations struct {
	ModelsUsed        []ModelUsage `json:"modelsUsed"`
	PromptingWins     []string     `json:"promptingWins"`
	PromptingFailures []string     `json:"promptingFailures"`
	ModelQuirks       []ModelQuirk `json:"modelQuirks"`
	ToolUseErrors     []ToolError  `json:"toolUseErrors"`
}

// ModelUsage is one model's token use and cost (USD) in a segment.
type ModelUsage struct {
	Provider     string  `json:"provider"`
	Model        string  `json:"model"`
	TokensInput  int64   `json:"tokensInput"`
	TokensOutput int64   `json:"tokensOutput"`
	CacheRead    int64   `json:"cacheRead,omitempty"`
	CacheWrite   int64   `json:"cacheWrite,omitempty"`
	Cost         float64 `json:"cost"`
}

// ModelQuirk is an unexpected model behaviour.
type ModelQuirk struct {
	Model       string `json:"model"`
	Observation string `json:"observation"`
	Frequency   string `json:"frequency"`
	Workaround  string `json:"workaround,omitempty"`
	Severity    string `json:"severity"`
}

// ToolError is a tool misuse by a model.
type ToolError struct {
	Tool       string `json:"tool"`
	ErrorType  string `json:"errorType"`
	Context    string `json:"context"`
	Model      string `json:"model"`
	WasRetried bool   `json:"wasRetried"`
}

// NodeMetadata is timing, cost (USD) and analysis tracking.
type NodeMetadata struct {
	TokensUsed      int64   `json:"tokensUsed"`
	Cost            float64 `json:"cost"`
	DurationMinutes float64 `json:"durationMinutes"`
	Timestamp       string  `json:"timestamp"`  // ISO 8601, segment start
	AnalyzedAt      string  `json:"analyzedAt"` // ISO 8601
	AnalyzerVersion string  `json:"analyzerVersion"`
}

// SemanticData is tags and topics.
type SemanticData struct {
	Tags            []string `json:"tags"`
	Topics          []string `json:"topics"`
	RelatedProjects []string `json:"relatedProjects,omitempty"`
	Concepts        []string `json:"concepts,omitempty"`
}

// DaemonMeta records decisions made during analysis.
type DaemonMeta struct {
	Decisions         []DaemonDecision `json:"decisions"`
	AnalysisLog       string           `json:"analysisLog,omitempty"`
	RLMUsed           bool             `json:"rlmUsed"`
	SegmentTokenCount int64            `json:"segmentTokenCount,omitempty"`
}

// DaemonDecision is one analysis decision.
type DaemonDecision struct {
	Timestamp   string `json:"timestamp"`
	Decision    string `json:"decision"`
	Reasoning   string `json:"reasoning"`
	NeedsReview bool   `json:"needsReview,omitempty"`
}

// EdgeCreator says who made an edge.
type EdgeCreator string

// Edge creators of the spec.
const (
	CreatedByBoundary EdgeCreator = "boundary"
	CreatedByDaemon   EdgeCreator = "daemon"
	CreatedByUser     EdgeCreator = "user"
	// CreatedByOffline: derived offline across sessions (backend/relate).
	CreatedByOffline EdgeCreator = "offline"
	// CreatedByModel: proposed by the model analyzer (backend/analyze).
	CreatedByModel EdgeCreator = "model"
)

// Edge types of the spec: structural, then semantic.
const (
	EdgeFork              = "fork"
	EdgeBranch            = "branch"
	EdgeTreeJump          = "tree_jump"
	EdgeResume            = "resume"
	EdgeCompaction        = "compaction"
	EdgeContinuation      = "continuation"
	EdgeSubagent          = "subagent" // from the work that spawned a sub-agent to its conversation (Claude Code, Codex)
	EdgeSemantic          = "semantic"
	EdgeReference         = "reference"
	EdgeLessonApplication = "lesson_application"
	EdgeFailurePattern    = "failure_pattern"
	EdgeProjectRelated    = "project_related"
	EdgeTechniqueShared   = "technique_shared"
)

// Edge is a typed, directed relationship between two nodes.
// See pi-brain-node-model.md, "Edge Data Structure".
type Edge struct {
	ID           string         `json:"id"`
	SourceNodeID string         `json:"sourceNodeId"`
	TargetNodeID string         `json:"targetNodeId"`
	Type         string         `json:"type"`
	Metadata     map[string]any `json:"metadata"`
	CreatedAt    string         `json:"createdAt"` // ISO 8601
	CreatedBy    EdgeCreator    `json:"createdBy"`
	// Confidence is how sure the maker is of the edge, 0 to 1; a boundary
	// edge is certain (1). Issue 9, "Relations across sessions".
	Confidence float64 `json:"confidence"`
	// Similarity is the measured similarity of the two ends (0 to 1) when
	// the edge comes from one (shared files); nil otherwise.
	Similarity *float64 `json:"similarity,omitempty"`
	// Rationale says why the edge exists, in words a person can check.
	Rationale string `json:"rationale,omitempty"`
}
