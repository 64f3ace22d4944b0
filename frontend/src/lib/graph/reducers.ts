// What sigma draws of each node and edge at a given moment: hidden types
// left out, the selected node and the keyboard's cursor ringed, a hovered
// node's neighbourhood kept and the rest dimmed. Read at each render from
// the graph store and the renderer's emphasis.

import type { EdgeDisplayData, NodeDisplayData } from 'sigma/types';
import { graph } from './graph.svelte';
import type { EdgeAttrs, Model, NodeAttrs } from './model';

/** The renderer's emphasis at render time. */
export interface Emphasis {
  /** The node under the pointer. */
  readonly hovered: string | null;
  /** It and its neighbours (the rest is dimmed). */
  readonly neighbours: Set<string> | null;
  /** The keyboard's cursor is drawn. */
  readonly cursorShown: boolean;
  /** The colour of a dimmed node (a theme colour). */
  readonly dim: string;
  /** While a large graph is zoomed out: a node's cluster colour (its label left to the cluster's); null otherwise. */
  readonly clusterColor: ((id: string) => string | undefined) | null;
}

type NodeDrawn = Partial<NodeDisplayData> & NodeAttrs;
type EdgeDrawn = Partial<EdgeDisplayData> & EdgeAttrs;

export function nodeReducer(em: Emphasis) {
  return (id: string, attrs: NodeAttrs): NodeDrawn => {
    const res: NodeDrawn = { ...attrs };
    if (graph.hiddenNodeTypes.has(attrs.kind) || (graph.focusSet && !graph.focusSet.has(id))) {
      res.hidden = true;
      return res;
    }
    const path = graph.path;
    if (path && path.includes(id)) {
      res.highlighted = true;
      res.size = attrs.size * (id === path[0] || id === path[path.length - 1] ? 1.8 : 1.5);
      res.zIndex = 3;
      res.forceLabel = true;
      return res;
    }
    if (path) {
      res.color = em.dim;
      res.label = '';
      res.zIndex = 0;
      return res;
    }
    if (id === graph.selected) {
      res.highlighted = true;
      res.size = attrs.size * 1.5;
      res.zIndex = 2;
    } else if (em.cursorShown && id === graph.cursor) {
      res.highlighted = true;
      res.zIndex = 2;
    } else if (em.neighbours && !em.neighbours.has(id)) {
      res.color = em.dim;
      res.label = '';
      res.zIndex = 0;
    } else if (em.clusterColor) {
      res.color = em.clusterColor(id) ?? em.dim;
      res.label = '';
      res.zIndex = 1;
    } else {
      res.zIndex = 1;
    }
    return res;
  };
}

export function edgeReducer(model: Model, em: Emphasis) {
  return (id: string, attrs: EdgeAttrs): EdgeDrawn => {
    if (graph.hiddenEdgeTypes.has(attrs.kind)) return { ...attrs, hidden: true };
    const path = graph.path;
    if (path) {
      const [s, t] = model.extremities(id);
      const i = path.indexOf(s);
      const j = path.indexOf(t);
      if (i >= 0 && j >= 0 && Math.abs(i - j) === 1) return { ...attrs, size: attrs.size * 3, zIndex: 3, forceLabel: true };
      return { ...attrs, hidden: true };
    }
    const sel = graph.selected;
    const hovered = em.hovered;
    const hiddenNodes = graph.hiddenNodeTypes;
    const focus = graph.focusSet;
    if (!sel && !hovered && hiddenNodes.size === 0 && !focus) return attrs;
    const [s, t] = model.extremities(id);
    if (focus && (!focus.has(s) || !focus.has(t))) return { ...attrs, hidden: true };
    if (hiddenNodes.size > 0 && (hiddenNodes.has(model.getNodeAttribute(s, 'kind')) || hiddenNodes.has(model.getNodeAttribute(t, 'kind')))) {
      return { ...attrs, hidden: true };
    }
    if (sel && (s === sel || t === sel)) return { ...attrs, size: attrs.size * 2 };
    if (hovered && s !== hovered && t !== hovered) return { ...attrs, hidden: true };
    return attrs;
  };
}
