package ingest

import (
	"context"
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"rhizome/backend/claudecode"
	"rhizome/backend/sessionformat"
	"rhizome/store"
)

// Comparing: how a file compares with the session stored from it (the same
// bytes, a grown file, a rewritten one), without reading a long file whole:
// a probe of the prefix imported before (fileProbe) and the SHA-256 state
// stored at its end.

// decide compares a file of format with the stored session of the same id:
// the same bytes are "unchanged"; a file that still starts with the prefix
// imported before (its probe) "appended", with the state to go on from; any
// other "imported" (rewritten: replaced). A session stored without that
// state (by an older Rhizome, or of another format) is read again whole
// unless its bytes are the same.
func decide(f io.ReaderAt, size int64, s *store.Session, format string) (string, *resumeState, error) {
	var rs resumeState
	if s.Format != format || len(s.Resume) == 0 || json.Unmarshal(s.Resume, &rs) != nil ||
		rs.Version != resumeVersion || s.ImportedProbe == "" || rs.Offset != s.ImportedBytes {
		if s.FileBytes == size {
			sum, err := hashPrefix(f, size)
			if err != nil {
				return "", nil, err
			}
			if sum == s.FileSHA256 {
				return StatusUnchanged, nil, nil
			}
		}
		return StatusImported, nil, nil
	}
	if size < s.ImportedBytes {
		return StatusImported, nil, nil
	}
	probe, err := fileProbe(f, s.ImportedBytes)
	if err != nil {
		return "", nil, err
	}
	if probe != s.ImportedProbe {
		return StatusImported, nil, nil
	}
	if size == s.FileBytes {
		h := sha256.New()
		if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(rs.Hash); err != nil {
			return StatusImported, nil, nil
		}
		n, err := io.Copy(h, io.NewSectionReader(f, s.ImportedBytes, size-s.ImportedBytes))
		if err != nil {
			return "", nil, fmt.Errorf("read: %w", err)
		}
		if n == size-s.ImportedBytes && hex.EncodeToString(h.Sum(nil)) == s.FileSHA256 {
			return StatusUnchanged, nil, nil
		}
	}
	return StatusAppended, &rs, nil
}

// trustStamps marks the sources whose files have the size and modification
// time the library recorded when it last read or checked them
// (store.FileStamps) as trusted: unchanged, they are not opened, sniffed or
// hashed (git and rsync trust the same). A file written again within the
// same nanosecond at the same size would be missed; a clock set back
// and a file rewritten at the same size, too. Documents (their reading
// depends on files beside them) and databases' sessions are always read.
// Without the stamps (the library cannot say), every file is read.
func trustStamps(ctx context.Context, st *store.Store, srcs []Source) {
	var stamps map[string]store.FileStamp
	for i := range srcs {
		s := &srcs[i]
		if !s.onDisk || s.db != nil || s.err != nil || s.mtime == 0 {
			continue
		}
		if stamps == nil {
			var err error
			if stamps, err = st.FileStamps(ctx); err != nil {
				return
			}
		}
		if fs, ok := stamps[s.path]; ok && fs.Bytes == s.size && fs.MtimeNs == s.mtime && !isDocumentFormat(fs.Format) {
			s.trusted = fs.Session
		}
	}
}

// racyWindow is how much older than its listing a file's modification time
// must be for the library to trust it next time (stamp): file systems keep
// times in coarse ticks (a few ms on Linux), so a file written again within
// the tick it was read in keeps its time ("racy git").
const racyWindow = 2 * time.Second

// stamp is the modification time of the file of s to record for the next
// import (store.Tx.StampFile): 0, read again next time, for a source not on
// disk or a file modified too near the time it was listed (racyWindow).
func (s Source) stamp() int64 {
	if !s.onDisk || s.mtime == 0 || s.listed-s.mtime < int64(racyWindow) {
		return 0
	}
	return s.mtime
}

// hashPrefix is the hex SHA-256 of the first n bytes of f.
func hashPrefix(f io.ReaderAt, n int64) (string, error) {
	h := sha256.New()
	got, err := io.Copy(h, io.NewSectionReader(f, 0, n))
	if err != nil {
		return "", fmt.Errorf("read: %w", err)
	}
	if got != n {
		return "", fmt.Errorf("read: file shorter than %d bytes", n)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// orderSources puts the Claude Code files of srcs in the order their
// sessions began (their first line's time), in the places Claude Code files
// held: a resumed or forked copy is then imported after its original, and
// its copied lines are the ones marked as copies (claude-code-codex-formats.md
// §1.4: keep the earliest). Other files keep their places.
func orderSources(srcs []Source) []Source {
	type cc struct {
		src Source
		ts  string
	}
	var idx []int
	var ccs []cc
	for i, s := range srcs {
		if s.err != nil || s.open == nil {
			continue
		}
		ts, ok := "", false
		if s.sniff != nil {
			ts, ok = s.sniff.claudeStart, s.sniff.isClaude
		} else {
			ts, ok = claudeStart(s)
		}
		if ok {
			idx = append(idx, i)
			ccs = append(ccs, cc{s, ts})
		}
	}
	if len(ccs) < 2 {
		return srcs
	}
	sort.SliceStable(ccs, func(a, b int) bool { return ccs[a].ts < ccs[b].ts })
	out := append([]Source(nil), srcs...)
	for k, i := range idx {
		out[i] = ccs[k].src
	}
	return out
}

// claudeStart returns the header time of a Claude Code file, ok false for
// another format or a file that cannot be read.
func claudeStart(s Source) (string, bool) {
	f, err := s.open()
	if err != nil {
		return "", false
	}
	defer f.Close()
	head := make([]byte, min(s.size, 4<<10))
	n, _ := f.ReadAt(head, 0)
	if format, _ := sessionformat.Detect(head[:n]); format != sessionformat.ClaudeCode {
		return "", false
	}
	h, err := claudecode.NewReader(io.NewSectionReader(f, 0, s.size), s.path).Header()
	if err != nil {
		return "", false
	}
	return h.Timestamp, true
}
