// Messages that pop up at the window's corner (an error of an action that
// has no place of its own to say it). Any store may call fail(); Esc and a
// click close them, the newest first.

import { errorText } from '../format';

class Toasts {
  /** At most four, the oldest first. */
  messages = $state<string[]>([]);

  /** Shows what went wrong (an Error's message, or the text given); a message already shown is not shown twice. */
  fail(e: unknown) {
    const text = errorText(e);
    if (this.messages.includes(text)) return;
    this.messages = [...this.messages.slice(-3), text];
  }

  dismiss(i: number) {
    this.messages = this.messages.filter((_, j) => j !== i);
  }

  /** Closes the newest; whether there was one (Esc). */
  dismissNewest(): boolean {
    if (!this.messages.length) return false;
    this.dismiss(this.messages.length - 1);
    return true;
  }
}

export const toasts = new Toasts();
