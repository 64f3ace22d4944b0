package analyze

import (
	"encoding/json"
	"fmt"
	"time"

	"rhizome/backend/graph"
)

// accumulatorState is an Accumulator's facts in a form that marshals to
// JSON: what the importer keeps with a session so that, when the file
// grows, the open segment's node is made from the new entries alone
// (Accumulator.MarshalJSON, UnmarshalJSON). Its size is bounded as the
// Accumulator's is (a few KB; at most maxTerms words, maxFiles paths).
type accumulatorState struct {
	Entries   int       `json:"entries"`
	FirstID   string    `json:"firstId,omitempty"`
	LastID    string    `json:"lastId,omitempty"`
	FirstTime time.Time `json:"firstTime"`
	LastTime  time.Time `json:"lastTime"`

	FirstRequest  string            `json:"firstRequest,omitempty"`
	SawRequest    bool              `json:"sawRequest,omitempty"`
	Requests      []string          `json:"requests,omitempty"`
	LastRequest   string            `json:"lastRequest,omitempty"`
	Meaningful    int               `json:"meaningful,omitempty"`
	FirstClasses  uint8             `json:"firstClasses,omitempty"`
	ClassMessages [8]int            `json:"classMessages"`
	Terms         map[string][2]int `json:"terms,omitempty"` // word: [count, first]
	TermSeq       int               `json:"termSeq,omitempty"`
	Handoff       bool              `json:"handoff,omitempty"`

	AssistantMessages int    `json:"assistantMessages,omitempty"`
	Reply             string `json:"reply,omitempty"`
	LongReply         string `json:"longReply,omitempty"`
	LastStop          string `json:"lastStop,omitempty"`
	Fallback          string `json:"fallback,omitempty"`

	Tools       map[string]int     `json:"tools,omitempty"`
	Files       map[string]int     `json:"files,omitempty"` // path: touches
	Edits       [kindMedia + 1]int `json:"edits"`
	TestEdits   int                `json:"testEdits,omitempty"`
	ReadCalls   int                `json:"readCalls,omitempty"`
	WebCalls    int                `json:"webCalls,omitempty"`
	Bash        [6]int             `json:"bash"` // testRuns, sysadmin, reads, web, data, commands
	Frameworks  map[string]int     `json:"frameworks,omitempty"`
	ManifestIDs []string           `json:"manifestIds,omitempty"`
	BashKeys    map[string]string  `json:"bashKeys,omitempty"`

	Errs            []graph.ErrorSummary `json:"errs,omitempty"`
	OpenErrs        map[string][]int     `json:"openErrs,omitempty"`
	Unresolved      map[string]int       `json:"unresolved,omitempty"`
	LastResultError bool                 `json:"lastResultError,omitempty"`

	Models    []modelState `json:"models,omitempty"`
	Tokens    int64        `json:"tokens,omitempty"`
	TextBytes int64        `json:"textBytes,omitempty"`
}

// modelState is one model's usage sums; cost in 1e-12 USD.
type modelState struct {
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Input      int64  `json:"input"`
	Output     int64  `json:"output"`
	CacheRead  int64  `json:"cacheRead"`
	CacheWrite int64  `json:"cacheWrite"`
	CostPico   int64  `json:"costPico"`
}

