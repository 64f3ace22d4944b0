// Loom trees in and out of the library: export (a download in a browser,
// the native save dialog in the window) and import of Rhizome exports and
// socketteer/loom trees, dropped, picked or by path. A tree the library
// already holds is offered as a copy; an import with warnings or tampering
// is shown to read. loomIntake is how the loom view takes files.

import { alreadyInLibrary, api } from '../api';
import { errorText } from '../format';
import { readDroppedFile } from '../import/files';
import { looseFiles, type Intake } from '../import/intake';
import { toasts } from '../toasts/toasts.svelte';
import type { LoomImportResult } from '../types';
import { downloadText, exportFileName, isLoomFile } from './files';
import type { Loom } from './loom.svelte';

/**
 * A loom tree file the library already holds: the person may import it as
 * a copy. A dropped or chosen file carries its content; a path (the window)
 * does not.
 */
export interface DuplicateImport {
  name: string;
  content?: string;
  path?: string;
  /** Go's error, naming the tree. */
  message: string;
}

export class Transfer {
  importing = $state(false);
  /** An import with warnings or tampering to read. */
  imported = $state.raw<LoomImportResult | null>(null);
  /** Files whose tree the library already holds: offered as copies. */
  duplicates = $state.raw<DuplicateImport[]>([]);

  constructor(private loom: Loom) {}

  /** Serve mode: a download; the window: a native save dialog. */
  async exportTree() {
    const id = this.loom.tree.id;
    const title = this.loom.tree.info?.title ?? '';
    if (!id) return;
    try {
      if (api.mode === 'window') {
        const path = await api.loom.exportToFile(id);
        if (path) this.loom.say(`Exported to ${path}`);
      } else {
        downloadText(exportFileName(title), await api.loom.export(id));
        this.loom.say(`Exported “${title}” as ${exportFileName(title)}`);
      }
    } catch (e) {
      toasts.fail(e);
    }
  }

  /** Imports loom tree files dropped on the window (paths) and opens the last. */
  async importPaths(paths: string[]) {
    if (!paths.length || this.importing) return;
    this.importing = true;
    try {
      const results: LoomImportResult[] = [];
      const dups: DuplicateImport[] = [];
      // One by one, so a tree already held is known by its file.
      for (const path of paths) {
        try {
          results.push(...(await api.loom.importPaths([path])));
        } catch (e) {
          const name = path.split(/[\\/]/).pop() ?? path;
          if (alreadyInLibrary(e)) dups.push({ name, path, message: errorText(e) });
          else toasts.fail(e);
        }
      }
      await this.opened(results.at(-1) ?? null);
      this.duplicates = dups;
    } finally {
      this.importing = false;
    }
  }

  /** Imports loom tree files (Rhizome exports or socketteer/loom trees) and opens the last. */
  async importFiles(files: File[]) {
    if (!files.length || this.importing) return;
    this.importing = true;
    try {
      let last: LoomImportResult | null = null;
      const dups: DuplicateImport[] = [];
      for (const f of files) {
        let read: { name: string; content: string } | null = null;
        try {
          read = await readDroppedFile(f);
          last = await api.loom.import(read.name, read.content);
        } catch (e) {
          if (read && alreadyInLibrary(e)) dups.push({ name: read.name, content: read.content, message: errorText(e) });
          else toasts.fail(e);
        }
      }
      await this.opened(last);
      this.duplicates = dups;
    } finally {
      this.importing = false;
    }
  }

  /** Imports the files offered as copies (the trees the library already holds) and opens the last. */
  async importCopies() {
    const dups = this.duplicates;
    this.duplicates = [];
    if (!dups.length) return;
    this.importing = true;
    try {
      let last: LoomImportResult | null = null;
      for (const d of dups) {
        try {
          if (d.content !== undefined) last = await api.loom.importCopy(d.name, d.content);
          else if (d.path) last = (await api.loom.importCopyPaths([d.path])).at(-1) ?? last;
        } catch (e) {
          toasts.fail(e);
        }
      }
      await this.opened(last);
    } finally {
      this.importing = false;
    }
  }

  /** Opens what an import made; shows its warnings, or says what it was. */
  private async opened(r: LoomImportResult | null) {
    if (!r) return;
    if (r.warnings.length || r.tampered.length) this.imported = r;
    await this.loom.list.load();
    await this.loom.tree.open(r.tree.id, r.activePath);
    if (!this.imported) {
      const copy = r.tree.copiedFrom ? ' as a copy' : '';
      this.loom.say(`Imported “${r.tree.title}”${copy} (${r.format} format, ${r.tree.positions} nodes).`);
    }
  }

  /** Files dropped or picked in the loom view: its loom trees (.json), or a message saying what a loom tree is. */
  take(files: File[]) {
    const trees = files.filter((f) => isLoomFile(f.name));
    if (!trees.length) {
      toasts.fail(`Nothing to import: a loom tree is a .json file (a Rhizome export or a socketteer/loom tree); got ${files.map((f) => f.name).join(', ') || 'no file'}.`);
      return;
    }
    void this.importFiles(trees);
  }

  /** What the loom view takes: loom tree files. */
  readonly intake: Intake = {
    overlay: { title: 'Drop to import a loom tree', hint: 'A Rhizome export or a socketteer/loom tree (.json)', testid: 'loom-drop-overlay' },
    picker: { accept: '.json,application/json', testid: 'loom-import-input' },
    busy: () => this.importing,
    readDrop: looseFiles,
    take: (pending) => void pending.then((picked) => this.take(picked.map((p) => p.file))),
    takePaths: (paths) => void this.importPaths(paths),
  };
}
