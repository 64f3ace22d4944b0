// The knowledge view's state: the project looked at, its decisions as
// supersession chains, its rules, its open questions (loaded on demand,
// never with the rest: context-graph-dag.md "Open Questions"), and the
// record form (a new item, or one that supersedes another).

import { api } from '../api';
import { library } from '../library/library.svelte';
import { toasts } from '../toasts/toasts.svelte';
import type { KnowledgeChain, KnowledgeItem, KnowledgeKind, ProjectRules } from '../types';
import { emptyFields, KIND_FIELDS, KIND_LABELS, missing, toFields } from './fields';

/** Whether the kind's first field is a choice (no text to carry over into it). */
const KIND_OPTIONS_FIRST = (kind: KnowledgeKind) => !!KIND_FIELDS[kind][0]?.options;

export type KnowledgeTab = 'decisions' | 'rules' | 'questions';

/** An item's fields as the form's text values. */
function valuesOf(item: KnowledgeItem): Record<string, string> {
  const v = emptyFields(item.kind);
  for (const k of Object.keys(v)) {
    const cur = (item.fields as Record<string, unknown>)[k];
    if (Array.isArray(cur)) v[k] = cur.join('\n');
    else if (typeof cur === 'string' && cur) v[k] = cur;
  }
  return v;
}

class RecordForm {
  open = $state(false);
  kind = $state<KnowledgeKind>('decision');
  project = $state('');
  values = $state<Record<string, string>>(emptyFields('decision'));
  /** The segment node the item comes from (the node panel's Record button), "" for none. */
  nodeId = $state('');
  nodeLabel = $state('');
  /** The item the new one supersedes, when the form was opened by Supersede. */
  supersedes = $state<KnowledgeItem | null>(null);
  /** The item edited (a new version of it), when the form was opened by Edit. */
  editing = $state<KnowledgeItem | null>(null);
  reason = $state('');
  error = $state('');
  saving = $state(false);

  /** Opens an empty form for kind in project. */
  start(kind: KnowledgeKind, project: string) {
    this.kind = kind;
    this.project = project;
    this.values = emptyFields(kind);
    this.supersedes = null;
    this.editing = null;
    this.reason = '';
    this.error = '';
    this.nodeId = '';
    this.nodeLabel = '';
    this.open = true;
  }

  /** Opens the form for an item found in a segment: its node, its project, the selected text as the first field. */
  startFromNode(nodeId: string, label: string, project: string, text: string) {
    this.start('decision', project);
    this.nodeId = nodeId;
    this.nodeLabel = label;
    const first = Object.keys(this.values)[0];
    if (first && text.trim()) this.values = { ...this.values, [first]: text.trim().replace(/\s+/g, ' ') };
  }

  /** Opens the form for the item that will supersede older: same kind, same project, its text to start from. */
  startSupersede(older: KnowledgeItem) {
    this.start(older.kind, older.project);
    this.values = valuesOf(older);
    this.supersedes = older;
  }

  /** Opens the form on item's current text: saving makes its next version. */
  startEdit(item: KnowledgeItem) {
    this.start(item.kind, item.project);
    this.values = valuesOf(item);
    this.editing = item;
  }

  /** Another kind: the first field's text carries over. */
  setKind(kind: KnowledgeKind) {
    const carried = Object.values(this.values)[0] ?? '';
    this.kind = kind;
    const v = emptyFields(kind);
    const first = Object.keys(v)[0];
    if (first && carried && !KIND_OPTIONS_FIRST(kind)) v[first] = carried;
    this.values = v;
  }

  close() {
    this.open = false;
    this.error = '';
  }
}

