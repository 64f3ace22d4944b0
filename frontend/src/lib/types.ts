// The shapes the window and `rhizome serve` exchange with the frontend.
// Mirrors app/types.go and backend/graph/node.go (JSON names are the
// contract; see docs/CONTRACT.md). Costs are USD, tokens are counts,
// timestamps ISO 8601.

export interface LineProblem {
  line: number;
  offset: number;
  reason: string;
}

/** Status of one imported file. */
export type FileStatus = 'imported' | 'unchanged' | 'appended' | 'failed';

export interface FileReport {
  path: string;
  format: string;
  version: number;
  sessionId: string;
  status: FileStatus;
  entries: number;
  newEntries: number;
  entriesByType: Record<string, number> | null;
  /** Malformed lines in the file, all of them; malformedLines lists the first (at most 10,000). */
  malformedCount: number;
  malformedLines: LineProblem[] | null;
  pendingTail: boolean;
  segments: number;
  boundariesByType: Record<string, number> | null;
  edgesByType: Record<string, number> | null;
  error?: string;
}

export interface ImportTotals {
  files: number;
  imported: number;
  unchanged: number;
  appended: number;
  failed: number;
  entries: number;
  segments: number;
  malformed: number;
}

export interface ImportReport {
  files: FileReport[] | null;
  totals: ImportTotals;
}

/** A file's contents sent by the frontend: content is base64. */
export interface DroppedFile {
  name: string;
  content: string;
}

/** The `import:progress` event. Bytes are over all files. */
export interface ImportProgress {
  file: string;
  fileIndex: number;
  fileCount: number;
  bytesDone: number;
  bytesTotal: number;
  entries: number;
  phase: 'reading' | 'writing' | 'done' | string;
}

export interface Project {
  path: string;
  name: string;
  sessions: number;
  nodes: number;
  cost: number;
}

export interface SessionSummary {
  id: string;
  path: string;
  name: string;
  project: string;
  timestamp: string;
  version: number;
  entries: number;
  segments: number;
  cost: number;
  tokens: number;
  parentSession?: string;
  malformed: number;
  pendingTail: boolean;
}

export interface GraphFilter {
  project?: string;
  sessionId?: string;
  types?: string[];
  from?: string;
  to?: string;
}

export interface GraphNode {
  id: string;
  label: string;
  type: string;
  outcome: string;
  sessionId: string;
  project: string;
  segment: number;
  timestamp: string;
  cost: number;
  tokens: number;
  entries: number;
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  type: string;
  metadata?: Record<string, unknown> | null;
}

export interface GraphData {
  nodes: GraphNode[] | null;
  edges: GraphEdge[] | null;
}

export interface BoundaryView {
  type: string;
  entryId: string;
  timestamp: string;
  metadata?: Record<string, unknown> | null;
}

export interface NodeVersionInfo {
  version: number;
  analyzedAt: string;
  analyzerVersion: string;
  triggerReason: string;
}

// backend/graph.Node and its parts.

export interface Decision {
  what: string;
  why: string;
  alternativesConsidered: string[] | null;
}

export interface ErrorSummary {
  type: string;
  message: string;
  resolved: boolean;
}

export interface Lesson {
  level: string;
  summary: string;
  details: string;
  confidence: string;
  tags: string[] | null;
  actionable?: string;
}

export interface ModelUsage {
  provider: string;
  model: string;
  tokensInput: number;
  tokensOutput: number;
  cacheRead?: number;
  cacheWrite?: number;
  cost: number;
}

export interface ModelQuirk {
  model: string;
  observation: string;
  frequency: string;
  workaround?: string;
  severity: string;
}

export interface ToolError {
  tool: string;
  errorType: string;
  context: string;
  model: string;
  wasRetried: boolean;
}

export interface KnowledgeNode {
  id: string;
  version: number;
  previousVersions: string[] | null;
  source: {
    sessionFile: string;
    segment: { startEntryId: string; endEntryId: string; entryCount: number };
    computer: string;
    sessionId: string;
    parentSession?: string;
  };
  classification: {
    type: string;
    project: string;
    isNewProject: boolean;
    hadClearGoal: boolean;
    language?: string;
    frameworks?: string[] | null;
  };
  content: {
    summary: string;
    outcome: string;
    keyDecisions: Decision[] | null;
    filesTouched: string[] | null;
    toolsUsed: string[] | null;
    errorsSeen: ErrorSummary[] | null;
  };
  lessons: Record<string, Lesson[] | null> | null;
  observations: {
    modelsUsed: ModelUsage[] | null;
    promptingWins: string[] | null;
    promptingFailures: string[] | null;
    modelQuirks: ModelQuirk[] | null;
    toolUseErrors: ToolError[] | null;
  };
  metadata: {
    tokensUsed: number;
    cost: number;
    durationMinutes: number;
    timestamp: string;
    analyzedAt: string;
    analyzerVersion: string;
  };
  semantic: {
    tags: string[] | null;
    topics: string[] | null;
    relatedProjects?: string[] | null;
    concepts?: string[] | null;
  };
}

