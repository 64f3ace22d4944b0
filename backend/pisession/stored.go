package pisession

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strings"

	"rhizome/backend/session"
)

// SessionUUID is the session id in a pi session file name,
// "<time>_<uuid>.jsonl": what follows the last "_", without the extension;
// the name without extension when it has no "_". A fork's header names its
// parent by path (parentSession), and the parent is matched by that id when
// neither its path nor its file name is in the library. See
// pi-brain-node-model.md, "Fork Edges", corrected by ERRATA.md.
func SessionUUID(fileName string) string {
	base := strings.TrimSuffix(fileName, path.Ext(fileName))
	if i := strings.LastIndexByte(base, '_'); i >= 0 {
		return base[i+1:]
	}
	return base
}

// DecodeStored decodes entries stored from a session file, as a Reader read
// them at import: header is the file's header object (Header.Raw), file
// names the file in errors, raws are the stored entry objects (Entry.Raw) in
// file order, the first of them the entry with Seq firstSeq, and the others
// following it without a gap. The entries come back with version 3 meaning
// (a header without a version is version 1: synthetic ids continue from
// firstSeq); their Seq is right, their Line and Offset count from the first
// of raws. The error names the entry that cannot be decoded.
func DecodeStored(header []byte, file string, firstSeq int, raws [][]byte) ([]*session.Entry, error) {
	if len(raws) == 0 {
		return nil, nil
	}
	var hdr session.Header
	if err := json.Unmarshal(header, &hdr); err != nil {
		return nil, fmt.Errorf("pisession: unable to read the stored header of %s: %w", file, err)
	}
	if hdr.Version == 0 {
		hdr.Version = 1 // pi: version ?? 1
	}
	hdr.Raw = header
	var buf bytes.Buffer
	for _, r := range raws {
		buf.Write(r)
		buf.WriteByte('\n')
	}
	rd := NewReaderAt(&buf, file, hdr, 0, 0, firstSeq)
	out := make([]*session.Entry, 0, len(raws))
	for i := range raws {
		e, err := rd.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("pisession: unable to decode stored entry %d of %s: no object", firstSeq+i, file)
		}
		if err != nil {
			return nil, fmt.Errorf("pisession: unable to decode stored entry %d of %s: %w", firstSeq+i, file, err)
		}
		out = append(out, e)
	}
	return out, nil
}
