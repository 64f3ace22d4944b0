// The shapes the window and `rhizome serve` exchange with the frontend
// (docs/CONTRACT.md), under the names the components use. They are not
// written here: `make generate` writes them from the Go types (app/types_<area>.go,
// backend/graph; their doc comments say what each field means) into
// generated/models.ts, and `make test` fails when that file is stale. This
// module names them and adds what only the frontend has: the events' names
// and a few unions of its own. Go sends every list of a result, [] when empty
// (docs/CONTRACT.md, "Lists"): none arrives null. Costs are USD, tokens are
// counts, timestamps ISO 8601.

import type { app, graph } from './generated/models';

// ---- import (app/import.go) ----

export type LineProblem = app.LineProblem;
/** Status of one imported file. */
export type FileStatus = app.FileReport['status'];
export type FileReport = app.FileReport;
export type ImportTotals = app.ImportTotals;
export type ImportReport = app.ImportReport;
/** A file's contents sent by the frontend: content is base64. */
export type DroppedFile = app.DroppedFile;
/** The `import:progress` event. Bytes are over all files; phase "reading", "writing" or "done". */
export type ImportProgress = app.ImportProgress;

// ---- library, graph, search (app/library.go, graph.go, search.go) ----

export type Project = app.Project;
export type SessionSummary = app.SessionSummary;
export type GraphFilter = app.GraphFilter;
export type GraphNode = app.GraphNode;
export type GraphEdge = app.GraphEdge;
export type GraphData = app.GraphData;
export type RelationsReport = app.RelationsReport;
export type AnalysisStatus = app.AnalysisStatus;
export type AnalysisEstimate = app.AnalysisEstimate;
export type AnalysisRequest = app.AnalysisRequest;
export type NodeAnalysisInfo = app.NodeAnalysisInfo;
export type BoundaryView = app.BoundaryView;
export type NodeVersionInfo = app.NodeVersionInfo;

// backend/graph.Node and its parts.
export type Decision = graph.Decision;
export type ErrorSummary = graph.ErrorSummary;
export type Lesson = graph.Lesson;
export type ModelUsage = graph.ModelUsage;
export type ModelQuirk = graph.ModelQuirk;
export type ToolError = graph.ToolError;
export type KnowledgeNode = graph.Node;

export type NodeDetail = app.NodeDetail;
export type BlockView = app.BlockView;
export type EntryView = app.EntryView;
/** A Claude Code tool output kept in a file of its own, as the library holds it (Library.ToolOutput). */
export type ToolOutputInfo = app.ToolOutputInfo;
export type ToolOutputText = app.ToolOutputText;
/** A page of a segment's entries (Library.SegmentEntries): entries from the offset-th on, and the segment's total. */
export type EntryPage = app.EntryPage;
export type TimelineSegment = app.TimelineSegment;
/**
 * kind "node" or "entry" (nodeId: the node to open), or "loom", "loomNode",
 * "note", "summary"; uri names the exact item (an entry hit: its entry);
 * snippet is plain text, matches between \u0001 and \u0002.
 */
export type SearchHit = app.SearchHit;
export type Stats = app.Stats;

// ---- knowledge nodes (app/knowledge.go): decisions, facts, questions… ----
// Times are ISO 8601 UTC.

export type KnowledgeKind = app.KnowledgeItem['kind'];
export type KnowledgeStatus = app.KnowledgeItem['status'];
export type KnowledgeMaker = app.KnowledgeItem['createdBy'];
export type KnowledgeFields = app.KnowledgeFields;
export type KnowledgeItem = app.KnowledgeItem;
export type KnowledgeFilter = app.KnowledgeFilter;
export type KnowledgeInput = app.KnowledgeInput;
export type KnowledgeDetail = app.KnowledgeDetail;
/** A supersession chain, newest first: items[0] is the current one. */
export type KnowledgeChain = app.KnowledgeChain;
export type ProjectRule = app.ProjectRule;
export type ProjectRuleGroup = app.ProjectRuleGroup;
/** A project's "## Project Rules" as Markdown and by category. */
export type ProjectRules = app.ProjectRules;
export type KnowledgeReextract = app.KnowledgeReextract;

// ---- hybrid search and consolidation (app/search_hybrid.go, memory.go) ----

