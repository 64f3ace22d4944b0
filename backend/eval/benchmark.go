package eval

import (
	"fmt"
	"time"
)

// Benchmark is a conversational-memory benchmark in one shape: the
// conversations to import and the questions asked of them.
type Benchmark struct {
	Name          string // "locomo", "longmemeval"
	Conversations []Conversation
	Questions     []Question
}

// Conversation is one history a question is asked of: dated sessions of
// turns between two speakers (LoCoMo), or a user and an assistant
// (LongMemEval's haystack of one question).
type Conversation struct {
	ID       string // the sample id (LoCoMo) or question id (LongMemEval)
	SpeakerA string // the speaker whose turns are imported as the user's
	SpeakerB string
	Sessions []Session
}

// Session is one dated session of a conversation.
type Session struct {
	ID    string    // "session_3" (LoCoMo) or the haystack session id
	Time  time.Time // when it took place; zero when the file gives none
	Turns []Turn
}

// Turn is one utterance. ID is the benchmark's id of the turn: LoCoMo's
// dia_id ("D3:7"), or "<session id>#<index>" for LongMemEval.
type Turn struct {
	ID      string
	Speaker string
	// Role is "user" for SpeakerA's turns (LongMemEval: the user), else
	// "assistant".
	Role string
	Text string // the utterance, with a shared image's caption appended
}

// Question is one question with the turns and sessions that hold its
// evidence.
type Question struct {
	ID           string
	Conversation int // index into Benchmark.Conversations
	Text         string
	Answer       string
	Category     string // LoCoMo: multi-hop, temporal, open-domain, single-hop, adversarial; LongMemEval: question_type
	// Time is when the question is asked (LongMemEval's question_date);
	// zero when the benchmark gives none (LoCoMo).
	Time     time.Time
	Evidence []string // turn ids; empty for a question without evidence
	// EvidenceSessions are the sessions holding evidence (LongMemEval's
	// answer_session_ids, or the sessions of Evidence).
	EvidenceSessions []string
}

// Turns counts the benchmark's turns.
func (b *Benchmark) Turns() int {
	n := 0
	for _, c := range b.Conversations {
		for _, s := range c.Sessions {
			n += len(s.Turns)
		}
	}
	return n
}

// Sessions counts the benchmark's sessions.
func (b *Benchmark) Sessions() int {
	n := 0
	for _, c := range b.Conversations {
		n += len(c.Sessions)
	}
	return n
}

// SessionOfTurn maps every turn id of c to its session's id.
func (c *Conversation) SessionOfTurn() map[string]string {
	m := map[string]string{}
	for _, s := range c.Sessions {
		for _, t := range s.Turns {
			m[t.ID] = s.ID
		}
	}
	return m
}

// errAt is a reading error that names the file and the place in it.
func errAt(file, place, format string, args ...any) error {
	return fmt.Errorf("eval: %s: %s: %s", file, place, fmt.Sprintf(format, args...))
}
