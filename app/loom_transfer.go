package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"rhizome/app/ingest"
	"rhizome/backend/link"
	"rhizome/backend/loom"
	"rhizome/store"
)

// Verify checks tree treeID's hash chain, raw responses and media files and
// returns what was tampered with ([] when intact).
func (l *Loom) Verify(treeID string) ([]LoomTamper, error) {
	t, err := l.c.store.LoadLoomTreeWithRaw(l.c.context(), treeID)
	if err != nil {
		return nil, err
	}
	return tampers(l.verify(t)), nil
}

// verify checks t's hash chain (loom.VerifyTree) and its image and audio
// files in the library's blob folder (loom.VerifyBlobs); nil when intact.
func (l *Loom) verify(t *loom.Tree) []loom.Tamper {
	return append(loom.VerifyTree(t), loom.VerifyBlobs(t, l.c.store.LoomBlobs())...)
}

// export is tree treeID in Rhizome's format (loom.Tree.Export), raw
// responses, image and audio bytes and the links from or to the tree and
// its nodes included.
func (l *Loom) export(ctx context.Context, treeID string) ([]byte, error) {
	t, err := l.c.store.LoadLoomTreeWithRaw(ctx, treeID)
	if err != nil {
		return nil, err
	}
	links, err := l.c.store.LinksOfLoomTree(ctx, treeID)
	if err != nil {
		return nil, err
	}
	data, err := t.ExportWithLinks(l.c.store.LoomBlobs(), links)
	if err != nil {
		return nil, fmt.Errorf("loom: unable to export tree %s: %w", treeID, err)
	}
	return data, nil
}

// Export returns tree treeID in Rhizome's lossless JSON format
// ("format": "rhizome.loom-tree"): every node, edge, agent, raw response and
// media file, hash chain included, the active path it was last open on, and
// the links from or to the tree or its nodes ("links"). Import reads it back.
func (l *Loom) Export(treeID string) (string, error) {
	data, err := l.export(l.c.context(), treeID)
	if err != nil {
		return "", err
	}
	return string(data), nil
}

// ExportToFile asks where to save tree treeID (a native dialog) and writes
// its export there, atomically (store.WriteFile: a failed or interrupted
// write leaves the file that was there). It returns the path, "" when the
// person cancelled.
// Window only: in `rhizome serve` it returns ErrNoDialogs (use Export and a
// browser download).
func (l *Loom) ExportToFile(treeID string) (string, error) {
	l.c.mu.RLock()
	d := l.c.dialogs
	l.c.mu.RUnlock()
	saver, ok := d.(FileSaver)
	if !ok {
		return "", ErrNoDialogs
	}
	ctx := l.c.context()
	var title string
	if err := l.withTree(treeID, func(_ context.Context, t *loom.Tree) error { title = t.Title; return nil }); err != nil {
		return "", err
	}
	path, err := saver.SaveFile(ctx, "Export loom tree", exportFileName(title))
	if err != nil || path == "" {
		return "", err
	}
	data, err := l.export(ctx, treeID)
	if err != nil {
		return "", err
	}
	if err := store.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("loom: unable to write the export of tree %s: %w", treeID, err)
	}
	return path, nil
}

// exportFileName is a file name for a tree titled title: "title.loom.json"
// with characters file systems dislike replaced.
func exportFileName(title string) string {
	name := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == ' ' {
			return r
		}
		return '_'
	}, clipRunes(title, 60))
	name = strings.TrimSpace(strings.Trim(name, "_"))
	if name == "" {
		name = "loom-tree"
	}
	return name + ".loom.json"
}

// Import reads a loom tree file, name being its file name and
// contentBase64 its bytes as base64: a Rhizome export (kept exactly, ids and
// hashes included) or a socketteer/loom tree (imported as a buffer-mode tree
// titled by the file name, its selected node as the active path). Errors:
// not base64, neither format, a Rhizome tree already in the library
// (store.ErrLoomTreeExists, HTTP 409: ImportCopy imports it as a copy).
func (l *Loom) Import(name, contentBase64 string) (LoomImportResult, error) {
	data, err := base64.StdEncoding.DecodeString(contentBase64)
	if err != nil {
		return LoomImportResult{}, fmt.Errorf("loom: unable to import %s: content is not base64: %w", name, err)
	}
	return l.importTree(name, data, false)
}

// ImportCopy imports a loom tree file as Import does, but a Rhizome export
// as a copy: the tree, its nodes and edges get new ids, so it imports beside
// the tree it was exported from; content, authors, times, node state and the
// hash chain are kept (Verify finds it intact), the title gains " (copy)",
// and LoomTreeInfo.copiedFrom and copySource say where it came from
// (loom.ImportCopy). A socketteer/loom tree imports as with Import.
func (l *Loom) ImportCopy(name, contentBase64 string) (LoomImportResult, error) {
	data, err := base64.StdEncoding.DecodeString(contentBase64)
	if err != nil {
		return LoomImportResult{}, fmt.Errorf("loom: unable to import %s: content is not base64: %w", name, err)
	}
	return l.importTree(name, data, true)
}

// maxLoomFileBytes bounds a loom tree file read from disk.
const maxLoomFileBytes = 256 << 20

