package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"time"

	"rhizome/backend/link"
	"rhizome/backend/loom"
	"rhizome/backend/memobrain"
	"rhizome/backend/sessionformat"
	"rhizome/store"
)

// Importing MemoBrain files: the import's entry points (Import.run) hand
// every file to takeReasoning first, which keeps the MemoBrain snapshots
// and conversations, detected by content, and leaves the rest to the
// session import. A snapshot becomes a reasoning graph, in one transaction;
// a conversation (a JSON list of messages) goes with the snapshot it was
// dropped with.

// MaxReasoningFileBytes is the largest MemoBrain file an import reads: the
// whole file is read into memory (a snapshot of 10,000 nodes is a few MB).
const MaxReasoningFileBytes = 256 << 20

// reasoningFile is a MemoBrain file of an import.
type reasoningFile struct {
	src  source
	data []byte // the whole file
	// conversation: a JSON list of messages (else a snapshot).
	conversation bool
	err          error // reading it failed
}

// takeReasoning reads the head of each source once (sniffSources) and
// takes out the MemoBrain snapshots (sessionformat.Detect, or for a JSON
// document it cannot place from the first 64 KB, such as a run result whose
// conversation comes before "memory", memobrain.LooksLikeSnapshot over the
// whole file) and conversations (a JSON list of {role, content} messages).
// The other sources are returned in order, with what their heads told
// (source.sniff).
func takeReasoning(ctx context.Context, srcs []source) (rest []source, files []reasoningFile) {
	sniffs := sniffSources(ctx, srcs)
	for i, s := range srcs {
		if sn := &sniffs[i]; sn.isReasoning {
			files = append(files, sn.reasoning)
			continue
		} else if s.err == nil {
			s.sniff = sn
		}
		rest = append(rest, s)
	}
	return rest, files
}

// sniffReasoning tells from the head of source s (its first bytes, head,
// which sessionformat.Detect names format for why; f is the file, open and
// read past them) whether it is a MemoBrain file, and if so reads it whole.
func sniffReasoning(s source, f io.Reader, head []byte, format, why string) (reasoningFile, bool) {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	var candidate, conversation bool
	switch {
	case format == sessionformat.MemoBrain:
		candidate = true
	case format != sessionformat.Unknown || len(trimmed) == 0:
		return reasoningFile{}, false
	case trimmed[0] == '[':
		candidate, conversation = true, true
	case trimmed[0] == '{' && strings.HasPrefix(why, "JSON document"):
		candidate = true // a document longer than the head: look at all of it
	}
	if !candidate {
		return reasoningFile{}, false
	}
	if s.size > MaxReasoningFileBytes {
		if format == sessionformat.MemoBrain {
			return reasoningFile{src: s, err: fmt.Errorf("a MemoBrain snapshot of %d MB: the largest Rhizome reads is %d MB", s.size>>20, MaxReasoningFileBytes>>20)}, true
		}
		return reasoningFile{}, false
	}
	var buf bytes.Buffer
	buf.Write(head)
	if _, err := io.Copy(&buf, io.LimitReader(f, MaxReasoningFileBytes+1-int64(len(head)))); err != nil {
		if format == sessionformat.MemoBrain {
			return reasoningFile{src: s, err: err}, true
		}
		return reasoningFile{}, false
	}
	data := buf.Bytes()
	switch {
	case format == sessionformat.MemoBrain:
		return reasoningFile{src: s, data: data}, true
	case conversation:
		if msgs, err := memobrain.ReadMessages(data); err == nil && len(msgs) > 0 && bytes.HasPrefix(bytes.TrimSpace(trimBOM(data)), []byte("[")) {
			return reasoningFile{src: s, data: data, conversation: true}, true
		}
	case memobrain.LooksLikeSnapshot(data):
		return reasoningFile{src: s, data: data}, true
	}
	return reasoningFile{}, false
}

func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF}) }

