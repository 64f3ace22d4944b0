// ForceAtlas2 on demand, in a web worker, for a while: at most 20 s, less
// for a small graph.

import FA2Layout from 'graphology-layout-forceatlas2/worker';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import type { Model } from './model';

export class ForceLayout {
  running = $state(false);
  private fa2: FA2Layout | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Whether the worker is moving the nodes. */
  get active(): boolean {
    return this.fa2 !== null;
  }

  /** Moves model's nodes (two at least) until stop() or the time is up. */
  start(model: Model) {
    if (model.order < 2) return;
    this.stop();
    const settings = forceAtlas2.inferSettings(model);
    this.fa2 = new FA2Layout(model, {
      settings: { ...settings, barnesHutOptimize: model.order > 800, slowDown: 4, adjustSizes: false },
    });
    this.fa2.start();
    this.running = true;
    this.timer = setTimeout(() => this.stop(), Math.min(20_000, 3000 + model.order * 1.5));
  }

  stop() {
    clearTimeout(this.timer);
    if (this.fa2) {
      this.fa2.kill();
      this.fa2 = null;
    }
    this.running = false;
  }
}
