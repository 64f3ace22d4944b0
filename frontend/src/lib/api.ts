// The one module that talks to Go (docs/CONTRACT.md).
//
// In the Wails window the use cases are bound as window.go.app.<Area>.<Method>
// and events come from window.runtime. In `rhizome serve` (window.go is
// undefined) they are POST /api/<Area>/<Method>?token=TOKEN with a JSON array
// of arguments, events come from the server-sent-event stream
// /api/events?token=TOKEN, and files read in the page are streamed to
// POST /api/upload; the token leaves the address bar for the tab's session
// storage (pageToken). Components call the typed wrappers of `api` and never
// know which of the two is behind them.
//
// Which use cases there are, and the arguments each takes, come from the Go
// side: generated/methods.ts (`make generate`) lists them, and every call
// below is checked against their generated signatures; api.test.ts checks
// that every one of them is wrapped.

import type {
  ActivePath,
  AuthorshipView,
  DiffGranularity,
  DroppedFile,
  EventName,
  EventPayloads,
  GraphFilter,
  ImportReport,
  ItemKind,
  LinkInput,
  KnowledgeFilter,
  KnowledgeInput,
  AnalysisRequest,
  LLMSettingsInput,
  LoomGenerateRequest,
  LoomImportResult,
  LoomTreeSpec,
  NodeDiff,
  Project,
  ReasoningRunRequest,
  ReviewMark,
  HybridQuery,
  SearchSettings,
  VectorStatus,
  ConsolidateRequest,
  Dashboard,
  SettingsView,
  SummarySettingsInput,
  Stats,
} from './types';
import type { Bindings } from './generated/methods';
import { readDroppedFile } from './import/files';

export type * from './types';

/** A file dropped or chosen in the page: its bytes, and its name (a path relative to what was dropped). */
export interface DroppedBlob {
  file: Blob;
  name: string;
}

/** How calls and events reach Go. */
export interface Transport {
  mode: 'window' | 'serve';
  call(area: string, method: string, args: unknown[]): Promise<unknown>;
  /** Subscribes to a named event; returns the unsubscribe function. */
  on(event: string, cb: (data: unknown) => void): () => void;
  /** Native file drop (window only): absolute paths. Null when unsupported. */
  onFileDrop(cb: (paths: string[]) => void): (() => void) | null;
  /** Opens an http(s) or mailto link outside the app. */
  openURL(url: string): void;
  /** Imports files read in the page (a browser drop or file picker); resolves to the ImportReport. */
  importBlobs(files: DroppedBlob[]): Promise<unknown>;
}

// ---- serve mode -----------------------------------------------------------

/** The request for one call in serve mode. */
export function buildRequest(
  area: string,
  method: string,
  args: unknown[],
  token: string,
  base = '',
): { url: string; init: RequestInit } {
  const url = `${base}/api/${encodeURIComponent(area)}/${encodeURIComponent(method)}?token=${encodeURIComponent(token)}`;
  return {
    url,
    init: {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(args),
    },
  };
}

/**
 * Reads a serve-mode response: the JSON result (null when the body is empty
 * or `null`), or an Error carrying the server's {"error"} text.
 */
export async function readResponse(res: Response, what: string): Promise<unknown> {
  const text = await res.text();
  let body: unknown = null;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
    } catch {
      if (res.ok) throw new Error(`${what}: the server sent a response that is not JSON`);
      throw new Error(text.trim() || `${what}: HTTP ${res.status}`);
    }
  }
  if (!res.ok) {
    const msg =
      body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
        ? (body as { error: string }).error
        : `${what}: HTTP ${res.status} ${res.statusText}`.trim();
    throw new Error(msg);
  }
  return body;
}

/** The minimal EventSource surface used here (so tests can pass a fake). */
export interface EventSourceLike {
  addEventListener(type: string, listener: (e: MessageEvent) => void): void;
  removeEventListener(type: string, listener: (e: MessageEvent) => void): void;
  close(): void;
}

export interface HttpTransportOptions {
  token: string;
  base?: string;
  fetch?: typeof fetch;
  eventSource?: (url: string) => EventSourceLike;
  open?: (url: string) => void;
}

