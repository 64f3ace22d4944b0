package store

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// Every file Rhizome writes beside its library or for the person (the
// secrets file, loom blobs, loom tree exports) is written by WriteFile or
// WriteFileFrom: whole or not at all.

// WriteFile replaces the file at path with data, atomically: see
// WriteFileFrom.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	return WriteFileFrom(path, perm, func(w io.Writer) error {
		_, err := io.Copy(w, bytes.NewReader(data))
		return err
	})
}

// WriteFileFrom replaces the file at path with what write writes, so that a
// reader, or the next start after a crash, finds the old file or the new
// one, never a part: write goes to a temporary file in path's folder
// (".<name>.*.tmp", created 0600), which is synced, given mode perm (exactly:
// the umask does not apply), renamed over path, and the folder synced so the
// rename itself survives a crash. The folder must exist. When write or any
// step fails, the temporary is removed and the old file stays as it was; a
// crash leaves at most a temporary beside it. Errors name path.
func WriteFileFrom(path string, perm fs.FileMode, write func(io.Writer) error) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("store: unable to write %s: %w", path, err)
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	fail := func(err error) error {
		tmp.Close()
		return fmt.Errorf("store: unable to write %s: %w", path, err)
	}
	if err := write(tmp); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(perm); err != nil && runtime.GOOS != "windows" {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("store: unable to write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("store: unable to write %s: %w", path, err)
	}
	renamed = true
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("store: unable to write %s: syncing its folder: %w", path, err)
	}
	return nil
}

// syncDir flushes folder dir's entries (a rename in it) to disk. Windows
// cannot sync a folder; its renames are durable by themselves there.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
