// Full-text search over nodes and entries (Search.Query): the query as
// typed, the hits of the last answer, the hit highlighted. Queries are
// debounced; an answer to an older query is dropped.

import { api } from '../api';
import { errorText } from '../format';
import type { SearchHit } from '../types';

const DEBOUNCE_MS = 180;
const LIMIT = 30;

class Search {
  query = $state('');
  hits = $state.raw<SearchHit[]>([]);
  /** The hit Enter jumps to. */
  active = $state(0);
  busy = $state(false);
  error = $state('');

  private seq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** The query changed: asks again after a pause in typing. */
  schedule() {
    clearTimeout(this.timer);
    const q = this.query.trim();
    if (!q) {
      this.hits = [];
      this.error = '';
      this.busy = false;
      return;
    }
    this.busy = true;
    this.timer = setTimeout(() => void this.run(q), DEBOUNCE_MS);
  }

  private async run(q: string) {
    const mine = ++this.seq;
    try {
      const res = await api.search(q, LIMIT);
      if (mine !== this.seq) return;
      this.hits = res;
      this.active = 0;
      this.error = '';
    } catch (e) {
      if (mine !== this.seq) return;
      this.hits = [];
      this.error = errorText(e);
    } finally {
      if (mine === this.seq) this.busy = false;
    }
  }

  /** Moves the highlight by dir, within the hits. */
  move(dir: 1 | -1) {
    this.active = dir > 0 ? Math.min(this.active + 1, this.hits.length - 1) : Math.max(this.active - 1, 0);
  }

  clear() {
    this.query = '';
    this.hits = [];
  }
}

export const search = new Search();