/** Serve mode: fetch for calls, one shared EventSource for events. */
export function httpTransport(opts: HttpTransportOptions): Transport {
  const base = opts.base ?? '';
  const doFetch = opts.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const makeSource = opts.eventSource ?? ((url: string) => new EventSource(url));
  let source: EventSourceLike | null = null;
  let listeners = 0;

  return {
    mode: 'serve',
    async call(area, method, args) {
      const what = `${area}.${method}`;
      const { url, init } = buildRequest(area, method, args, opts.token, base);
      let res: Response;
      try {
        res = await doFetch(url, init);
      } catch (e) {
        throw new Error(`${what}: cannot reach rhizome serve (${errorText(e)})`);
      }
      return readResponse(res, what);
    },
    on(event, cb) {
      if (!source) source = makeSource(`${base}/api/events?token=${encodeURIComponent(opts.token)}`);
      const handler = (e: MessageEvent) => {
        let data: unknown = null;
        try {
          data = e.data ? JSON.parse(e.data) : null;
        } catch {
          data = e.data;
        }
        cb(data);
      };
      source.addEventListener(event, handler);
      listeners++;
      return () => {
        source?.removeEventListener(event, handler);
        if (--listeners === 0) {
          source?.close();
          source = null;
        }
      };
    },
    onFileDrop() {
      return null;
    },
    // Streamed: the browser sends each File from disk as a multipart part,
    // and the server spools it to disk, so neither holds the file in memory.
    async importBlobs(files) {
      const form = new FormData();
      for (const f of files) form.append('file', f.file, f.name);
      let res: Response;
      try {
        res = await doFetch(`${base}/api/upload?token=${encodeURIComponent(opts.token)}`, { method: 'POST', body: form });
      } catch (e) {
        throw new Error(`upload: cannot reach rhizome serve (${errorText(e)})`);
      }
      return readResponse(res, 'upload');
    },
    openURL(url) {
      if (!isExternalURL(url)) return;
      (opts.open ?? ((u: string) => window.open(u, '_blank', 'noopener,noreferrer')))(url);
    },
  };
}

// ---- window mode ----------------------------------------------------------

type Bound = Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>;

interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  EventsOff?(name: string): void;
  OnFileDrop?(cb: (x: number, y: number, paths: string[]) => void, useDropTarget: boolean): void;
  OnFileDropOff?(): void;
  BrowserOpenURL?(url: string): void;
}

export interface WailsWindow {
  go?: { app?: Bound };
  runtime?: WailsRuntime;
}

/** Window mode: the Wails bindings and runtime. */
export function wailsTransport(win: WailsWindow): Transport {
  return {
    mode: 'window',
    async call(area, method, args) {
      const fn = win.go?.app?.[area]?.[method];
      if (typeof fn !== 'function') throw new Error(`${area}.${method}: not bound in this window`);
      try {
        return await fn(...args);
      } catch (e) {
        throw new Error(errorText(e));
      }
    },
    on(event, cb) {
      const off = win.runtime?.EventsOn(event, (data: unknown) => cb(data ?? null));
      return typeof off === 'function' ? off : () => win.runtime?.EventsOff?.(event);
    },
    onFileDrop(cb) {
      const rt = win.runtime;
      if (!rt?.OnFileDrop) return null;
      rt.OnFileDrop((_x, _y, paths) => cb(paths ?? []), false);
      return () => rt.OnFileDropOff?.();
    },
    openURL(url) {
      if (isExternalURL(url)) win.runtime?.BrowserOpenURL?.(url);
    },
    // The window gets paths for drops (Import.ImportPaths); this is the
    // fallback when it does not: the contents, base64.
    async importBlobs(files) {
      const dropped = [];
      for (const f of files) dropped.push(await readDroppedFile(f.file as Blob & { name: string }, f.name));
      return this.call('Import', 'ImportFiles', [dropped]);
    },
  };
}

// ---- both -----------------------------------------------------------------

/** Only these links leave the app; anything else (javascript:, file:, ...) is ignored. */
export function isExternalURL(url: string): boolean {
  return /^(https?:|mailto:)/i.test(url.trim());
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object' && typeof (e as { error?: unknown }).error === 'string') {
    return (e as { error: string }).error;
  }
  return String(e);
}

