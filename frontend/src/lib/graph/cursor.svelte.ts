// The graph without a mouse: a cursor on a node (graph.cursor), moved by
// the arrow keys along edges (keyboard.ts), Enter opens its node. While the
// keyboard moves it, it is drawn with its tooltip, until the graph loses
// the focus.

import type Sigma from 'sigma';
import { graph } from './graph.svelte';
import type { Hover } from './hover.svelte';
import { nodeTipAt } from './hover.svelte';
import { ARROWS, stepFrom } from './keyboard';
import type { EdgeAttrs, Model, NodeAttrs } from './model';

/** What the cursor moves over (GraphRenderer). */
export interface CursorHost {
  readonly model: Model;
  readonly sigma: Sigma<NodeAttrs, EdgeAttrs> | null;
  /** Node ids lane by lane: where the keyboard starts. */
  readonly order: string[];
  readonly hover: Hover;
  center(id: string, zoom: boolean): void;
}

export class KeyboardCursor {
  /** The arrow keys moved the cursor: it is drawn, with its tooltip, until the graph loses the focus. */
  active = $state(false);

  constructor(private host: CursorHost) {}

  /** Whether node id is drawn (its type not hidden). */
  shown(id: string): boolean {
    const m = this.host.model;
    return m.hasNode(id) && !graph.hiddenNodeTypes.has(m.getNodeAttribute(id, 'kind'));
  }

  /** Where node id is drawn in the view (pixels), null when it is not drawn. */
  private screenOf(id: string) {
    const s = this.host.sigma;
    if (!s || !this.shown(id)) return null;
    const a = this.host.model.getNodeAttributes(id);
    return s.graphToViewport({ x: a.x, y: a.y });
  }

  /** The drawn nodes joined to node id by a drawn edge. */
  private linked(id: string): string[] {
    const out: string[] = [];
    this.host.model.forEachEdge(id, (_e, a, source, target) => {
      if (graph.hiddenEdgeTypes.has(a.kind)) return;
      const other = source === id ? target : source;
      if (other !== id && this.shown(other)) out.push(other);
    });
    return out;
  }

  /** Where the keyboard starts: the first segment of the first lane drawn. */
  private firstNode(): string | null {
    for (const id of this.host.order) if (this.shown(id)) return id;
    return this.host.model.findNode((id) => this.shown(id)) ?? null;
  }

  /** The canvas got the focus; focusVisible: by the keyboard (Tab), so show where the cursor is. */
  focus(focusVisible: boolean) {
    const c = graph.cursor;
    if (!c || !this.shown(c)) graph.cursor = graph.selected && this.shown(graph.selected) ? graph.selected : this.firstNode();
    if (focusVisible && graph.cursor) this.moveTo(graph.cursor);
  }

  /** The canvas lost the focus (not to the node list): the cursor is no longer drawn. */
  blur() {
    this.active = false;
    const { hover } = this.host;
    if (hover.tooltip && hover.tooltip.node.id === graph.cursor && hover.tooltip.node.id !== hover.node) hover.tooltip = null;
  }

  /** Arrow keys move the cursor (along an edge when one goes that way), Enter opens its node. */
  key(e: KeyboardEvent) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const dir = ARROWS[e.key];
    if (dir) {
      e.preventDefault();
      const from = graph.cursor && this.shown(graph.cursor) ? graph.cursor : this.firstNode();
      if (!from) return;
      const next =
        from === graph.cursor
          ? stepFrom(from, dir, (id) => this.screenOf(id), (id) => this.linked(id), this.host.model.nodes())
          : from;
      if (next) this.moveTo(next);
      return;
    }
    if (e.key === 'Enter' && graph.cursor && this.shown(graph.cursor)) {
      e.preventDefault();
      this.host.hover.tooltip = null;
      void graph.selectNode(graph.cursor);
    }
  }

  /** Puts the cursor on node id, in view, with its tooltip. */
  moveTo(id: string) {
    graph.cursor = id;
    this.active = true;
    this.host.center(id, false);
    this.placeTip();
  }

  /** The cursor's tooltip beside its node (the arrow keys' hover). */
  placeTip() {
    const { sigma, hover } = this.host;
    if (!sigma || !this.active || !graph.cursor || hover.node) return;
    const n = graph.nodeById.get(graph.cursor);
    const p = this.screenOf(graph.cursor);
    if (!n || !p) return;
    const { width, height } = sigma.getDimensions();
    const tip = nodeTipAt(p, width, height, n, 16);
    const t = hover.tooltip;
    if (t?.node.id !== n.id || Math.abs(t.x - tip.x) > 0.5 || Math.abs(t.y - tip.y) > 0.5) hover.tooltip = tip;
  }
}
