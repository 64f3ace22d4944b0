import { describe, expect, it, vi, afterEach } from 'vitest';
import { motionMs, reducedMotion, sigmaMotionSettings } from './motion';

afterEach(() => vi.unstubAllGlobals());

describe('reduced motion', () => {
  it('follows the prefers-reduced-motion media query', () => {
    vi.stubGlobal('matchMedia', (q: string) => ({ matches: q === '(prefers-reduced-motion: reduce)' }));
    expect(reducedMotion()).toBe(true);
    expect(motionMs(450)).toBe(1);
    vi.stubGlobal('matchMedia', () => ({ matches: false }));
    expect(reducedMotion()).toBe(false);
    expect(motionMs(450)).toBe(450);
  });

  it('gives sigma its default durations, or 1 ms each', () => {
    expect(sigmaMotionSettings(false)).toEqual({ zoomDuration: 250, doubleClickZoomingDuration: 200, inertiaDuration: 200 });
    expect(Object.values(sigmaMotionSettings(true))).toEqual([1, 1, 1]);
  });

  it("a 1 ms camera animation is at its target by the next frame", async () => {
    // sigma reads WebGL constants as it loads; node has no WebGL, and the camera needs none.
    vi.stubGlobal('WebGLRenderingContext', new Proxy({}, { get: () => 0 }));
    vi.stubGlobal('WebGL2RenderingContext', new Proxy({}, { get: () => 0 }));
    const { Camera } = await import('sigma');
    const cam = new Camera();
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal('requestAnimationFrame', (f: FrameRequestCallback) => frames.push(f));
    // Not awaited: sigma 3 never resolves an animation that ends in its first,
    // synchronous step (it keeps the callback only after that step), which a
    // busy machine gives a 1 ms animation. The camera's state is what counts.
    void cam.animate({ ratio: 0.25, x: 0.2 }, { duration: motionMs(300, true) });
    // Frames as a browser runs them, each at least a millisecond after the last: the
    // animation is over by the second (the first step may fall in its starting millisecond).
    let ran = 0;
    while (frames.length) {
      await new Promise((r) => setTimeout(r, 2));
      frames.shift()!(0);
      ran++;
    }
    expect(ran).toBeLessThanOrEqual(1);
    expect(cam.getState()).toMatchObject({ ratio: 0.25, x: 0.2 });
  });
});