/** Where the serve token is kept for the tab (session storage). */
const TOKEN_KEY = 'rhizome.token';

/**
 * The serve token of this page. The URL `rhizome serve` prints carries it
 * (`/?token=...`): it is moved to the tab's session storage and taken out of
 * the address bar (history.replaceState), so that it does not stay in the
 * browser's history or get copied with the address; a reload then finds it
 * in session storage. When session storage cannot be used, the token stays
 * in the address so that a reload still works. "" when there is none.
 */
export function pageToken(win: Pick<Window, 'location' | 'history' | 'sessionStorage'>): string {
  const loc = win.location;
  const params = new URLSearchParams(loc.search);
  const fromURL = params.get('token');
  if (fromURL) {
    try {
      win.sessionStorage.setItem(TOKEN_KEY, fromURL);
    } catch {
      return fromURL;
    }
    params.delete('token');
    const search = params.toString();
    try {
      win.history.replaceState(win.history.state, '', `${loc.pathname}${search ? `?${search}` : ''}${loc.hash}`);
    } catch {
      // The token stays in the address; it still works.
    }
    return fromURL;
  }
  try {
    return win.sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/** Picks the transport for this page: Wails bindings when present, HTTP otherwise. */
export function detectTransport(win: Window & WailsWindow = window as Window & WailsWindow): Transport {
  if (win.go !== undefined) return wailsTransport(win);
  return httpTransport({ token: pageToken(win) });
}

/**
 * Whether an import failed because the library already holds the tree
 * (serve: HTTP 409; both: the error text says "already in the library",
 * docs/CONTRACT.md): Loom.ImportCopy imports it as a copy.
 */
export function alreadyInLibrary(e: unknown): boolean {
  return /already in the library/.test(e instanceof Error ? e.message : String(e));
}

/** A copy of an active path to send to Go: versions only when there are some. */
export function activePath(ap: ActivePath | null | undefined): ActivePath {
  const out: ActivePath = { nodeId: ap?.nodeId ?? '' };
  if (ap?.versions && Object.keys(ap.versions).length) out.versions = { ...ap.versions };
  return out;
}

/** An area of use cases (Import, Library, Graph, Search, Loom, Settings). */
export type Area = keyof Bindings;
/** A use case of area A. */
export type Method<A extends Area> = keyof Bindings[A] & string;
/** The arguments use case A.M takes, in order, as its Go signature says. */
export type Args<A extends Area, M extends Method<A>> = Bindings[A][M] extends (...args: infer P) => unknown ? P : never;
/** What use case A.M resolves to, as its Go signature says. */
export type Result<A extends Area, M extends Method<A>> = Bindings[A][M] extends (...args: never[]) => Promise<infer R> ? R : never;

/** Typed wrappers for every use case of docs/CONTRACT.md. */
export function createApi(getTransport: () => Transport) {
  // What comes back is what the Go signature says: Go sends every list of a
  // result, [] when empty (docs/CONTRACT.md, "Lists"), so nothing is
  // normalised here.
  const call = <A extends Area, M extends Method<A>>(area: A, method: M, ...args: Args<A, M>) =>
    getTransport().call(area, method, args) as Promise<Result<A, M>>;

  return {
    get mode(): 'window' | 'serve' {
      return getTransport().mode;
    },

    importPaths: async (paths: string[]) => call('Import', 'ImportPaths', paths),
    importFiles: async (files: DroppedFile[]) => call('Import', 'ImportFiles', files),
    /**
     * Files read in the page (a browser drop or the file picker): streamed
     * to POST /api/upload in serve mode, Import.ImportFiles in the window.
     */
    importDropped: async (files: DroppedBlob[]) => (await getTransport().importBlobs(files)) as ImportReport,
    importSamples: async () => call('Import', 'ImportSamples'),
    /** Native dialog; window only. An empty report when cancelled. */
    chooseAndImport: async () => call('Import', 'ChooseAndImport'),

    projects: async () => call('Library', 'Projects'),
    /** "" = all projects; newest first. */
    sessions: async (project: string) => call('Library', 'Sessions', project),
    timeline: async (sessionId: string) => call('Library', 'Timeline', sessionId),
    /**
     * A page of a node's segment entries, in file order: from the offset-th
     * (0 = the first) on, at most limit of them (0 = the server's page size),
     * with the segment's total.
     */
    segmentEntries: async (nodeId: string, offset = 0, limit = 0) => call('Library', 'SegmentEntries', nodeId, offset, limit),
    /**
     * A tool output a Claude Code tool result keeps in a file of its own
     * (entry.toolOutputs), as the library holds it: its text (the first
     * 4 MiB of it when truncated).
     */
    toolOutput: async (entryUri: string, name: string) => call('Library', 'ToolOutput', entryUri, name),
    stats: async () => call('Library', 'Stats'),

    graph: async (filter: GraphFilter) => call('Graph', 'Graph', filter),
    node: async (id: string) => call('Graph', 'Node', id),
    /** Derives the offline relations across sessions of a project ("" for all) again. */
    deriveRelations: async (project: string) => call('Graph', 'DeriveRelations', project),

    search: async (q: string, limit: number) => call('Search', 'Query', q, limit),
    /**
     * Items to link to (the picker): at most limit of each kind (0 = the
     * server's default), grouped by kind; kinds [] = every kind; a URI finds
     * its item; "" the newest sessions and trees.
     */
    searchItems: async (q: string, kinds: ItemKind[] = [], limit = 0) =>
      call('Search', 'Items', q, kinds, limit),

    /** Links between items (docs/CONTRACT.md, "Links"). */
    links: {
      /** The vocabulary, in the type picker's order. */
      relations: async () => call('Links', 'Relations'),
      create: async (input: LinkInput) => call('Links', 'Create', input),
      /** type "" keeps the type. */
      update: async (id: string, type: string, note: string) => call('Links', 'Update', id, type, note),
      delete: async (id: string) => {
        await call('Links', 'Delete', id);
      },
      /** The item with its outgoing links and backlinks. */
      of: async (uri: string) => call('Links', 'Of', uri),
      /** What the library holds under uri and where the window opens it. */
      resolve: async (uri: string) => call('Links', 'Resolve', uri),
    },
    /** A person's note on an item, and the item's review marks. */
    notes: {
      get: async (uri: string) => call('Notes', 'Get', uri),
      /** Blank markdown deletes the note. */
      put: async (uri: string, markdown: string) => call('Notes', 'Put', uri, markdown),
      delete: async (uri: string) => {
        await call('Notes', 'Delete', uri);
      },
      /** Sets or clears a review mark; the item's marks. */
      setMark: async (uri: string, mark: ReviewMark, on: boolean) => (await call('Marks', 'Set', uri, mark, on)) as ReviewMark[],
    },

    /** The hybrid search (issue 10): weighted components, each hit's breakdown, bridges when asked. */
    hybrid: {
      query: async (q: HybridQuery) => call('Search', 'Hybrid', q),
      /** "How is A connected to B?": node ids or rhizome:node/ URIs; the best few paths of up to 3 edges. */
      connect: async (a: string, b: string, types: string[] = []) =>
        call('Search', 'Connect', a, b, types),
      settings: async () => call('Search', 'SearchSettings'),
      setSettings: async (s: SearchSettings) => call('Search', 'SetSearchSettings', s),
      vectorStatus: async () => call('Search', 'VectorStatus'),
      refreshVectors: async () => call('Search', 'RefreshVectors'),
    },

    /** Consolidation (issue 10, section 3): runs on demand, their logs, undo. */
    memory: {
      consolidate: async (req: ConsolidateRequest) => call('Memory', 'Consolidate', req),
      /** Newest first; limit 0 = 20. */
      runs: async (limit = 0) => call('Memory', 'Runs', limit),
      undo: async (runId: string) => call('Memory', 'Undo', runId),
      /** The cycles the schedule would run now. */
      due: async () => call('Memory', 'Due'),
    },

    /** The patterns dashboard: seven patterns with the nodes behind them, usage over time. */
    dashboard: async () => call('Patterns', 'Dashboard'),

    /** A knowledge-graph node's stored versions, oldest first. */
    nodeVersions: async (nodeId: string) => call('Graph', 'NodeVersions', nodeId),
    /** What changed in a node between two stored versions, field by field. */
    nodeDiff: async (nodeId: string, fromVersion: number, toVersion: number) => call('Graph', 'NodeDiff', nodeId, fromVersion, toVersion),

    /** Loom trees: branching text written with a model (docs/CONTRACT.md, "Loom notes"). */
    loom: {
      /** Most recently changed first. */
      listTrees: async (includeArchived: boolean) =>
        call('Loom', 'ListTrees', includeArchived),
      createTree: async (spec: LoomTreeSpec) => call('Loom', 'CreateTree', spec),
      tree: async (treeId: string) => call('Loom', 'Tree', treeId),
      /** ap.nodeId "" = the remembered active path. */
      activePathView: async (treeId: string, ap: ActivePath, view: AuthorshipView | '' = '') =>
        call('Loom', 'ActivePathView', treeId, activePath(ap), view),
      setActivePath: async (treeId: string, ap: ActivePath) => {
        await call('Loom', 'SetActivePath', treeId, activePath(ap));
      },
      /** The person's continuation of parentId. */
      addNode: async (treeId: string, parentId: string, text: string) =>
        call('Loom', 'AddNode', treeId, parentId, text),
      /** Dialogue mode: a sibling branch; buffer mode: a version. editedFrom = nodeId either way. */
      edit: async (treeId: string, nodeId: string, text: string) =>
        call('Loom', 'Edit', treeId, nodeId, text),
      /** Blocks while the model writes; loom:* events meanwhile. */
      generate: async (req: LoomGenerateRequest) =>
        call('Loom', 'Generate', { ...req, activePath: activePath(req.activePath) }),
      /** Whether it was running. */
      cancelGeneration: async (requestId: string) => (await call('Loom', 'CancelGeneration', requestId)) === true,
      setBookmark: async (treeId: string, nodeId: string, bookmarked: boolean, label = '') =>
        call('Loom', 'SetBookmark', treeId, nodeId, bookmarked, label),
      setPruned: async (treeId: string, nodeId: string, pruned: boolean) =>
        call('Loom', 'SetPruned', treeId, nodeId, pruned),
      setExcluded: async (treeId: string, nodeId: string, excluded: boolean) =>
        call('Loom', 'SetExcluded', treeId, nodeId, excluded),
      /** Creation order. */
      bookmarks: async (treeId: string) => call('Loom', 'Bookmarks', treeId),
      /** The node's version family in creation order; inChain along editedFrom to it. */
      versions: async (treeId: string, nodeId: string) => call('Loom', 'Versions', treeId, nodeId),
      diff: async (treeId: string, fromNodeId: string, toNodeId: string, granularity: DiffGranularity) =>
        call('Loom', 'Diff', treeId, fromNodeId, toNodeId, granularity),
      authorship: async (treeId: string, nodeId: string, view: AuthorshipView) =>
        call('Loom', 'Authorship', treeId, nodeId, view),
      /** Rhizome's lossless JSON ("format": "rhizome.loom-tree"). */
      export: async (treeId: string) => String((await call('Loom', 'Export', treeId)) ?? ''),
      /** Native save dialog (window only): the path written, "" when cancelled. */
      exportToFile: async (treeId: string) => String((await call('Loom', 'ExportToFile', treeId)) ?? ''),
      /** A Rhizome export or a socketteer/loom tree; content is base64. */
      import: async (name: string, contentBase64: string): Promise<LoomImportResult> =>
        call('Loom', 'Import', name, contentBase64),
      /** Loom tree files by path (dropped on the window); rejects naming every file that failed. */
      importPaths: async (paths: string[]): Promise<LoomImportResult[]> =>
        call('Loom', 'ImportPaths', paths),
      /** As import, but a Rhizome export under new ids: a copy beside the tree the library holds. */
      importCopy: async (name: string, contentBase64: string): Promise<LoomImportResult> =>
        call('Loom', 'ImportCopy', name, contentBase64),
      /** As importPaths, each file as importCopy does. */
      importCopyPaths: async (paths: string[]): Promise<LoomImportResult[]> =>
        call('Loom', 'ImportCopyPaths', paths),
      verify: async (treeId: string) => call('Loom', 'Verify', treeId),
      archive: async (treeId: string, archived: boolean) => {
        await call('Loom', 'Archive', treeId, archived);
      },
      /** A new tree whose root is session entry uri's text, linked back to it (DERIVED_FROM); mode "" = dialogue. */
      startFrom: async (uri: string, mode: '' | 'dialogue' | 'buffer' = '') => call('Loom', 'StartFrom', uri, mode),
    },

    /** MemoBrain reasoning graphs (docs/CONTRACT.md, "Reasoning notes"). */
    reasoning: {
      /** Most recently changed first. */
      list: async () => call('Reasoning', 'List'),
      /** The graph now, every node with its content, and its history's steps. */
      open: async (graphId: string) => call('Reasoning', 'Open', graphId),
      /** The graph after the first `step` operations, with the diff of the one that led there. */
      at: async (graphId: string, step: number) => call('Reasoning', 'At', graphId, step),
      /** What operation `index` (from 0) changed. */
      stepDiff: async (graphId: string, index: number) => call('Reasoning', 'StepDiff', graphId, index),
      /** The turns a node stands for, with their messages and session entries. */
      turns: async (graphId: string, nodeId: number) =>
        call('Reasoning', 'Turns', graphId, nodeId),
      /** A memory patch as the model writes it; rejects naming the bad op. */
      applyPatch: async (graphId: string, json: string) => call('Reasoning', 'ApplyPatch', graphId, json),
      /** A flush-and-fold reply; all or nothing, rejects naming the bad op. */
      applyFlushAndFold: async (graphId: string, json: string) =>
        call('Reasoning', 'ApplyFlushAndFold', graphId, json),
      /** MemoBrain messages (a JSON list) as the graph's conversation. */
      attachConversation: async (graphId: string, json: string) =>
        call('Reasoning', 'AttachConversation', graphId, json),
      /** The MemoBrain snapshot. */
      export: async (graphId: string) => String((await call('Reasoning', 'Export', graphId)) ?? ''),
      /** Native save dialog (window only): the path written, "" when cancelled. */
      exportToFile: async (graphId: string) => String((await call('Reasoning', 'ExportToFile', graphId)) ?? ''),
      delete: async (graphId: string) => {
        await call('Reasoning', 'Delete', graphId);
      },
      /** Blocks while the model works; reasoning:progress events meanwhile. */
      runOnSession: async (req: ReasoningRunRequest) => call('Reasoning', 'RunOnSession', req),
      /** Whether it was running. */
      cancelRun: async (requestId: string) => (await call('Reasoning', 'CancelRun', requestId)) === true,
    },

    /** Knowledge nodes: decisions, corrections, facts, questions… (docs/CONTRACT.md, "Knowledge"). */
    knowledge: {
      /** Newest stated first; empty filter fields do not filter. */
      list: async (filter: KnowledgeFilter) => call('Knowledge', 'List', filter),
      /** The item with every version (oldest first) and its chain (newest first). */
      get: async (id: string) => call('Knowledge', 'Get', id),
      /** Recorded by hand (createdBy user); input.supersedes states a supersession too. */
      record: async (input: KnowledgeInput) => call('Knowledge', 'Record', input),
      /** A new version; version is the one the edit started from (refused when someone saved since). */
      edit: async (id: string, version: number, input: KnowledgeInput) =>
        call('Knowledge', 'Edit', id, version, input),
      /** "active" or "stale". */
      setStatus: async (id: string, status: 'active' | 'stale') => call('Knowledge', 'SetStatus', id, status),
      /** newer supersedes older (same kind, no cycle); the chain through newer, newest first. */
      supersede: async (newer: string, older: string, reason: string) =>
        call('Knowledge', 'Supersede', newer, older, reason),
      /** Decisions as supersession chains, newest head first; project "" = every project. */
      decisions: async (project: string) => call('Knowledge', 'Decisions', project),
      /** The project's "## Project Rules" (with the cross-project ones). */
      rules: async (project: string) => call('Knowledge', 'Rules', project),
      /** Open questions, oldest first, on demand; project "" = every project. */
      openQuestions: async (project: string) => call('Knowledge', 'OpenQuestions', project),
      /** Projects holding knowledge ("" = cross-project). */
      projects: async () => call('Knowledge', 'Projects'),
      /** Runs the offline rules again over every session. */
      reextract: async () => call('Knowledge', 'Reextract'),
    },

    /** The model configuration; the API key never comes back, only llm.apiKeySet. */
    /** The model analyzer's queue (issue 9): estimate, budget, start, pause, resume, cancel. */
    analysis: {
      status: async () => call('Analysis', 'Status'),
      /** Items: node ids, session ids or project paths; none: every node the model has not analysed. */
      estimate: async (items: string[]) => call('Analysis', 'Estimate', items),
      start: async (req: AnalysisRequest) => call('Analysis', 'Start', req),
      pause: async () => call('Analysis', 'Pause'),
      resume: async () => call('Analysis', 'Resume'),
      cancel: async () => call('Analysis', 'Cancel'),
      setBudget: async (usd: number) => call('Analysis', 'SetBudget', usd),
    },

    settings: {
      get: async () => (await call('Settings', 'Get')) as SettingsView,
      /** apiKey "" keeps the stored key; clearApiKey forgets it. */
      setLLM: async (input: LLMSettingsInput) => (await call('Settings', 'SetLLM', input)) as SettingsView,
      /** A few tokens from the saved model settings. */
      testLLM: async () => call('Settings', 'TestLLM'),
      /** How summaries are made (offline, or with the summary model); apiKey "" keeps the stored key. */
      setSummaries: async (input: SummarySettingsInput) => (await call('Settings', 'SetSummaries', input)) as SettingsView,
    },

    /** What every session, segment, loom tree and node, and project is about (items are rhizome: URIs). */
    summaries: {
      /** Rejects with a "not found" error while the item has none. */
      get: async (item: string) => call('Summaries', 'Get', item),
      /** A person's edit, kept as a version and never replaced by a model's; "" leaves a field generated. */
      edit: async (item: string, title: string, text: string) => call('Summaries', 'Edit', item, title, text),
      /** Back to the generated summary (the edit stays among the versions). */
      revert: async (item: string) => call('Summaries', 'Revert', item),
      /** Made again in the background; [] = every missing or stale one. */
      regenerate: async (items: string[]) => call('Summaries', 'Regenerate', items),
      queueStatus: async () => call('Summaries', 'QueueStatus'),
      /** Empties the queue and stops what is being made. */
      cancel: async () => call('Summaries', 'Cancel'),
    },

    /** Watched folders: agents' session folders imported as they are written (app/watch.go). */
    watch: {
      folders: async () => call('Watch', 'Folders'),
      setFolderEnabled: async (path: string, enabled: boolean) =>
        call('Watch', 'SetFolderEnabled', path, enabled),
      /** An absolute folder on this machine (window only). */
      addFolder: async (path: string) => call('Watch', 'AddFolder', path),
      /** Native folder dialog (window only); the list unchanged when cancelled. */
      chooseFolder: async () => call('Watch', 'ChooseFolder'),
      /** Only an added folder; a default one is switched off. */
      removeFolder: async (path: string) => call('Watch', 'RemoveFolder', path),
      status: async () => call('Watch', 'Status'),
      start: async () => {
        await call('Watch', 'Start');
      },
      stop: async () => {
        await call('Watch', 'Stop');
      },
    },

    on<E extends EventName>(name: E, cb: (data: EventPayloads[E]) => void): () => void {
      return getTransport().on(name, cb as (d: unknown) => void);
    },
    onFileDrop: (cb: (paths: string[]) => void) => getTransport().onFileDrop(cb),
    openURL: (url: string) => getTransport().openURL(url),
  };
}

export type Api = ReturnType<typeof createApi>;

let transport: Transport | null = null;

/** The app's API, bound to this page's transport on first use. */
export const api: Api = createApi(() => (transport ??= detectTransport()));

/**
 * Binds the page's transport now: in serve mode this takes the token out of
 * the address bar at once (main.ts calls it before anything is drawn).
 */
export function connect(): void {
  transport ??= detectTransport();
}
