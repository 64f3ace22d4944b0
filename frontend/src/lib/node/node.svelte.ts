// The node open in the right panel: what the segment did (Graph.Node) and
// its entries, a page at a time as the list scrolls (Library.SegmentEntries),
// and its stored versions and their diffs (Graph.NodeVersions, NodeDiff).
// Opened at an entry (a search hit, a link to a message), the list starts at
// the page holding it, earlier entries a page at a time above.

import { api } from '../api';
import { errorText } from '../format';
import type { EntryView, NodeDetail } from '../types';

/** An entry to open a node at: its place in the segment, and words to highlight in it. */
export interface EntryFocus {
  nodeId: string;
  entryId: string;
  offset: number;
  terms: string[];
}

/** How many entries above the one opened at are shown with it. */
const CONTEXT_BEFORE = 5;

class NodeReader {
  /** The node shown ("" = none yet). */
  id = $state('');
  detail = $state.raw<NodeDetail | null>(null);
  /** The segment's entries loaded so far, from its first; more come a page at a time as the list scrolls. */
  entries = $state.raw<EntryView[]>([]);
  /** Entries in the segment (0 until the first page came). */
  total = $state(0);
  error = $state('');
  loading = $state(true);
  entriesLoading = $state(true);
  moreLoading = $state(false);
  moreError = $state('');
  /** The segment offset of entries[0] (0 unless opened at an entry further down). */
  first = $state(0);
  earlierLoading = $state(false);
  /** The entry to show and highlight once the node opens (set before selecting it). */
  focus = $state.raw<EntryFocus | null>(null);

  /** The next open of node focus.nodeId starts at the page holding focus's entry. */
  openAt(focus: EntryFocus) {
    this.focus = focus;
  }

  /** Shows node id: its detail and the first page of its entries (or the page of the entry it is opened at). */
  open(id: string) {
    const at = this.focus?.nodeId === id ? Math.max(0, this.focus.offset - CONTEXT_BEFORE) : 0;
    if (this.focus && this.focus.nodeId !== id) this.focus = null;
    this.first = at;
    this.id = id;
    this.detail = null;
    this.entries = [];
    this.total = 0;
    this.error = '';
    this.moreError = '';
    this.loading = true;
    this.entriesLoading = true;
    this.moreLoading = false;
    api
      .node(id)
      .then((d) => {
        if (id === this.id) this.detail = d;
      })
      .catch((e) => {
        if (id === this.id) this.error = errorText(e);
      })
      .finally(() => {
        if (id === this.id) this.loading = false;
      });
    api
      .segmentEntries(id, at)
      .then((p) => {
        if (id !== this.id) return;
        this.entries = p.entries;
        this.total = p.total;
      })
      .catch((e) => {
        if (id === this.id) this.error = errorText(e);
      })
      .finally(() => {
        if (id === this.id) this.entriesLoading = false;
      });
  }

  /** Reads the node's detail again (its summary changed), its entries left as they are. */
  async reloadDetail() {
    const id = this.id;
    if (!id) return;
    try {
      const d = await api.node(id);
      if (id === this.id) this.detail = d;
    } catch {
      // The detail shown stays; the next open reads it again.
    }
  }

  /** Whether the segment has entries not loaded yet, and none is on its way. */
  get canLoadMore(): boolean {
    return !this.moreLoading && !this.entriesLoading && this.first + this.entries.length < this.total;
  }

  /** Loads the page before the first entry shown (a node opened at an entry further down). */
  loadEarlier() {
    if (this.entriesLoading || this.earlierLoading || this.first === 0) return;
    const id = this.id;
    const from = Math.max(0, this.first - 100);
    const count = this.first - from;
    this.earlierLoading = true;
    api
      .segmentEntries(id, from, count)
      .then((p) => {
        if (id !== this.id || from + count !== this.first) return;
        this.entries = [...p.entries, ...this.entries];
        this.first = from;
      })
      .catch((e) => {
        if (id === this.id) this.moreError = errorText(e);
      })
      .finally(() => {
        if (id === this.id) this.earlierLoading = false;
      });
  }

  /**
   * Loads the next page of the segment's entries, unless one is on its way or
   * all are here. After a failure only the person's retry asks again.
   */
  loadMore(retry = false) {
    if (this.entriesLoading || this.moreLoading || this.first + this.entries.length >= this.total || (this.moreError && !retry)) return;
    const id = this.id;
    const offset = this.first + this.entries.length;
    this.moreLoading = true;
    this.moreError = '';
    api
      .segmentEntries(id, offset)
      .then((p) => {
        // A page for another node, or one that no longer follows the list, is dropped.
        if (id !== this.id || offset !== this.first + this.entries.length) return;
        this.entries = [...this.entries, ...p.entries];
        this.total = p.total;
      })
      .catch((e) => {
        if (id === this.id) this.moreError = errorText(e);
      })
      .finally(() => {
        if (id === this.id) this.moreLoading = false;
      });
  }

  /** The stored versions of node id, oldest first. */
  versions(id: string) {
    return api.nodeVersions(id);
  }

  /** What changed in node id between two of its versions. */
  diff(id: string, from: number, to: number) {
    return api.nodeDiff(id, from, to);
  }
}

export const nodeReader = new NodeReader();
