// Links between items (Links.*): the relation vocabulary, the "Link to…"
// dialog (choose a target with the picker, then the type), and a version
// that bumps when links or notes change anywhere (links:changed,
// notes:changed), so that every Links and Notes panel shown reads again.

import { api } from '../api';
import { graph } from '../graph/graph.svelte';
import { errorText } from '../format';
import { toasts } from '../toasts/toasts.svelte';
import type { ItemView, LinksOf, LinkView, RelationView } from '../types';

/** The "Link to…" dialog: from source, to a target chosen with the picker (step "pick"), then of a type (step "type"). */
export interface LinkDraft {
  source: string;
  /** What the dialog says the source is ("this node"). */
  sourceTitle: string;
  target: ItemView | null;
  step: 'pick' | 'type';
}

class Links {
  relations = $state.raw<RelationView[]>([]);
  /** Bumps when links change (links:changed): panels read again. */
  version = $state(0);
  /** Bumps when notes or marks change (notes:changed). */
  notesVersion = $state(0);
  draft = $state<LinkDraft | null>(null);
  saving = $state(false);
  /** The last link made by the dialog (tests and the panel's flash). */
  lastMade = $state.raw<LinkView | null>(null);

  private loading: Promise<void> | null = null;

  /** Subscribes to link and note events; returns the unsubscribe. */
  listen(): () => void {
    const offs = [
      api.on('links:changed', (p) => {
        this.version++;
        // A link between graph nodes is drawn: the graph reads again.
        if (p?.items?.some((u) => u.startsWith('rhizome:node/'))) void graph.load();
      }),
      api.on('notes:changed', () => {
        this.notesVersion++;
        this.version++; // a note's mentions may have made links
      }),
      api.on('library:changed', () => this.version++), // a re-import may have taken a target away
    ];
    return () => offs.forEach((off) => off());
  }

  /** The vocabulary, read once. */
  loadRelations(): Promise<void> {
    this.loading ??= api.links
      .relations()
      .then((r) => {
        this.relations = r;
      })
      .catch((e) => {
        this.loading = null;
        toasts.fail(e);
      });
    return this.loading;
  }

  relation(type: string): RelationView | undefined {
    return this.relations.find((r) => r.type === type);
  }

  /** Opens "Link to…" from source (a URI); with target, straight at the type. */
  linkFrom(source: string, sourceTitle = 'this item', target: ItemView | null = null) {
    void this.loadRelations();
    this.draft = { source, sourceTitle, target, step: target ? 'type' : 'pick' };
  }

  /** A graph node dropped on another: "Link to…" from a to b, at the type. */
  async linkNodes(a: string, b: string) {
    try {
      const target = await api.links.resolve(`rhizome:node/${b}`);
      const label = graph.nodeById.get(a)?.label;
      this.linkFrom(`rhizome:node/${a}`, label ? `“${label}”` : 'this node', target);
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** The picker chose the target. */
  choose(target: ItemView) {
    if (!this.draft) return;
    this.draft = { ...this.draft, target, step: 'type' };
  }

  /** Back from the type to the picker. */
  back() {
    if (this.draft) this.draft = { ...this.draft, target: null, step: 'pick' };
  }

  close() {
    this.draft = null;
  }

  /** Makes the drafted link of type with note; closes the dialog. Whether it was made. */
  async create(type: string, note: string): Promise<boolean> {
    const d = this.draft;
    if (!d?.target || this.saving) return false;
    this.saving = true;
    try {
      this.lastMade = await api.links.create({ source: d.source, target: d.target.uri, type, note });
      this.draft = null;
      this.version++;
      return true;
    } catch (e) {
      toasts.fail(e);
      return false;
    } finally {
      this.saving = false;
    }
  }

  async update(id: string, type: string, note: string) {
    try {
      await api.links.update(id, type, note);
      this.version++;
    } catch (e) {
      toasts.fail(e);
    }
  }

  async remove(id: string) {
    try {
      await api.links.delete(id);
      this.version++;
    } catch (e) {
      toasts.fail(e);
    }
  }
}

export const links = new Links();

/**
 * One item's links as a panel shows them (Links.Of): read again on load
 * (the panel calls it when the item or links.version changes); the link
 * deleted last, to undo.
 */
export class ItemLinks {
  data = $state.raw<LinksOf | null>(null);
  error = $state('');
  /** The link deleted last (Undo makes it again), until another is deleted or the item changes. */
  deleted = $state.raw<LinkView | null>(null);

  private seq = 0;

  constructor(private uri: string) {}

  load(uri: string) {
    if (uri !== this.uri) {
      this.uri = uri;
      this.data = null;
      this.deleted = null;
    }
    const mine = ++this.seq;
    api.links
      .of(uri)
      .then((d) => {
        if (mine !== this.seq) return;
        this.data = d;
        this.error = '';
      })
      .catch((e) => {
        if (mine === this.seq) this.error = errorText(e);
      });
  }

  /** Sets l's type and note; whether it was saved. */
  async change(l: LinkView, type: string, note: string): Promise<boolean> {
    try {
      await api.links.update(l.id, type === l.type ? '' : type, note);
      links.version++;
      return true;
    } catch (e) {
      toasts.fail(e);
      return false;
    }
  }

  async remove(l: LinkView) {
    try {
      await api.links.delete(l.id);
      this.deleted = l;
      links.version++;
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Makes the deleted link again: same ends, type and note (a new id). */
  async undo() {
    const l = this.deleted;
    if (!l) return;
    try {
      await api.links.create({ source: l.source, target: l.target, type: l.type, note: l.note ?? '' });
      this.deleted = null;
      links.version++;
    } catch (e) {
      toasts.fail(e);
    }
  }
}
