package app

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"rhizome/app/ingest"
	"rhizome/backend/link"
	"rhizome/backend/loom"
	"rhizome/backend/memobrain"
	"rhizome/backend/sessionformat"
	"rhizome/store"
)

// Importing MemoBrain files: the import engine sniffs every file first and
// keeps the MemoBrain snapshots and conversations, detected by content, for
// the app (ingest.Report.Reasoning), which imports them here once the
// sessions are written (Import.runWith). A snapshot becomes a reasoning graph, in one transaction;
// a conversation (a JSON list of messages) goes with the snapshot it was
// dropped with.

// importReasoning imports the MemoBrain files of an import, appending their
// reports to rep; it reports whether the library changed. Conversations go
// with a snapshot of the same import: the one whose file name is theirs
// without a "messages" or "conversation" word (example_messages.json goes
// with example_snapshot.json or example.json), else the only snapshot when
// there is one. A conversation left alone fails, saying so.
func (im *Import) importReasoning(ctx context.Context, files []ingest.ReasoningFile, rep *ImportReport) bool {
	if len(files) == 0 {
		return false
	}
	var snaps, convs []int
	for i, f := range files {
		if f.Conversation {
			convs = append(convs, i)
		} else {
			snaps = append(snaps, i)
		}
	}
	pairOf := map[int]int{} // snapshot index -> conversation index
	convDone := map[int]string{}
	for _, c := range convs {
		stem := fileStem(files[c].Path)
		for _, s := range snaps {
			if _, taken := pairOf[s]; !taken && fileStem(files[s].Path) == stem {
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
				cr := newReasoningReport(files[conv].Path)
				cr.Status, cr.Error = fr.Status, ""
				r := *fr.Reasoning
				r.MessagesFile = ""
				cr.Reasoning = &r
				if fr.Status == ingest.StatusFailed {
					cr.Error = files[conv].Path + ": not imported: its snapshot " + files[s].Path + " failed"
				}
				reports[conv] = cr
			} else {
				reports[conv] = reasoningFailed(files[conv].Path, fmt.Errorf("not imported: its snapshot %s failed", files[s].Path))
			}
		}
	}
	for _, c := range convs {
		if _, ok := convDone[c]; ok {
			continue
		}
		reports[c] = reasoningFailed(files[c].Path, errors.New(
			"a MemoBrain conversation (a list of messages) without its snapshot: import it together with the snapshot it belongs to, or attach it to the graph in the Reasoning view"))
	}
	for _, fr := range reports {
		rep.Files = append(rep.Files, fr)
		t := &rep.Totals
		t.Files++
		switch fr.Status {
		case ingest.StatusImported:
			t.Imported++
		case ingest.StatusUnchanged:
			t.Unchanged++
		default:
			t.Failed++
		}
	}
	return changed
}

// newReasoningReport is the empty report of the MemoBrain file at p.
func newReasoningReport(p string) FileReport {
	fr := fileReport(ingest.NewFileReport(p))
	fr.Format = sessionformat.MemoBrain
	return fr
}

// reasoningFailed is the report of the MemoBrain file at p, failed for err.
func reasoningFailed(p string, err error) FileReport {
	fr := ingest.NewFileReport(p)
	fr.Format = sessionformat.MemoBrain
	return fileReport(ingest.Failed(fr, p, err))
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
func (im *Import) importSnapshot(ctx context.Context, f ingest.ReasoningFile, conv int, files []ingest.ReasoningFile) (FileReport, bool) {
	p := f.Path
	fr := newReasoningReport(p)
	fail := func(err error) (FileReport, bool) {
		return reasoningFailed(p, err), false
	}
	if f.Err != nil {
		return fail(f.Err)
	}
	snap, err := memobrain.ReadSnapshot(f.Data)
	if err != nil {
		return fail(err)
	}
	var msgs []memobrain.Message
	msgsFile := ""
	if conv >= 0 {
		if msgs, err = memobrain.ReadMessages(files[conv].Data); err != nil {
			return fail(fmt.Errorf("its conversation %s: %w", files[conv].Path, err))
		}
		msgsFile = files[conv].Path
	} else if msgs, err = snap.Messages(); err != nil {
		return fail(err)
	}
	sum := sha256.Sum256(f.Data)
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
		fr.Status, fr.Reasoning = ingest.StatusUnchanged, ri
		if msgs != nil && have.Messages != len(msgs) {
			if err := st.SetReasoningMessages(ctx, have.ID, messagesList(msgs)); err != nil {
				return fail(err)
			}
			fr.Status = ingest.StatusImported
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
		SourceSHA256: sha, Snapshot: f.Data, Base: base, Counts: cb, CreatedAt: now}
	// The snapshot is kept as the file has it when writing it back gives the
	// same bytes (a file save_memory wrote), else as WriteSnapshot writes it:
	// equal to the file as JSON either way.
	if out, err := memobrain.WriteSnapshot(snap); err == nil && !bytes.Equal(out, f.Data) {
		rec.Snapshot = out
	}
	if msgs != nil {
		rec.Messages = messagesList(msgs)
	}
	if err := st.CreateReasoningGraph(ctx, rec, nil, nil); err != nil {
		return fail(ingest.Cancelled(ctx, err, true))
	}
	ri.GraphID, ri.URI, ri.Title = rec.ID, link.Reasoning(rec.ID).String(), rec.Title
	fr.Status, fr.Reasoning = ingest.StatusImported, ri
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
