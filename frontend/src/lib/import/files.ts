// Reading dropped or chosen files in the browser: folders walked
// recursively; base64 contents for Import.ImportFiles (the window's fallback
// when Wails gives no paths; serve mode streams the File objects instead).

import type { DroppedFile } from '../types';

/** Base64 of bytes, encoded in chunks so large files do not overflow the call stack. */
export function bytesToBase64(bytes: Uint8Array): string {
  const CHUNK = 0x8000;
  let binary = '';
  for (let i = 0; i < bytes.length; i += CHUNK) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + CHUNK) as unknown as number[]);
  }
  return btoa(binary);
}

/** Reads a file as a DroppedFile; name defaults to the file's own name. */
export async function readDroppedFile(file: Blob & { name: string }, name = file.name): Promise<DroppedFile> {
  const buf = new Uint8Array(await file.arrayBuffer());
  return { name, content: bytesToBase64(buf) };
}

/** A file picked from a drop, with its path relative to what was dropped. */
export interface PickedFile {
  file: File;
  name: string;
}

/**
 * Session files in folders are the .jsonl ones and Cline's conversations
 * (<id>.messages.json; its other .json files are not sessions); files
 * dropped one by one are all kept.
 */
export const isSessionFile = (name: string) => {
  const n = name.toLowerCase();
  return n.endsWith('.jsonl') || n.endsWith('.messages.json');
};

// The subset of the File and Directory Entries API used here.
interface EntryLike {
  isFile: boolean;
  isDirectory: boolean;
  name: string;
  fullPath: string;
}
interface FileEntryLike extends EntryLike {
  file(ok: (f: File) => void, fail: (e: unknown) => void): void;
}
interface DirEntryLike extends EntryLike {
  createReader(): { readEntries(ok: (es: EntryLike[]) => void, fail: (e: unknown) => void): void };
}

/** Walks an entry: a file gives itself, a folder its .jsonl files at any depth. */
export async function walkEntry(entry: EntryLike, topLevel = true): Promise<PickedFile[]> {
  if (entry.isFile) {
    if (!topLevel && !isSessionFile(entry.name)) return [];
    const file = await new Promise<File>((ok, fail) => (entry as FileEntryLike).file(ok, fail));
    return [{ file, name: entry.fullPath.replace(/^\/+/, '') || entry.name }];
  }
  if (!entry.isDirectory) return [];
  const reader = (entry as DirEntryLike).createReader();
  const children: EntryLike[] = [];
  // readEntries returns at most ~100 entries per call: read until empty.
  for (;;) {
    const batch = await new Promise<EntryLike[]>((ok, fail) => reader.readEntries(ok, fail));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: PickedFile[] = [];
  for (const c of children) out.push(...(await walkEntry(c, false)));
  return out;
}

/**
 * The files of a drop. Entries must be taken from the DataTransfer during
 * the drop event, so call this synchronously in the handler and await the
 * promise afterwards.
 */
export function filesOfDrop(dt: DataTransfer): Promise<PickedFile[]> {
  const entries: EntryLike[] = [];
  const loose: File[] = [];
  const items = dt.items ? Array.from(dt.items) : [];
  for (const item of items) {
    if (item.kind !== 'file') continue;
    const entry = (item as DataTransferItem & { webkitGetAsEntry?: () => EntryLike | null }).webkitGetAsEntry?.();
    if (entry) entries.push(entry);
    else {
      const f = item.getAsFile();
      if (f) loose.push(f);
    }
  }
  if (items.length === 0) loose.push(...Array.from(dt.files ?? []));
  return (async () => {
    const out: PickedFile[] = loose.map((file) => ({ file, name: file.name }));
    for (const e of entries) out.push(...(await walkEntry(e)));
    return out;
  })();
}