export type HybridQuery = app.HybridQuery;
export type HybridSearchFilter = app.SearchFilter;
/** One component's share of a hit's score: contribution = value * weight. */
export type ScorePart = app.ScorePart;
export type HybridHit = app.HybridHit;
export type BridgePath = app.BridgePath;
export type HybridResult = app.HybridResult;
export type SearchSettings = app.SearchSettings;
export type VectorStatus = app.VectorStatus;
export type ConsolidateRequest = app.ConsolidateRequest;
export type ConsolidationRun = app.ConsolidationRun;
export type ConsolidationChange = app.ConsolidationChange;
export type Dashboard = app.Dashboard;
export type PatternSection = app.PatternSection;
export type PatternItem = app.PatternItem;
export type PatternNode = app.PatternNode;
export type UsageChart = app.UsageChart;
export type UsageSeries = app.UsageSeries;

// ---- knowledge-graph node history (backend/graph/diff.go) ----

/** One difference between two versions of a node. Values are JSON values. */
export type FieldChange = graph.FieldChange;
/** What changed in a node from one version to another (Graph.NodeDiff). */
export type NodeDiff = graph.NodeDiff;

// ---- Loom (app/loom.go) ----
// Ids are ULIDs; localId is the short id to show. Times are ISO 8601 UTC.

export type LoomMode = app.LoomTreeInfo['mode'];
export type Author = app.LoomNode['authorType'];
/** Authorship view: "raw" (exact) or "semantic" (short surviving fragments count as the editor's). */
export type AuthorshipView = app.LoomPathView['view'];
/** How Loom.Diff cuts the texts; Go takes it as a string. */
export type DiffGranularity = 'char' | 'word';

export type LoomTreeInfo = app.LoomTreeInfo;
export type LoomTreeSpec = app.LoomTreeSpec;
export type ActivePath = app.ActivePath;
export type LoomNode = app.LoomNode;
export type LoomTreeView = app.LoomTreeView;
export type AuthorshipRun = app.AuthorshipRun;
export type LoomChoice = app.LoomChoice;
export type LoomPathStep = app.LoomPathStep;
export type LoomPathView = app.LoomPathView;
export type LoomGenerateRequest = app.LoomGenerateRequest;
export type LoomGenerated = app.LoomGenerated;
export type LoomGenerationStart = app.LoomGenerationStart;
export type LoomDelta = app.LoomDelta;
export type LoomGenerationError = app.LoomGenerationError;
export type LoomChanged = app.LoomChanged;
export type LoomVersion = app.LoomVersion;
export type DiffOp = app.DiffOp;
export type LoomTamper = app.LoomTamper;
/** format "rhizome" or "socketteer"; warnings say what was not kept. */
export type LoomImportResult = app.LoomImportResult;

// ---- Reasoning graphs (app/reasoning.go) ----
// MemoBrain reasoning graphs. Node ids are MemoBrain's integers; step k of a
// graph's history is the state after its first k operations.

export type ReasoningImport = app.ReasoningImport;
export type ReasoningGraphInfo = app.ReasoningGraphInfo;
export type ReasoningNote = app.ReasoningNote;
export type ReasoningNodeView = app.ReasoningNodeView;
/** A node's state: active (true), folded (false) or flushed ("Flushed"). */
export type ReasoningState = app.ReasoningNodeView['state'];
export type ReasoningEdgeView = app.ReasoningEdgeView;
export type ReasoningSpan = app.ReasoningSpan;
export type ReasoningStepInfo = app.ReasoningStepInfo;
export type ReasoningGraphView = app.ReasoningGraphView;
export type ReasoningNodeState = app.ReasoningNodeState;
/** A graph at one step of its history (Reasoning.At). */
export type ReasoningAt = app.ReasoningState;
export type ReasoningDiff = app.ReasoningDiff;
export type ReasoningEdgeRef = app.ReasoningEdgeRef;
export type ReasoningTurn = app.ReasoningTurn;
export type ReasoningTurnEntry = app.ReasoningTurnEntry;
export type ReasoningRunRequest = app.ReasoningRunRequest;
export type ReasoningRunResult = app.ReasoningRunResult;
export type ReasoningRunProblem = app.ReasoningRunProblem;
export type ReasoningRunProgress = app.ReasoningRunProgress;
export type ReasoningChanged = app.ReasoningChanged;
// ---- Links, notes and marks (app/links.go, app/notes.go) ----
// Items are named by URIs (rhizome:node/<id>, rhizome:entry/<session>/<entry>,
// rhizome:loom/<tree>[/<node>], rhizome:note/<id>, https:…, a file path).