export interface NodeDetail {
  node: KnowledgeNode;
  sessionName: string;
  segment: number;
  boundaries: BoundaryView[] | null;
  incoming: GraphEdge[] | null;
  outgoing: GraphEdge[] | null;
  versions: NodeVersionInfo[] | null;
}

export interface BlockView {
  type: string;
  text?: string;
  name?: string;
  arguments?: string;
  mimeType?: string;
  data?: string;
}

export interface EntryView {
  seq: number;
  line: number;
  id: string;
  parentId?: string;
  type: string;
  role?: string;
  timestamp: string;
  model?: string;
  isError?: boolean;
  toolName?: string;
  summary?: string;
  label?: string;
  blocks: BlockView[] | null;
}

/** A page of a segment's entries (Library.SegmentEntries): entries from the offset-th on, and the segment's total. */
export interface EntryPage {
  entries: EntryView[] | null;
  offset: number;
  total: number;
}

export interface TimelineSegment {
  index: number;
  nodeId: string;
  type: string;
  summary: string;
  start: string;
  end: string;
  entries: number;
  boundaries: BoundaryView[] | null;
}

export interface SearchHit {
  kind: 'node' | 'entry' | string;
  nodeId: string;
  sessionId: string;
  title: string;
  /** Plain text; matches are between \u0001 and \u0002. */
  snippet: string;
  score: number;
}

export interface Stats {
  path: string;
  sessions: number;
  entries: number;
  nodes: number;
  edges: number;
  projects: number;
  cost: number;
  tokens: number;
  byType: Record<string, number> | null;
}

// ---- knowledge-graph node history (backend/graph/diff.go) ----

/** One difference between two versions of a node. Values are JSON values. */
export interface FieldChange {
  /** The field's place in the node's JSON: "content.summary", "lessons.model[0]". */
  path: string;
  type: 'added' | 'removed' | 'changed';
  /** Absent for an added field. */
  oldValue?: unknown;
  /** Absent for a removed field. */
  newValue?: unknown;
}

/** What changed in a node from one version to another (Graph.NodeDiff). */
export interface NodeDiff {
  nodeId: string;
  fromVersion: number;
  toVersion: number;
  changes: FieldChange[];
}

// ---- Loom (app/loom.go) ----
// Ids are ULIDs; localId is the short id to show. Times are ISO 8601 UTC.
// Lists are never null here: api.ts normalises what Go sends.

export type LoomMode = 'dialogue' | 'buffer';
export type Author = 'model' | 'human';
/** Authorship view: "raw" (exact) or "semantic" (short surviving fragments count as the editor's). */
export type AuthorshipView = 'raw' | 'semantic';
export type DiffGranularity = 'char' | 'word';

/** A loom tree in the sidebar and at the top of its view. */
export interface LoomTreeInfo {
  id: string;
  title: string;
  description?: string;
  summary?: string;
  mode: LoomMode;
  systemContext?: string;
  rootNodeId: string;
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  archivedAt?: string;
  /** Every node stored, versions and annotations included. */
  nodes: number;
  /** The nodes the tree map draws (no annotations, no buffer-mode versions): what the window calls its nodes. */
  positions: number;
  /** The tree this one is a copy of (Loom.ImportCopy), and the file it came from. */
  copiedFrom?: string;
  copySource?: string;
}

/** A new tree: rootText is the person's prompt; title defaults to its first words. */
export interface LoomTreeSpec {
  title?: string;
  mode: LoomMode;
  systemContext?: string;
  rootText: string;
}

/**
 * The path the loom view shows: the node it ends at and, in buffer mode, the
 * version chosen at each position (family id -> version id).
 */
export interface ActivePath {
  nodeId: string;
  versions?: Record<string, string> | null;
}

/** One node of a loom tree, its text as plain text. */
export interface LoomNode {
  id: string;
  localId: string;
  /** The primary source of its incoming edge; absent for a root. */
  parentId?: string;
  parentIds: string[];
  /** The positions continuing it, in creation order (buffer mode: those of all its versions). */
  children: string[];
  authorType: Author;
  authorName: string;
  /** The agent's model key, "openai/gpt-4o". */
  model?: string;
  text: string;
  contentType: string;
  createdAt: string;
  bookmarked: boolean;
  bookmarkLabel?: string;
  pruned: boolean;
  /** Pruned, or under a pruned node. */
  hidden: boolean;
  excluded: boolean;
  editedFrom?: string;
  /** Id of the oldest node of its version family. */
  family: string;
  /** Drawn in the tree map (false for annotations and, in buffer mode, versions). */
  position: boolean;
  annotation?: boolean;
  summary?: string;
  contentHash: string;
  rawResponseHash?: string;
}

