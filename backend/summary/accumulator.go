package summary

import (
	"encoding/json"
	"strings"

	"rhizome/backend/session"
)

// Bounds on what an Accumulator keeps, whatever the session's size.
const (
	maxPoolTurns   = 32   // turns kept between the first and the last (thinned by halving)
	maxTurnFiles   = 6    // files edited named per turn
	maxFiles       = 2000 // distinct files edited
	maxDigests     = 8    // pi summaries kept (the first ones and the last)
	maxReplyBytes  = 8 << 10
	maxNameRunes   = 200
	maxDigestBytes = maxInspectBytes
)

// turn is one request and what came of it: the user's request, the outcome
// the assistant reported last before the next request, and the files edited
// meanwhile.
type turn struct {
	seq      int // Entry.Seq of the request
	req      request
	outcome  string
	strength int      // outcomeNone, outcomeChecks, outcomeState or outcomeStrong
	files    []string // names of the files edited, at most maxTurnFiles
}

// weight ranks a turn for the summaries: its request's score and how surely
// its outcome says what was done.
func (t *turn) weight() int {
	if t.req.look && t.strength <= outcomeState {
		// A look's answer says what it found, not work done: it weighs
		// nothing more in the choice of a run's turns.
		return t.req.score
	}
	return t.req.score + t.strength
}

// digestAt is a pi summary and where it was.
type digestAt struct {
	seq        int
	compaction bool  // a compaction; else a branch summary
	tokens     int64 // a compaction's tokensBefore: the context it replaced
	d          Digest
}

// Accumulator collects what the summaries of a run of entries need, entry by
// entry: a segment's entries for Segment, a whole session's for Session. It
// keeps bounded facts only, so a 1 GB session needs no more memory than a
// small one: the first and last requests and a pool of at most 32 others
// (halved, keeping the better of each neighbouring pair, when full, so that
// the whole run stays covered), the outcome of each, at most 2000 edited
// file names, 8 of pi's summaries and the latest session name. Every text
// it reads is capped at 16 KB.
//
// An Accumulator is not safe for concurrent use. The zero value is not
// ready: use NewAccumulator.
type Accumulator struct {
	entries     int
	lastEntryID string
	name        string // the latest session_info name

	first, last *turn // the first and the latest request
	pool        []turn
	stride      int  // pool keeps one turn in stride (1, 2, 4, …)
	skipped     int  // turns seen in the pool's window under way
	cand        turn // the best turn of that window
	requests    int  // meaningful requests

	files     map[string]int // edited file path -> order of first edit
	fileOrder []string       // edited paths in first-edit order (bounded)

	digests     []digestAt
	following   *Digest // the branch summary of the entry that opens the next segment
	followingID string  // that entry's id

	lastReply string // the last assistant text (capped)
	scratch   []byte
}

// NewAccumulator returns an empty accumulator.
func NewAccumulator() *Accumulator {
	return &Accumulator{stride: 1, files: map[string]int{}}
}

// Reset empties the accumulator for the next run, keeping its memory.
func (a *Accumulator) Reset() {
	files := a.files
	clear(files)
	*a = Accumulator{stride: 1, files: files, pool: a.pool[:0], scratch: a.scratch[:0],
		fileOrder: a.fileOrder[:0], digests: a.digests[:0]}
}

// Add feeds the next entry, in file order. A nil entry is ignored. Add keeps
// no reference to e beyond its id: the texts it keeps are copied and capped.
func (a *Accumulator) Add(e *session.Entry) {
	if e == nil {
		return
	}
	a.entries++
	a.lastEntryID = e.ID
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			a.addMessage(e.Seq, e.Message)
		}
	case session.TypeCompaction, session.TypeBranchSummary:
		a.addDigest(e)
	case session.TypeSessionInfo:
		a.name = strings.Clone(cutRunes(collapseSpace(e.Name), maxNameRunes))
	}
}

// NameIfNone gives the session the name given, as session_info would, when
// its entries named it nothing: a title kept outside the session's lines
// (Codex's session_index.jsonl, the library's name of a stored session).
func (a *Accumulator) NameIfNone(name string) {
	if a.name == "" {
		a.name = strings.Clone(cutRunes(collapseSpace(name), maxNameRunes))
	}
}

// Followed tells a segment's accumulator the entry that opens the next
// segment, once the segment is closed. A branch_summary there is pi's
// summary of this segment, which the user navigated away from: Segment then
// uses it first. Other entries are ignored. (In the importer's loop, it is
// the entry whose Builder.Add step closed this segment.)
func (a *Accumulator) Followed(e *session.Entry) {
	if e == nil || e.Type != session.TypeBranchSummary {
		return
	}
	d := ParseDigest(e.Summary)
	if d.Empty() {
		return
	}
	a.following = &d
	a.followingID = strings.Clone(e.ID)
}