/** Where the window opens an item: view "graph", "loom", "external", or "" (not in the library). */
export type OpenTarget = app.OpenTarget;
export type ItemKind = app.ItemView['kind'];
/** An item as a person sees it: title, where it lives, whether it is still there, where to open it. */
export type ItemView = app.ItemView;
/** A link from one end's side: label reads from that end to other; broken when other is gone. */
export type LinkView = app.LinkView;
/** An item with its outgoing links and backlinks, each grouped by type. */
export type LinksOf = app.LinksOf;
export type LinkInput = app.LinkInput;
export type RelationView = app.RelationView;
export type ReviewMark = app.NoteView['marks'][number];
/** The note on an item (exists false when none) and the item's review marks. */
export type NoteView = app.NoteView;
/** An item the picker found; snippet marks matches between \u0001 and \u0002. */
export type ItemHit = app.ItemHit;
/** The payload of links:changed and notes:changed: the items whose links or notes changed. */
export type LinksChanged = app.LinksChanged;

// ---- Settings (app/settings.go) ----

export type LLMProvider = 'openai' | 'anthropic';
/**
 * The model configuration as the frontend sees it: never the API key. Go
 * always sends temperature (null = the server's default); the generator makes
 * a Go pointer optional.
 */
export type LLMSettings = Omit<app.LLMSettings, 'temperature'> & { temperature: number | null };
/** The settings form: apiKey "" keeps the stored key, clearApiKey forgets it. */
export type LLMSettingsInput = app.LLMSettingsInput;
export type SettingsView = Omit<app.SettingsView, 'llm'> & { llm: LLMSettings };
export type LLMTestResult = app.LLMTestResult;
/** How summaries are made: offline (useModel false, the default) or with the summary model, else the generation model. */
export type SummarySettings = app.SummarySettings;
/** The summary part of the settings form: apiKey "" keeps the stored key. */
export type SummarySettingsInput = app.SummarySettingsInput;

// ---- Summaries (app/summaries.go) ----
// Items are rhizome: URIs (rhizome:session/<id>, rhizome:node/<id>,
// rhizome:loom/<tree>[/<node>], rhizome:project/<path>).

export type SummaryKind = app.SummaryView['kind'];
/** What an item is about, as shown. */
export type SummaryView = app.SummaryView;
export type SummaryVersionView = app.SummaryVersionView;
/** The background queue (`summary:progress`, Summaries.QueueStatus). */
export type SummaryQueueStatus = app.SummaryQueueStatus;
/** The `summary:updated` event: the items whose summary changed. */
export type SummariesUpdated = app.SummariesUpdated;

// ---- Watched folders (app/watch.go) ----

/** A folder the watcher follows: an agent's default one or one added, with its switch. */
export type WatchedFolder = app.WatchedFolder;
/** Whether the watcher runs, what it follows, its last import; liveSeconds: how long a session counts as live. */
export type WatchStatus = app.WatchStatus;
/** The `watch:imported` event: the files an import of the watcher changed. */
export type WatchImported = app.WatchImported;
/** A session's file format. */
export type SessionFormat = app.SessionSummary['format'];

/** Events the Go side sends, with their payloads. */
export interface EventPayloads {
  'import:progress': ImportProgress;
  'import:done': ImportReport;
  'library:changed': null;
  'loom:changed': LoomChanged;
  'loom:start': LoomGenerationStart;
  'loom:delta': LoomDelta;
  'loom:done': LoomGenerated;
  'loom:error': LoomGenerationError;
  'settings:changed': null;
  'reasoning:changed': ReasoningChanged;
  'reasoning:progress': ReasoningRunProgress;
  'links:changed': LinksChanged;
  'notes:changed': LinksChanged;
  'summary:progress': SummaryQueueStatus;
  'summary:updated': SummariesUpdated;
  'analysis:progress': AnalysisStatus;
  'watch:imported': WatchImported;
  /** The watcher's first pass over its folders, as an import's progress. */
  'watch:progress': ImportProgress;
  'watch:changed': WatchStatus;
  /** Background work that failed, its error (toasts/background.ts). */
  'summary:error': string;
  'memory:error': string;
  'relations:error': string;
}
export type EventName = keyof EventPayloads;
