// Camera motion and the person's wish for less of it: with the system's
// "reduce motion" setting (the CSS media feature prefers-reduced-motion:
// reduce) every camera move of the graph jumps to its end in one frame
// instead of animating. On a slow renderer (software WebGL) that is also
// one frame drawn instead of a dozen.

/** The media query of the setting (Media Queries Level 5, §prefers-reduced-motion). */
export const REDUCED_MOTION = '(prefers-reduced-motion: reduce)';

/** Whether the person asked for reduced motion (false where matchMedia is missing). */
export function reducedMotion(): boolean {
  return typeof matchMedia === 'function' && matchMedia(REDUCED_MOTION).matches;
}

/**
 * The duration, in milliseconds, of a camera animation meant to last ms:
 * ms, or 1 under reduced motion. Not 0: sigma's Camera.animate divides by
 * the duration, and 0/0 would leave the camera at NaN; with 1 ms the first
 * frame is already past the end and sets the final state.
 */
export function motionMs(ms: number, reduced = reducedMotion()): number {
  return reduced ? 1 : ms;
}

/** Sigma's mouse settings for the camera's own animations (wheel zoom, double-click zoom, inertia), at sigma's default durations. */
export function sigmaMotionSettings(reduced = reducedMotion()) {
  return {
    zoomDuration: motionMs(250, reduced),
    doubleClickZoomingDuration: motionMs(200, reduced),
    inertiaDuration: motionMs(200, reduced),
  };
}
