package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"rhizome/app/ingest"
)

// spool holds uploaded session files (files dropped in a browser, sent to
// `rhizome serve` as a stream) in a temporary folder until they are
// imported: the import reads a file twice (its bytes are hashed to decide
// between unchanged, appended and imported) and needs its size first, so a
// stream cannot go straight in. The folder is beside the library, on the
// disk that will hold the import anyway, not in a temporary folder that may
// be memory (tmpfs); when the library's folder cannot take it, the system's
// temporary folder is used.
type spool struct {
	dir   string
	files []spooled
}

// spooled is one uploaded file: the name it was sent under, where it is.
type spooled struct {
	name string
	path string
	size int64
}

// newSpool makes the temporary folder for one upload.
func (im *Import) newSpool() (*spool, error) {
	dir, err := os.MkdirTemp(filepath.Dir(im.c.dbPath), ".rhizome-upload-")
	if err != nil {
		dir, err = os.MkdirTemp("", ".rhizome-upload-")
	}
	if err != nil {
		return nil, fmt.Errorf("app: unable to make a folder for the upload: %w", err)
	}
	return &spool{dir: dir}, nil
}

// ErrUploadBody wraps a failure to read an upload's body: the sender
// stopped, or sent what is not multipart form data.
var ErrUploadBody = errors.New("app: unable to read the upload")

// Upload is one upload of session files a browser streams to `rhizome
// serve` (POST /api/upload): each file is copied to a spool folder as it
// arrives, and Import imports them together, as Import.ImportFiles would
// import the same bytes. Close removes the spool. It is not an area's
// method, so neither bound to the window nor served as a call.
type Upload struct {
	im *Import
	sp *spool
}

// NewUpload starts an upload into the library: a spool folder beside it
// (else in the system's temporary folder). Errors: neither can take it.
func (a *App) NewUpload() (*Upload, error) {
	sp, err := a.Import.newSpool()
	if err != nil {
		return nil, err
	}
	return &Upload{im: a.Import, sp: sp}, nil
}

// Add copies r, the bytes of the file sent as name, to the spool; memory
// holds one copy buffer at a time. A failure of r wraps ErrUploadBody (the
// sender's fault); any other error is the library's disk.
func (u *Upload) Add(name string, r io.Reader) error { return u.sp.add(name, r) }

// Import imports the files added, in the order they came; the path stored
// for each is the base name it was sent under.
func (u *Upload) Import() (ImportReport, error) { return u.im.importSpool(u.sp) }

// Close removes the spool folder and every file in it.
func (u *Upload) Close() { u.sp.remove() }

// add copies r, the bytes of the file name, to the spool; memory holds one
// copy buffer at a time. A failure of r wraps ErrUploadBody; a failure to
// write is the library's disk.
func (sp *spool) add(name string, r io.Reader) error {
	f, err := os.CreateTemp(sp.dir, "file-*.jsonl")
	if err != nil {
		return fmt.Errorf("app: unable to store the upload of %s: %w", name, err)
	}
	src := &readFailure{r: r}
	n, err := io.Copy(f, src)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case src.err != nil:
		return fmt.Errorf("%w of %s: %w", ErrUploadBody, name, src.err)
	case err != nil:
		return fmt.Errorf("app: unable to store the upload of %s: %w", name, err)
	}
	sp.files = append(sp.files, spooled{name: filepath.Base(name), path: f.Name(), size: n})
	return nil
}

// readFailure remembers the error its reader failed with (io.EOF aside), to
// tell the sender's failures from the disk's.
type readFailure struct {
	r   io.Reader
	err error
}

func (rf *readFailure) Read(p []byte) (int, error) {
	n, err := rf.r.Read(p)
	if err != nil && err != io.EOF {
		rf.err = err
	}
	return n, err
}

// remove deletes the spool's folder and every file in it.
func (sp *spool) remove() { os.RemoveAll(sp.dir) }

// importSpool imports the spooled files in the order they came, as
// ImportFiles imports files sent whole: the path stored is the name the file
// was sent under (its base name).
func (im *Import) importSpool(sp *spool) (ImportReport, error) {
	srcs := make([]ingest.Source, 0, len(sp.files))
	for _, f := range sp.files {
		srcs = append(srcs, ingest.FileAs(f.name, f.path, f.size))
	}
	return im.run(srcs)
}
