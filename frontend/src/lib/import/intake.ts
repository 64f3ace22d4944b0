// Files coming into the window: dropped on it or picked with a file input.
// One DropLayer takes every drop and hands it to the Intake of the view
// shown (views/views.svelte.ts): session files in the graph, loom trees in
// the loom. An Intake says what its files are and where they go.

import { api } from '../api';
import type { PickedFile } from './files';

export interface Intake {
  /** Shown over the window while files are dragged over it. */
  overlay: { title: string; hint: string; testid: string };
  /** The hidden file input's accept list and test id. */
  picker: { accept: string; testid: string };
  /** An import of this kind is running: drops and picks wait. */
  busy(): boolean;
  /** The window's native file dialog, when the kind has one (instead of the file input). */
  chooseNative?(): void;
  /**
   * The files of a drop. Entries must be taken from the DataTransfer during
   * the drop event: called synchronously in the handler.
   */
  readDrop(dt: DataTransfer): Promise<PickedFile[]>;
  /** Files read in the page (a browser drop, a pick). */
  take(files: Promise<PickedFile[]>): void;
  /** Paths the window (Wails) hands over for a drop. */
  takePaths(paths: string[]): void;
}

/** The file inputs DropLayer draws, one per Intake. */
const inputs = new Map<Intake, HTMLInputElement>();

/** DropLayer: input is intake's file input (null: gone). */
export function setPicker(intake: Intake, input: HTMLInputElement | null) {
  if (input) inputs.set(intake, input);
  else inputs.delete(intake);
}

/** Lets the person choose files for intake: the native dialog in the window when it has one, else its file input. */
export function pick(intake: Intake) {
  if (intake.busy()) return;
  if (api.mode === 'window' && intake.chooseNative) intake.chooseNative();
  else inputs.get(intake)?.click();
}

/** The window (Wails) reads dropped files by path itself: a drop's files are read in the page only when it did not. */
export const inWindow = () => api.mode === 'window';

/** Subscribes to the paths of files dropped on the window (Wails; null in a browser); returns the unsubscribe. */
export function onWindowDrop(cb: (paths: string[]) => void): (() => void) | null {
  return api.onFileDrop(cb);
}

/** The loose files of a drop, as the browser lists them (folders not walked). */
export function looseFiles(dt: DataTransfer): Promise<PickedFile[]> {
  return Promise.resolve(Array.from(dt.files ?? []).map((file) => ({ file, name: file.name })));
}
