// The node open in the right panel: what the segment did (Graph.Node) and
// its entries, a page at a time as the list scrolls (Library.SegmentEntries),
// and its stored versions and their diffs (Graph.NodeVersions, NodeDiff).

import { api } from '../api';
import { errorText } from '../format';
import type { EntryView, NodeDetail } from '../types';

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

  /** Shows node id: its detail and the first page of its entries. */
  open(id: string) {
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
      .segmentEntries(id, 0)
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
    return !this.moreLoading && !this.entriesLoading && this.entries.length < this.total;
  }

  /**
   * Loads the next page of the segment's entries, unless one is on its way or
   * all are here. After a failure only the person's retry asks again.
   */
  loadMore(retry = false) {
    if (this.entriesLoading || this.moreLoading || this.entries.length >= this.total || (this.moreError && !retry)) return;
    const id = this.id;
    const offset = this.entries.length;
    this.moreLoading = true;
    this.moreError = '';
    api
      .segmentEntries(id, offset)
      .then((p) => {
        // A page for another node, or one that no longer follows the list, is dropped.
        if (id !== this.id || offset !== this.entries.length) return;
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