/** A whole tree: every node (creation order, root first) and the active path to open it on. */
export interface LoomTreeView {
  tree: LoomTreeInfo;
  nodes: LoomNode[];
  branchPoints: string[];
  leaves: string[];
  activePath: ActivePath;
}

/** A stretch of a node's text written by one author; a node's runs concatenate to its text. */
export interface AuthorshipRun {
  text: string;
  author: Author;
}

/** Alternatives at one place of the path, and which one the path shows (ids[index]). */
export interface LoomChoice {
  ids: string[];
  index: number;
}

/** One node of the active path with its authorship runs, siblings and versions. */
export interface LoomPathStep {
  node: LoomNode;
  runs: AuthorshipRun[];
  siblings: LoomChoice;
  versions: LoomChoice;
}

/** The reading pane: the resolved active path from the root. */
export interface LoomPathView {
  treeId: string;
  mode: LoomMode;
  activePath: ActivePath;
  view: AuthorshipView;
  steps: LoomPathStep[];
}

/** Asks for n continuations of the active path (n 0 = the settings' n). */
export interface LoomGenerateRequest {
  treeId: string;
  activePath: ActivePath;
  n: number;
  requestId?: string;
}

/** A finished generation (also the `loom:done` event): new model nodes by index. */
export interface LoomGenerated {
  requestId: string;
  treeId: string;
  parentId: string;
  nodes: LoomNode[];
}

/** The `loom:start` event. */
export interface LoomGenerationStart {
  requestId: string;
  treeId: string;
  parentId: string;
  n: number;
  model: string;
}

/** The `loom:delta` event: per index, deltas concatenate to continuation index's text. */
export interface LoomDelta {
  requestId: string;
  index: number;
  text: string;
}

/** The `loom:error` event: the generation failed or was cancelled; no node was written. */
export interface LoomGenerationError {
  requestId: string;
  treeId: string;
  error: string;
  cancelled: boolean;
}

/** The `loom:changed` event. */
export interface LoomChanged {
  treeId: string;
}

/** One node of a version family; inChain marks the editedFrom chain to the node asked about. */
export interface LoomVersion {
  id: string;
  localId: string;
  authorType: Author;
  authorName: string;
  createdAt: string;
  text: string;
  editedFrom?: string;
  inChain: boolean;
}

/**
 * One operation of a text diff. Equal and delete texts give the old text,
 * equal and insert the new; a replacement is a delete then an insert.
 */
export interface DiffOp {
  op: 'equal' | 'delete' | 'insert';
  text: string;
}

/** A hash-chain finding of Loom.Verify or an import. */
export interface LoomTamper {
  nodeId: string;
  localId: string;
  reason: string;
  relatedId?: string;
  detail: string;
}

/** An imported tree: format "rhizome" or "socketteer"; warnings say what was not kept. */
export interface LoomImportResult {
  tree: LoomTreeInfo;
  format: 'rhizome' | 'socketteer' | string;
  activePath: ActivePath;
  warnings: string[];
  tampered: LoomTamper[];
}

// ---- Settings (app/settings.go) ----

export type LLMProvider = 'openai' | 'anthropic';

/** The model configuration as the frontend sees it: never the API key. */
export interface LLMSettings {
  provider: LLMProvider | string;
  /** "" = the provider's default. */
  baseUrl: string;
  model: string;
  /** null = the server's default. */
  temperature: number | null;
  /** Per continuation; 0 = the server's default. */
  maxTokens: number;
  /** Continuations per generation; 0 = 1. */
  n: number;
  noStream: boolean;
  apiKeySet: boolean;
  /** Provider and model set: generation can run. */
  configured: boolean;
}

/** The settings form: apiKey "" keeps the stored key, clearApiKey forgets it. */
export interface LLMSettingsInput {
  provider: string;
  baseUrl: string;
  model: string;
  temperature: number | null;
  maxTokens: number;
  n: number;
  noStream: boolean;
  apiKey?: string;
  clearApiKey?: boolean;
}

export interface SettingsView {
  llm: LLMSettings;
  /** Where settings are kept. */
  configDir: string;
}

/** The outcome of Settings.TestLLM. */
export interface LLMTestResult {
  ok: boolean;
  error?: string;
  model: string;
  text?: string;
  elapsedMs: number;
}

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
}
export type EventName = keyof EventPayloads;
