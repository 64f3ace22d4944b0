// A person's note on one item and the item's review marks (Notes.*,
// Marks.Set), as the Notes section of a panel shows them. A note is markdown
// with [[mentions]]; saving it blank deletes it. links.notesVersion bumps
// when notes change anywhere (notes:changed), and the section reads again.

import { api } from '../api';
import { errorText } from '../format';
import { links } from '../links/links.svelte';
import { toasts } from '../toasts/toasts.svelte';
import type { NoteView, ReviewMark } from '../types';

/** The review marks, in the order shown, with what each means. */
export const MARKS: { mark: ReviewMark; label: string; icon: string }[] = [
  { mark: 'starred', label: 'Starred', icon: '★' },
  { mark: 'to-revisit', label: 'To revisit', icon: '↻' },
  { mark: 'done', label: 'Done', icon: '✓' },
];

export class ItemNote {
  note = $state.raw<NoteView | null>(null);
  error = $state('');
  saving = $state(false);

  private seq = 0;
  private uri = '';

  load(uri: string) {
    if (uri !== this.uri) {
      this.uri = uri;
      this.note = null;
    }
    const mine = ++this.seq;
    api.notes
      .get(uri)
      .then((n) => {
        if (mine !== this.seq) return;
        this.note = n;
        this.error = '';
      })
      .catch((e) => {
        if (mine === this.seq) this.error = errorText(e);
      });
  }

  /** Saves markdown as the note (blank: deletes it); whether it was saved. */
  async save(markdown: string): Promise<boolean> {
    const uri = this.uri;
    this.saving = true;
    try {
      const n = await api.notes.put(uri, markdown);
      if (uri === this.uri) this.note = n;
      links.notesVersion++;
      links.version++; // its mentions may have made links
      return true;
    } catch (e) {
      toasts.fail(e);
      return false;
    } finally {
      this.saving = false;
    }
  }

  async toggle(mark: ReviewMark) {
    const uri = this.uri;
    const on = !this.note?.marks.includes(mark);
    try {
      const marks = await api.notes.setMark(uri, mark, on);
      if (uri === this.uri && this.note) this.note = { ...this.note, marks };
    } catch (e) {
      toasts.fail(e);
    }
  }
}