// ImportPaths imports loom tree files by path (files dropped on the window,
// where the frontend gets paths, not contents), each as Import does. Every
// file is tried; the results are those that imported, and the error, if
// any, names each file that did not and why. In `rhizome serve` it returns
// ErrNoPaths and reads nothing.
func (l *Loom) ImportPaths(paths []string) ([]LoomImportResult, error) {
	return l.importPaths(paths, false)
}

// ImportCopyPaths imports loom tree files by path as ImportCopy does, each
// as ImportPaths does. In `rhizome serve` it returns ErrNoPaths and reads
// nothing.
func (l *Loom) ImportCopyPaths(paths []string) ([]LoomImportResult, error) {
	return l.importPaths(paths, true)
}

func (l *Loom) importPaths(paths []string, asCopy bool) ([]LoomImportResult, error) {
	if l.c.isServed() {
		return []LoomImportResult{}, ErrNoPaths
	}
	out := []LoomImportResult{}
	var errs []error
	for _, p := range paths {
		data, err := readLoomFile(p)
		if err == nil {
			var r LoomImportResult
			if r, err = l.importTree(filepath.Base(p), data, asCopy); err == nil {
				out = append(out, r)
				continue
			}
		}
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

func readLoomFile(path string) ([]byte, error) {
	f, err := ingest.OpenRegularFile(path)
	if err != nil {
		return nil, fmt.Errorf("loom: unable to import %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxLoomFileBytes {
		return nil, fmt.Errorf("loom: unable to import %s: not a loom tree file (over %d MiB)", path, maxLoomFileBytes>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxLoomFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("loom: unable to import %s: %w", path, err)
	}
	return data, nil
}

// importTree imports one loom tree file's bytes: a Rhizome export (asCopy:
// under new ids) or a socketteer/loom tree.
func (l *Loom) importTree(name string, data []byte, asCopy bool) (LoomImportResult, error) {
	ctx := l.c.context()
	if loom.IsExport(data) {
		t, err := l.importExport(ctx, name, data, asCopy)
		if err != nil {
			return LoomImportResult{}, fmt.Errorf("loom: unable to import %s: %w", name, err)
		}
		l.changed(t.ID)
		return LoomImportResult{Tree: treeInfo(t.LoomTree, t.Len(), t.Positions()), Format: "rhizome", ActivePath: activePathView(t.ActivePath()),
			Warnings: []string{}, Tampered: tampers(l.verify(t))}, nil
	}
	if !loom.IsSocketteerTree(data) {
		return LoomImportResult{}, fmt.Errorf("loom: unable to import %s: neither a Rhizome loom tree export (%q) nor a socketteer/loom tree file",
			name, loom.ExportFormat)
	}
	grove, err := l.c.store.DefaultGrove(ctx)
	if err != nil {
		return LoomImportResult{}, err
	}
	human, err := l.c.store.LoomHumanAgent(ctx)
	if err != nil {
		return LoomImportResult{}, err
	}
	title := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	imp, err := loom.ImportSocketteer(data, loom.SocketteerOptions{GroveID: grove.ID, Title: title, Human: human})
	if err != nil {
		return LoomImportResult{}, fmt.Errorf("loom: unable to import %s: %w", name, err)
	}
	t := imp.Tree
	ap := t.NormalPath(imp.ActivePath)
	t.RestoreActivePath(ap) // socketteer's selected node, stored with the tree
	if err := l.createTree(ctx, t); err != nil {
		return LoomImportResult{}, fmt.Errorf("loom: unable to import %s: %w", name, err)
	}
	warnings := imp.Warnings
	if warnings == nil {
		warnings = []string{}
	}
	l.changed(t.ID)
	return LoomImportResult{Tree: treeInfo(t.LoomTree, t.Len(), t.Positions()), Format: "socketteer", ActivePath: activePathView(ap),
		Warnings: warnings, Tampered: tampers(loom.VerifyTree(t))}, nil
}

// importExport stores a tree exported by Export (from this library or
// another; loom.Import), or with asCopy a copy of it under new ids
// (loom.ImportCopy, its source the file name), its blobs in the library's
// blob folder. A tree from another library's grove joins this library's
// grove (the grove is not hashed). A tampered tree is stored all the same,
// for verify to show the findings. The links the export carries are stored
// with it (a copy's remapped to the copy, under new ids). A tree the
// library already holds (its id,
// or a node or edge id of it) is refused with store.ErrLoomTreeExists,
// nothing written: asCopy imports it.
func (l *Loom) importExport(ctx context.Context, name string, data []byte, asCopy bool) (*loom.Tree, error) {
	blobs := l.c.store.LoomBlobs()
	var t *loom.Tree
	var links []link.Link
	var err error
	if asCopy {
		t, links, err = loom.ImportCopyWithLinks(data, blobs, filepath.Base(name), time.Now())
	} else {
		t, links, err = loom.ImportWithLinks(data, blobs)
	}
	if err != nil {
		return nil, err
	}
	ours, err := l.c.store.LoomGroveExists(ctx, t.GroveID)
	if err != nil {
		return nil, err
	}
	if !ours {
		g, err := l.c.store.DefaultGrove(ctx)
		if err != nil {
			return nil, err
		}
		t.GroveID = g.ID
	}
	if err := l.createTree(ctx, t, links...); err != nil {
		return nil, err
	}
	if len(links) > 0 {
		l.c.linksChanged(link.LoomTree(t.ID))
	}
	return t, nil
}