// MarshalJSON encodes what the accumulator has gathered from the entries
// added so far (the segment's facts, not its entries): UnmarshalJSON into
// another accumulator lets it go on as this one would.
func (a *Accumulator) MarshalJSON() ([]byte, error) {
	s := accumulatorState{
		Entries: a.entries, FirstID: a.firstID, LastID: a.lastID, FirstTime: a.firstTime, LastTime: a.lastTime,
		FirstRequest: a.firstRequest, SawRequest: a.sawRequest, Requests: a.requests, LastRequest: a.lastRequest,
		Meaningful: a.meaningful, FirstClasses: uint8(a.firstClasses), ClassMessages: a.classMessages,
		TermSeq: a.termSeq, Handoff: a.handoff,
		AssistantMessages: a.assistantMessages, Reply: string(a.reply), LongReply: string(a.longReply),
		LastStop: a.lastStop, Fallback: a.fallback,
		Tools: a.tools, Edits: a.edits, TestEdits: a.testEdits, ReadCalls: a.readCalls, WebCalls: a.webCalls,
		Bash:       [6]int{a.bash.testRuns, a.bash.sysadmin, a.bash.reads, a.bash.web, a.bash.data, a.bash.commands},
		Frameworks: a.frameworks, BashKeys: a.bashKeys,
		Errs: a.errs, OpenErrs: a.openErrs, Unresolved: a.unresolved, LastResultError: a.lastResultError,
		Tokens: a.tokens, TextBytes: a.textBytes,
	}
	s.Terms = make(map[string][2]int, len(a.terms))
	for w, t := range a.terms {
		s.Terms[w] = [2]int{t.count, t.first}
	}
	s.Files = make(map[string]int, len(a.files))
	for p, f := range a.files {
		s.Files[p] = f.touches
	}
	for id := range a.manifestIDs {
		s.ManifestIDs = append(s.ManifestIDs, id)
	}
	for k, m := range a.models {
		s.Models = append(s.Models, modelState{Provider: k.provider, Model: k.model, Input: m.input, Output: m.output,
			CacheRead: m.cacheRead, CacheWrite: m.cacheWrite, CostPico: m.costPico})
	}
	return json.Marshal(s)
}

// UnmarshalJSON replaces what the accumulator holds with a state
// MarshalJSON wrote. On an error (not such a state) it is left as it was.
func (a *Accumulator) UnmarshalJSON(b []byte) error {
	var s accumulatorState
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("analyze: unable to restore an accumulator: %w", err)
	}
	n := NewAccumulator()
	n.entries, n.firstID, n.lastID, n.firstTime, n.lastTime = s.Entries, s.FirstID, s.LastID, s.FirstTime, s.LastTime
	n.firstRequest, n.sawRequest, n.requests, n.lastRequest = s.FirstRequest, s.SawRequest, s.Requests, s.LastRequest
	n.meaningful, n.firstClasses, n.classMessages = s.Meaningful, wordClass(s.FirstClasses), s.ClassMessages
	n.termSeq, n.handoff = s.TermSeq, s.Handoff
	n.assistantMessages, n.lastStop, n.fallback = s.AssistantMessages, s.LastStop, s.Fallback
	n.reply, n.longReply = []byte(s.Reply), []byte(s.LongReply)
	n.edits, n.testEdits, n.readCalls, n.webCalls = s.Edits, s.TestEdits, s.ReadCalls, s.WebCalls
	n.bash = bashFacts{testRuns: s.Bash[0], sysadmin: s.Bash[1], reads: s.Bash[2], web: s.Bash[3], data: s.Bash[4], commands: s.Bash[5]}
	n.errs, n.lastResultError, n.tokens, n.textBytes = s.Errs, s.LastResultError, s.Tokens, s.TextBytes
	for w, t := range s.Terms {
		n.terms[w] = termStat{count: t[0], first: t[1]}
	}
	for k, v := range s.Tools {
		n.tools[k] = v
	}
	for p, c := range s.Files {
		n.files[p] = &fileFacts{touches: c}
	}
	for k, v := range s.Frameworks {
		n.frameworks[k] = v
	}
	for _, id := range s.ManifestIDs {
		n.manifestIDs[id] = true
	}
	for k, v := range s.BashKeys {
		n.bashKeys[k] = v
	}
	for i, e := range n.errs {
		n.errIndex[e.Type+"\x00"+e.Message] = i
	}
	for k, v := range s.OpenErrs {
		n.openErrs[k] = v
	}
	for k, v := range s.Unresolved {
		n.unresolved[k] = v
	}
	for _, m := range s.Models {
		n.models[modelKey{m.Provider, m.Model}] = &modelSums{input: m.Input, output: m.Output, cacheRead: m.CacheRead,
			cacheWrite: m.CacheWrite, costPico: m.CostPico}
	}
	*a = *n
	return nil
}