// addDigest keeps a compaction or branch summary: the first maxDigests-1 and
// the latest.
func (a *Accumulator) addDigest(e *session.Entry) {
	d := ParseDigest(capBytes(e.Summary, maxDigestBytes))
	if d.Empty() {
		return
	}
	if len(d.Modified) == 0 && len(e.Details) > 0 {
		var det struct {
			ModifiedFiles []string `json:"modifiedFiles"`
		}
		if json.Unmarshal(e.Details, &det) == nil {
			for _, f := range det.ModifiedFiles {
				if len(d.Modified) < maxDigestItems {
					d.Modified = append(d.Modified, f)
				}
			}
		}
	}
	da := digestAt{seq: e.Seq, compaction: e.Type == session.TypeCompaction, tokens: e.TokensBefore, d: d}
	if len(a.digests) == maxDigests {
		a.digests[maxDigests-1] = da
		return
	}
	a.digests = append(a.digests, da)
}

// addMessage feeds one message.
func (a *Accumulator) addMessage(seq int, m *session.Message) {
	switch m.Role {
	case session.RoleUser:
		a.scratch = appendText(a.scratch[:0], m.Content, maxInspectBytes)
		if len(strings.TrimSpace(string(a.scratch))) == 0 {
			return
		}
		r, ok := parseRequest(string(a.scratch))
		if !ok {
			return // steering ("ok", "continue") keeps the request under way open
		}
		a.requests++
		a.startTurn(turn{seq: seq, req: r})
	case session.RoleAssistant:
		for i := range m.Content {
			b := &m.Content[i]
			switch b.Type {
			case session.BlockText:
				if strings.TrimSpace(b.Text) == "" {
					continue
				}
				a.lastReply = strings.Clone(capBytes(b.Text, maxReplyBytes))
				if t := a.last; t != nil {
					if o, s := outcomeOf(a.lastReply); s >= t.strength && s > outcomeNone {
						t.outcome, t.strength = o, s
					} else if t.strength < outcomeState && (strings.HasSuffix(t.req.phrase, "?") || t.req.look) {
						if ans := answerOf(a.lastReply); ans != "" {
							t.outcome, t.strength = lowerFirst(ans), outcomeState
						}
					}
				}
			case session.BlockToolCall:
				a.addToolCall(b)
			}
		}
	}
}

// editTools are the tools that change a file, by lowercase name (GitHub
// Copilot CLI's create writes a new file: {path, file_text}).
var editTools = wordSet(`write edit write_file edit_file create_file create multiedit multi_edit str_replace
str_replace_editor str_replace_based_edit_tool notebookedit apply_patch patch`)

// addToolCall records the file an edit or write call changes.
func (a *Accumulator) addToolCall(b *session.Block) {
	if !editTools[strings.ToLower(b.Name)] || len(b.Arguments) == 0 || b.Arguments[0] != '{' {
		return
	}
	var args struct {
		Path     string `json:"path"`
		FilePath string `json:"file_path"`
	}
	if json.Unmarshal(b.Arguments, &args) != nil {
		return
	}
	p := args.Path
	if p == "" {
		p = args.FilePath
	}
	if p == "" {
		return
	}
	if _, ok := a.files[p]; !ok && len(a.files) < maxFiles {
		p = strings.Clone(p)
		a.files[p] = len(a.fileOrder)
		a.fileOrder = append(a.fileOrder, p)
	}
	if t := a.last; t != nil {
		name := baseName(p)
		for _, f := range t.files {
			if f == name {
				return
			}
		}
		if len(t.files) < maxTurnFiles {
			t.files = append(t.files, name)
		}
	}
}

// startTurn closes the turn under way (into the pool) and opens t.
func (a *Accumulator) startTurn(t turn) {
	if a.first == nil {
		a.first = &turn{}
		*a.first = t
		a.last = a.first
		return
	}
	if a.last != a.first {
		a.pooled(*a.last)
	}
	a.last = &turn{}
	*a.last = t
}

// pooled offers a closed turn (neither the first nor the latest) to the
// pool. The pool keeps the best turn of every window of stride turns; when
// it is full it merges neighbouring pairs (keeping the better) and doubles
// the stride, so its turns stay spread over the whole run.
func (a *Accumulator) pooled(t turn) {
	if a.skipped == 0 || t.weight() > a.cand.weight() {
		a.cand = t
	}
	a.skipped++
	if a.skipped < a.stride {
		return
	}
	a.skipped = 0
	if len(a.pool) == maxPoolTurns {
		half := a.pool[:0]
		for i := 0; i+1 < len(a.pool); i += 2 {
			x, y := a.pool[i], a.pool[i+1]
			if y.weight() > x.weight() {
				x = y
			}
			half = append(half, x)
		}
		a.pool = half
		a.stride *= 2
	}
	a.pool = append(a.pool, a.cand)
}

// turns returns the kept turns in order: the first, the pool, the latest.
func (a *Accumulator) turns() []turn {
	if a.first == nil {
		return nil
	}
	out := []turn{*a.first}
	out = append(out, a.pool...)
	if a.skipped > 0 {
		out = append(out, a.cand) // the best of the window under way
	}
	if a.last != a.first {
		out = append(out, *a.last)
	}
	return out
}

// appendText appends the text blocks of blocks to buf, separated by
// newlines, up to limit bytes.
func appendText(buf []byte, blocks []session.Block, limit int) []byte {
	for i := range blocks {
		b := &blocks[i]
		if b.Type != session.BlockText || b.Text == "" || len(buf) >= limit {
			continue
		}
		if len(buf) > 0 {
			buf = append(buf, '\n')
		}
		buf = append(buf, capBytes(b.Text, limit-len(buf))...)
	}
	return buf
}
