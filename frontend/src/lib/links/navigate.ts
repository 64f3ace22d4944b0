// Opening an item by its URI, wherever it lives (Links.Resolve says where):
// a knowledge-graph node in the graph, a message at its place in its node's
// list (highlighting the words given), a loom tree or node in the loom, a
// reasoning graph or node in the reasoning view, a note on the item it is
// about, a URL outside the app. The window opens
// rhizome: links in place: links, mentions, search hits and markdown hrefs
// all come here.

import { api } from '../api';
import { graph } from '../graph/graph.svelte';
import { loom } from '../loom/loom.svelte';
import { nodeReader } from '../node/node.svelte';
import { reasoning } from '../reasoning/reasoning.svelte';
import { showHits } from '../search/highlight';
import { toasts } from '../toasts/toasts.svelte';
import type { ItemView } from '../types';
import { views } from '../views/views.svelte';

export interface OpenOptions {
  /** Words to highlight in the message opened (a search's matches). */
  terms?: string[];
}

/** Opens item (a URI, or one already resolved); says why when it cannot. */
export async function openItem(item: string | ItemView, opts: OpenOptions = {}): Promise<void> {
  let v: ItemView;
  try {
    v = typeof item === 'string' ? await api.links.resolve(item) : item;
  } catch (e) {
    toasts.fail(e);
    return;
  }
  if (!v.exists) {
    toasts.fail(`${v.title || v.uri} is no longer in the library (the link's target is gone).`);
    return;
  }
  const o = v.open;
  if (o.noteOf) {
    // A note opens the item it is on, the note in view with the words found.
    await openItem(o.noteOf);
    await highlightIn(`[data-testid=notes-panel][data-item="${CSS.escape(o.noteOf)}"] [data-testid=note-text]`, opts.terms ?? []);
    return;
  }
  switch (o.view) {
    case 'graph':
      if (o.knowledgeId) {
        // A knowledge item: its segment's scope first, then the item beside it.
        views.show('graph');
        if (o.nodeId) await graph.selectNode(o.nodeId, true);
        else if (o.project) await graph.selectProject(o.project);
        if (graph.nodeById.has(o.knowledgeId)) await graph.selectNode(o.knowledgeId, true);
        return;
      }
      if (o.nodeId) {
        if (o.entryId) nodeReader.openAt({ nodeId: o.nodeId, entryId: o.entryId, offset: o.entryOffset ?? 0, terms: opts.terms ?? [] });
        views.show('graph');
        await graph.selectNode(o.nodeId, true);
      } else if (o.project) {
        views.show('graph');
        await graph.selectProject(o.project);
      }
      return;
    case 'loom':
      if (!o.treeId) return;
      views.show('loom');
      if (!loom.list.loaded) await loom.list.load();
      await loom.tree.open(o.treeId, { nodeId: o.loomNodeId ?? '' });
      if (o.loomNodeId) {
        loom.path.focus = o.loomNodeId;
        if (opts.terms?.length) await highlightLoomNode(o.loomNodeId, opts.terms);
      }
      return;
    case 'reasoning': {
      if (!o.reasoningId) return;
      // Open the graph before the view shows, so that the view does not
      // open its first graph instead.
      if (reasoning.id !== o.reasoningId) await reasoning.open(o.reasoningId);
      views.show('reasoning');
      if (o.reasoningNode) {
        const id = Number(o.reasoningNode);
        reasoning.setStep(reasoning.view?.step ?? 0);
        await reasoning.select(id);
        reasoning.controls?.reveal(id);
      }
      return;
    }
    case 'external':
      if (o.url && /^https?:/i.test(o.url)) api.openURL(o.url);
      else toasts.fail(`A file outside the library: ${o.url}`);
      return;
  }
}

/** Highlights terms in loom node id once the reading pane shows it. */
const highlightLoomNode = (id: string, terms: string[]) => highlightIn(`[data-testid=loom-step][data-node-id="${CSS.escape(id)}"]`, terms);

/** Scrolls to what selector finds once it is drawn (a second at most) and highlights terms in it. */
async function highlightIn(selector: string, terms: string[]) {
  for (let i = 0; i < 60; i++) {
    const el = document.querySelector(selector);
    if (el) {
      el.scrollIntoView({ block: 'nearest' });
      showHits(el, terms);
      return;
    }
    await new Promise((r) => setTimeout(r, 16));
  }
}

/** The words a search snippet marks as matches (between \u0001 and \u0002). */
export function snippetTerms(snippet: string): string[] {
  const out = new Set<string>();
  for (const m of snippet.matchAll(/\u0001([^\u0002]*)\u0002/g)) {
    const t = m[1].trim();
    if (t) out.add(t);
  }
  return [...out];
}

/**
 * "Start a loom from here": a new loom tree whose root is session entry
 * uri's text, linked back to it (DERIVED_FROM); the loom view opens on it.
 */
export async function startLoomFrom(uri: string): Promise<void> {
  try {
    const v = await api.loom.startFrom(uri);
    views.show('loom');
    void loom.list.load();
    await loom.tree.open(v.tree.id, v.activePath);
  } catch (e) {
    toasts.fail(e);
  }
}
