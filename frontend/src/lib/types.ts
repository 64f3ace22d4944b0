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

/** Events the Go side sends, with their payloads. */
export interface EventPayloads {
  'import:progress': ImportProgress;
  'import:done': ImportReport;
  'library:changed': null;
}
export type EventName = keyof EventPayloads;
