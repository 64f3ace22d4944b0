// The item picker's search (Search.Items): the query as typed, the items of
// the last answer, the one highlighted. Debounced; an answer to an older
// query is dropped. One per picker shown ("Link to…", a [[mention]]).

import { api } from '../api';
import { errorText } from '../format';
import type { ItemHit, ItemKind } from '../types';

const DEBOUNCE_MS = 120;

export class PickerSearch {
  query = $state('');
  hits = $state.raw<ItemHit[]>([]);
  active = $state(0);
  busy = $state(false);
  error = $state('');
  /** The query of the hits shown (null before the first answer). */
  answered = $state<string | null>(null);

  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /**
   * exclude: a URI never offered (the item being linked from); kinds: the
   * kinds offered (none: all); limit: items of each kind.
   */
  constructor(
    private exclude = '',
    private kinds: ItemKind[] = [],
    private limit = 6,
  ) {}

  /** Asks for query q after a pause in typing (at once when now). */
  schedule(q = this.query, now = false) {
    this.query = q;
    clearTimeout(this.timer);
    this.busy = true;
    if (now) void this.run(q);
    else this.timer = setTimeout(() => void this.run(q), DEBOUNCE_MS);
  }

  private async run(q: string) {
    const mine = ++this.seq;
    try {
      const res = await api.searchItems(q.trim(), this.kinds, this.limit);
      if (mine !== this.seq) return;
      this.hits = res.filter((h) => h.item.uri !== this.exclude);
      this.active = 0;
      this.error = '';
      this.answered = q;
    } catch (e) {
      if (mine !== this.seq) return;
      this.hits = [];
      this.error = errorText(e);
    } finally {
      if (mine === this.seq) this.busy = false;
    }
  }

  move(dir: 1 | -1) {
    if (!this.hits.length) return;
    this.active = (this.active + dir + this.hits.length) % this.hits.length;
  }

  get current(): ItemHit | undefined {
    return this.hits[this.active];
  }

  stop() {
    clearTimeout(this.timer);
    this.seq++;
  }
}

/** Words for an item kind, as the picker and the panels show it. */
export const KIND_LABELS: Record<ItemKind, string> = {
  node: 'node',
  session: 'session',
  entry: 'message',
  loom: 'loom tree',
  loomNode: 'loom node',
  project: 'project',
  note: 'note',
  knowledge: 'knowledge',
  reasoning: 'reasoning graph',
  reasoningNode: 'reasoning node',
  url: 'web',
  file: 'file',
};
