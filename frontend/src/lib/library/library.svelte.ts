// The library of sessions: its totals, projects and sessions, and the part
// of it the window looks at (a project, a session, a date range). The
// graph, the timeline and any later view of sessions read the scope here
// and reload through onReload when the library changes.

import { api } from '../api';
import { baseName } from '../format';
import { toasts } from '../toasts/toasts.svelte';
import type { GraphFilter, Project, SessionSummary, Stats } from '../types';

class Library {
  stats = $state<Stats | null>(null);
  projects = $state.raw<Project[]>([]);
  sessions = $state.raw<SessionSummary[]>([]);
  /** "" = all projects. */
  project = $state('');
  /** "" = no session selected (the graph shows the project). */
  session = $state('');
  /** Days (YYYY-MM-DD), "" = open-ended. */
  from = $state('');
  to = $state('');
  /** The sidebar's filter text (the session lists and the loom trees share it). */
  listFilter = $state('');

  /** Sessions by id, for names in lanes and panels. */
  sessionById = $derived(new Map(this.sessions.map((s) => [s.id, s])));
  /** Project names by path, as Library.Projects gives them. */
  private projectNames = $derived(new Map(this.projects.map((p) => [p.path, p.name])));

  /**
   * What a project is called wherever it is shown: the shortest end of its
   * path no other project of the library shares (named in Go,
   * backend/project); the last element of a path the library does not list.
   */
  projectName = (path: string): string => this.projectNames.get(path) || baseName(path);

  /** What the graph of the scope is asked with (Graph.Graph). */
  get filter(): GraphFilter {
    const f: GraphFilter = {};
    if (this.session) f.sessionId = this.session;
    else if (this.project) f.project = this.project;
    if (this.from) f.from = this.from;
    if (this.to) f.to = `${this.to}T23:59:59.999Z`;
    return f;
  }

  private reloaders: (() => Promise<void>)[] = [];
  private refreshTimer: ReturnType<typeof setTimeout> | undefined;

  /** reload runs with every refresh, beside the library's own lists (a view of the library's data). */
  onReload(reload: () => Promise<void>) {
    this.reloaders.push(reload);
  }

  /** Subscribes to library:changed; returns the unsubscribe. */
  listen(): () => void {
    return api.on('library:changed', () => this.requestRefresh());
  }

  /** Coalesces bursts of library:changed into one refresh. */
  requestRefresh() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(() => void this.refresh(), 150);
  }

  /** Reloads everything shown (after start-up, an import and on library:changed). */
  async refresh() {
    try {
      const [stats, projects, sessions] = await Promise.all([api.stats(), api.projects(), api.sessions(this.project)]);
      this.stats = stats;
      this.projects = projects;
      this.sessions = sessions;
    } catch (e) {
      toasts.fail(e);
    }
    await Promise.all(this.reloaders.map((r) => r()));
  }

  /** Looks at project: its sessions are loaded (throws Go's error). */
  async setProject(project: string) {
    this.project = project;
    this.sessions = await api.sessions(project);
  }
}

export const library = new Library();
