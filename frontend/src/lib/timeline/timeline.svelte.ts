// The selected session's segments in order (Library.Timeline), for the
// timeline under the graph and for stepping through a session.

import { api } from '../api';
import { library } from '../library/library.svelte';
import { toasts } from '../toasts/toasts.svelte';
import type { TimelineSegment } from '../types';

class Timeline {
  segments = $state.raw<TimelineSegment[]>([]);

  /** Loads the timeline of the library's selected session (none: empty). */
  async load() {
    const id = library.session;
    if (!id) {
      this.segments = [];
      return;
    }
    try {
      const t = await api.timeline(id);
      if (library.session === id) this.segments = t;
    } catch (e) {
      toasts.fail(e);
    }
  }

  clear() {
    this.segments = [];
  }
}

export const timeline = new Timeline();
library.onReload(() => timeline.load());