// importReasoning imports the MemoBrain files of an import, appending their
// reports to rep; it reports whether the library changed. Conversations go
// with a snapshot of the same import: the one whose file name is theirs
// without a "messages" or "conversation" word (example_messages.json goes
// with example_snapshot.json or example.json), else the only snapshot when
// there is one. A conversation left alone fails, saying so.
func (im *Import) importReasoning(ctx context.Context, files []reasoningFile, rep *ImportReport) bool {
	if len(files) == 0 {
		return false
	}
	var snaps, convs []int
	for i, f := range files {
		if f.conversation {
			convs = append(convs, i)
		} else {
			snaps = append(snaps, i)
		}
	}
	pairOf := map[int]int{} // snapshot index -> conversation index
	convDone := map[int]string{}
	for _, c := range convs {
		stem := fileStem(files[c].src.path)
		for _, s := range snaps {
			if _, taken := pairOf[s]; !taken && fileStem(files[s].src.path) == stem {
				pairOf[s] = c
				break
			}
		}
	}
	if len(snaps) == 1 && len(convs) == 1 {
		if _, ok := pairOf[snaps[0]]; !ok {
			pairOf[snaps[0]] = convs[0]
		}
	}
	paired := map[int]int{}
	for s, c := range pairOf {
		paired[c] = s
	}
	changed := false
	reports := make([]FileReport, len(files))
	for _, s := range snaps {
		conv := -1
		if c, ok := pairOf[s]; ok {
			conv = c
		}
		fr, made := im.importSnapshot(ctx, files[s], conv, files)
		reports[s] = fr
		changed = changed || made
		if conv >= 0 {
			convDone[conv] = fr.Status
			if fr.Reasoning != nil {
				cr := newReasoningReport(files[conv].src.path)
				cr.Status, cr.Error = fr.Status, ""
				r := *fr.Reasoning
				r.MessagesFile = ""
				cr.Reasoning = &r
				if fr.Status == statusFailed {
					cr.Error = files[conv].src.path + ": not imported: its snapshot " + files[s].src.path + " failed"
				}
				reports[conv] = cr
			} else {
				reports[conv] = failed(newReasoningReport(files[conv].src.path), files[conv].src.path,
					fmt.Errorf("not imported: its snapshot %s failed", files[s].src.path))
				reports[conv].Format = sessionformat.MemoBrain
			}
		}
	}
	for _, c := range convs {
		if _, ok := convDone[c]; ok {
			continue
		}
		fr := failed(newReasoningReport(files[c].src.path), files[c].src.path, errors.New(
			"a MemoBrain conversation (a list of messages) without its snapshot: import it together with the snapshot it belongs to, or attach it to the graph in the Reasoning view"))
		fr.Format = sessionformat.MemoBrain
		reports[c] = fr
	}
	for _, fr := range reports {
		rep.Files = append(rep.Files, fr)
		t := &rep.Totals
		t.Files++
		switch fr.Status {
		case statusImported:
			t.Imported++
		case statusUnchanged:
			t.Unchanged++
		default:
			t.Failed++
		}
	}
	return changed
}

func newReasoningReport(p string) FileReport {
	fr := newFileReport(p)
	fr.Format = sessionformat.MemoBrain
	return fr
}

// fileStem is a file's base name without its extension and without a last
// word naming what it holds ("messages", "conversation", "snapshot",
// "memory", "graph"), lower case: example_messages.json and
// example_snapshot.json are both "example".
func fileStem(p string) string {
	base := strings.ToLower(path.Base(filepath.ToSlash(p)))
	base = strings.TrimSuffix(base, path.Ext(base))
	for _, w := range []string{"messages", "conversation", "snapshot", "memory", "graph"} {
		if cut, ok := strings.CutSuffix(base, w); ok {
			base = strings.TrimRight(cut, "._- ")
			break
		}
	}
	return base
}

