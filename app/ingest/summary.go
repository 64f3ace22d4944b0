package ingest

import (
	"time"

	"rhizome/backend/analyze"
	"rhizome/backend/graph"
	"rhizome/backend/segment"
	"rhizome/backend/session"
	"rhizome/backend/summary"
	"rhizome/store"
)

// Summaries while importing: a summary.Pass beside the reader's segment
// builder makes the offline summaries of the segments read whole (and of
// the session, when the file was read from its start), cheaply, as the
// entries stream by; the node of each segment takes its summary's sentence
// as its content.summary. The writer saves them in the file's transaction.
// What the import cannot make (an append: the session's summary, a
// compaction over segments stored before) is queued for the summaries
// worker, which remakes it from the stored entries.

// importSummaries is the reader's side: the pass and what it made.
type importSummaries struct {
	pass        *summary.Pass
	made        []summary.Made
	text        map[int]string // offline sentence of each segment summarised, by index
	lastEntryID string
}

func newImportSummaries(hdr *session.Header, now time.Time) *importSummaries {
	return &importSummaries{pass: summary.NewPass(hdr.ID, hdr.Cwd, now), text: map[int]string{}}
}

// add feeds entry e and the builder's step for it; feed is false for the
// entries an append replays before the last stored segment.
func (s *importSummaries) add(e *session.Entry, step segment.Step, segmentOf func(string) (int, bool), feed bool) {
	s.lastEntryID = e.ID
	if !feed {
		return
	}
	s.pass.Add(e, step, segmentOf)
	s.collect()
}

// finish closes the last segment (nil for none).
func (s *importSummaries) finish(last *segment.Segment) {
	s.pass.Finish(last)
	s.collect()
}

func (s *importSummaries) collect() {
	for _, m := range s.pass.Take() {
		if m.Summary.Source != summary.SourcePi || s.text[m.Segment] == "" {
			s.text[m.Segment] = m.Summary.Text
		}
		s.made = append(s.made, m)
	}
}

// label gives node n (of segment seg) its summary's sentence as its
// content.summary, when the segment was summarised.
func (s *importSummaries) label(n *graph.Node, seg *segment.Segment) {
	if t := s.text[seg.Index]; t != "" {
		n.Content.Summary = t
	}
}

// take returns what was made since the last take.
func (s *importSummaries) take() []summary.Made {
	out := s.made
	s.made = nil
	return out
}

// summaryWrites are the writer's side: the summaries of a file's import,
// and what to queue, for the session sessionID of project cwd. sess is the
// session's offline summary when the file was read from its start, else nil
// (current is then its inputs' hash: the worker makes it again). model
// says summaries are made with a model (the items are queued for it).
func summaryWrites(sessionID, cwd string, made []summary.Made, sess *summary.Summary, current string, model bool) []store.SummaryWrite {
	ws := make([]store.SummaryWrite, 0, len(made)+2)
	for _, m := range made {
		v := versionOf(m.Summary)
		h := m.Summary.InputHash
		w := store.SummaryWrite{Key: store.NodeSummaryKey(analyze.NodeID(sessionID, m.StartSeq)), InputHash: &h, Add: &v}
		if model && m.Summary.Source != summary.SourcePi {
			w.Queue = store.QueueModel
		}
		ws = append(ws, w)
	}
	w := store.SummaryWrite{Key: store.SessionSummaryKey(sessionID), InputHash: &current, Queue: store.QueueOffline}
	if sess != nil {
		v := versionOf(*sess)
		w.Add, w.InputHash, w.Queue = &v, &sess.InputHash, ""
	}
	if model {
		w.Queue = store.QueueModel
	}
	ws = append(ws, w)
	if cwd == "" {
		return ws // a session that names no project (a Codex rollout of the bare era)
	}
	return append(ws, store.SummaryWrite{Key: store.ProjectSummaryKey(cwd), Queue: store.QueueOffline})
}

// versionOf is the stored version of summary s.
func versionOf(s summary.Summary) store.SummaryVersion {
	return store.SummaryVersion{Title: s.Title, Text: s.Text, Label: s.Label, Source: s.Source, InputHash: s.InputHash, MadeAt: s.MadeAt}
}