class Knowledge {
  tab = $state<KnowledgeTab>('decisions');
  /** "" = every project (decisions); rules and questions of "" are the cross-project ones. */
  project = $state('');
  /** Projects that hold knowledge, "" for the cross-project items. */
  projects = $state.raw<string[]>([]);
  decisions = $state.raw<KnowledgeChain[]>([]);
  rules = $state.raw<ProjectRules | null>(null);
  /** null until asked for. */
  questions = $state.raw<KnowledgeItem[] | null>(null);
  loading = $state(false);
  loaded = $state(false);
  copied = $state(false);
  /** What the last re-run of the offline rules did, "" before one. */
  reextracted = $state('');
  reextracting = $state(false);
  form = new RecordForm();
  private started = false;

  /** Every project to choose from: the library's and those holding knowledge. */
  allProjects = $derived([...new Set([...library.projects.map((p) => p.path), ...this.projects.filter(Boolean)])].sort());

  /** Called each time the view is shown. */
  async start() {
    if (!this.started) {
      this.started = true;
      library.onReload(() => this.reload());
      if (library.project) this.project = library.project;
    }
    await this.reload();
  }

  async reload() {
    this.loading = true;
    try {
      const [projects, decisions, rules] = await Promise.all([
        api.knowledge.projects(),
        api.knowledge.decisions(this.project),
        api.knowledge.rules(this.project),
      ]);
      this.projects = projects;
      this.decisions = decisions;
      this.rules = rules;
      if (this.questions !== null) this.questions = await api.knowledge.openQuestions(this.project);
      this.loaded = true;
    } catch (e) {
      toasts.fail(e);
    } finally {
      this.loading = false;
    }
  }

  async setProject(p: string) {
    this.project = p;
    this.questions = null;
    await this.reload();
  }

  async setTab(t: KnowledgeTab) {
    this.tab = t;
    if (t === 'questions') await this.loadQuestions();
  }

  /** Open questions, on demand. */
  async loadQuestions() {
    try {
      this.questions = await api.knowledge.openQuestions(this.project);
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Copies the rules' Markdown to the clipboard. */
  async copyRules() {
    if (!this.rules) return;
    try {
      await navigator.clipboard.writeText(this.rules.markdown);
      this.copied = true;
      setTimeout(() => (this.copied = false), 1500);
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Saves the record form: a new item, superseding form.supersedes when set. */
  async save() {
    const f = this.form;
    const gap = missing(f.kind, f.values);
    if (gap) {
      f.error = `${KIND_LABELS[f.kind]}: “${gap.label}” is required.`;
      return;
    }
    f.saving = true;
    f.error = '';
    try {
      const input = {
        kind: f.kind,
        project: f.project,
        fields: toFields(f.kind, f.values),
        confidence: 0,
        topics: f.editing?.topics ?? [],
        segmentNodeId: f.nodeId,
        entryIds: [],
        supersedes: f.supersedes?.id ?? '',
        reason: f.reason,
      };
      if (f.editing) await api.knowledge.edit(f.editing.id, f.editing.version, input);
      else await api.knowledge.record(input);
      f.close();
      if (f.kind === 'projectFact') this.tab = 'rules';
      else if (f.kind === 'question' && this.tab === 'questions') await this.loadQuestions();
      else if (f.kind === 'decision') this.tab = 'decisions';
      await this.reload();
    } catch (e) {
      f.error = e instanceof Error ? e.message : String(e);
    } finally {
      f.saving = false;
    }
  }

  /** Runs the offline rules again over every session (after they changed). */
  async reextract() {
    this.reextracting = true;
    try {
      const r = await api.knowledge.reextract();
      this.reextracted = `${r.sessions} session${r.sessions === 1 ? '' : 's'} read again: ${r.before} → ${r.after} items`;
      await this.reload();
    } catch (e) {
      toasts.fail(e);
    } finally {
      this.reextracting = false;
    }
  }

  /** Marks an item stale (kept, out of the rules) or active again. */
  async setStatus(item: KnowledgeItem, status: 'active' | 'stale') {
    try {
      await api.knowledge.setStatus(item.id, status);
      await this.reload();
    } catch (e) {
      toasts.fail(e);
    }
  }
}

export const knowledge = new Knowledge();