// importSnapshot imports one snapshot with the conversation files[conv]
// (conv -1: none); it reports whether the library changed.
func (im *Import) importSnapshot(ctx context.Context, f reasoningFile, conv int, files []reasoningFile) (FileReport, bool) {
	p := f.src.path
	fr := newReasoningReport(p)
	fail := func(err error) (FileReport, bool) {
		out := failed(fr, p, err)
		out.Format = sessionformat.MemoBrain
		return out, false
	}
	if f.err != nil {
		return fail(f.err)
	}
	snap, err := memobrain.ReadSnapshot(f.data)
	if err != nil {
		return fail(err)
	}
	var msgs []memobrain.Message
	msgsFile := ""
	if conv >= 0 {
		if msgs, err = memobrain.ReadMessages(files[conv].data); err != nil {
			return fail(fmt.Errorf("its conversation %s: %w", files[conv].src.path, err))
		}
		msgsFile = files[conv].src.path
	} else if msgs, err = snap.Messages(); err != nil {
		return fail(err)
	}
	sum := sha256.Sum256(f.data)
	sha := hex.EncodeToString(sum[:])
	g := snap.Graph
	counts := g.Counts()
	ri := &ReasoningImport{Wrapped: snap.Wrapped, Nodes: counts.Nodes, NodesByKind: map[string]int{}, Edges: counts.Edges,
		EdgesByKind: map[string]int{}, Messages: len(msgs), MessagesFile: msgsFile}
	for k, n := range counts.ByKind {
		ri.NodesByKind[string(k)] = n
	}
	for k, n := range counts.EdgesByKind {
		ri.EdgesByKind[string(k)] = n
	}
	if msgs != nil {
		_, beyond := memobrain.LinkTurns(g, msgs)
		ri.TurnsBeyond = len(beyond)
	}
	st := im.c.store
	if have, err := st.ReasoningGraphBySource(ctx, sha); err == nil {
		// The same file again: nothing changes, but a conversation the
		// graph lacks is given to it.
		ri.GraphID, ri.URI, ri.Title = have.ID, link.Reasoning(have.ID).String(), have.Title
		fr.Status, fr.Reasoning = statusUnchanged, ri
		if msgs != nil && have.Messages != len(msgs) {
			if err := st.SetReasoningMessages(ctx, have.ID, messagesList(msgs)); err != nil {
				return fail(err)
			}
			fr.Status = statusImported
			im.c.emitEvent("reasoning:changed", ReasoningChanged{GraphID: have.ID})
			return fr, true
		}
		return fr, false
	} else if !errors.Is(err, store.ErrNotFound) {
		return fail(err)
	}
	base, err := g.Log().Base.MarshalJSON()
	if err != nil {
		return fail(err)
	}
	cb, _ := json.Marshal(counts)
	now := time.Now().UTC()
	rec := &store.ReasoningGraph{ID: loom.NewID(now), Title: graphTitle(g, p), SourceName: path.Base(filepath.ToSlash(p)),
		SourceSHA256: sha, Snapshot: f.data, Base: base, Counts: cb, CreatedAt: now}
	// The snapshot is kept as the file has it when writing it back gives the
	// same bytes (a file save_memory wrote), else as WriteSnapshot writes it:
	// equal to the file as JSON either way.
	if out, err := memobrain.WriteSnapshot(snap); err == nil && !bytes.Equal(out, f.data) {
		rec.Snapshot = out
	}
	if msgs != nil {
		rec.Messages = messagesList(msgs)
	}
	if err := st.CreateReasoningGraph(ctx, rec, nil, nil); err != nil {
		return fail(cancelled(ctx, err, true))
	}
	ri.GraphID, ri.URI, ri.Title = rec.ID, link.Reasoning(rec.ID).String(), rec.Title
	fr.Status, fr.Reasoning = statusImported, ri
	im.c.emitEvent("reasoning:changed", ReasoningChanged{GraphID: rec.ID})
	return fr, true
}

// graphTitle names a graph: its task (the first task node's text without
// init's "Begin to solve the task: "), cut to 80 characters, else the file
// name it came from.
func graphTitle(g *memobrain.Graph, file string) string {
	for _, n := range g.Nodes() {
		if n.Kind != memobrain.KindTask {
			continue
		}
		v := viewNode("", n, 0)
		if t := titleText(v.Label); t != "" {
			return t
		}
	}
	return strings.TrimSuffix(path.Base(filepath.ToSlash(file)), path.Ext(file))
}

// titleText is text cut to 80 characters at a word.
func titleText(text string) string {
	r := []rune(strings.Join(strings.Fields(text), " "))
	if len(r) <= 80 {
		return string(r)
	}
	cut := 79
	for cut > 40 && r[cut] != ' ' {
		cut--
	}
	return strings.TrimSpace(string(r[:cut])) + "…"
}
