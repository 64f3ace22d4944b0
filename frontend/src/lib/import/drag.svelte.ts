// Files dragged over the window (DropLayer). The window's drag events are
// counted, as they fire for every element crossed.

export class FileDrag {
  /** Files are being dragged over the window (show what a drop does). */
  dragging = $state(false);
  private depth = 0;

  /** Files are dragged (not text or a link from the page). */
  private ours(e: DragEvent): boolean {
    return !!e.dataTransfer && Array.from(e.dataTransfer.types ?? []).includes('Files');
  }

  enter = (e: DragEvent) => {
    if (!this.ours(e)) return;
    e.preventDefault();
    this.depth++;
    this.dragging = true;
  };

  over = (e: DragEvent) => {
    if (!this.ours(e)) return;
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    this.dragging = true;
  };

  leave = (e: DragEvent) => {
    if (!this.ours(e)) return;
    this.depth = Math.max(0, this.depth - 1);
    if (this.depth === 0) this.dragging = false;
  };

  /** A drop: its DataTransfer when it is ours (the browser's default prevented), else null. */
  drop(e: DragEvent): DataTransfer | null {
    if (!this.ours(e) || !e.dataTransfer) return null;
    e.preventDefault();
    this.reset();
    return e.dataTransfer;
  }

  reset() {
    this.depth = 0;
    this.dragging = false;
  }
}
