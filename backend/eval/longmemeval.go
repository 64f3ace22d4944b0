package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// LongMemEvalTypes are LongMemEval's question types in the order reports
// list them.
var LongMemEvalTypes = []string{"single-session-user", "single-session-assistant", "single-session-preference",
	"multi-session", "temporal-reasoning", "knowledge-update"}

// longMemEvalDateLayouts read haystack_dates and question_date
// ("2023/05/20 (Sat) 02:21").
var longMemEvalDateLayouts = []string{"2006/01/02 (Mon) 15:04", "2006/01/02 (Mon) 15:04:05", "2006/01/02"}

type longMemEvalItem struct {
	QuestionID         string              `json:"question_id"`
	QuestionType       string              `json:"question_type"`
	Question           string              `json:"question"`
	Answer             json.RawMessage     `json:"answer"`
	QuestionDate       string              `json:"question_date"`
	HaystackSessionIDs []string            `json:"haystack_session_ids"`
	HaystackDates      []string            `json:"haystack_dates"`
	HaystackSessions   [][]longMemEvalTurn `json:"haystack_sessions"`
	AnswerSessionIDs   []string            `json:"answer_session_ids"`
}

type longMemEvalTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer"`
}

// ReadLongMemEval reads LongMemEval's longmemeval_s.json (or _m, or
// _oracle) from r (file names it in errors): a list of {question_id,
// question_type, question, answer, question_date, haystack_session_ids,
// haystack_dates, haystack_sessions: [[{role, content, has_answer?}]],
// answer_session_ids}. Every question is a conversation of its own (its
// haystack), asked at its question_date. Its evidence turns are those
// marked has_answer, its evidence sessions answer_session_ids; an
// abstention question (question_id ending in "_abs") has none. Errors name
// the file, the question and the field.
func ReadLongMemEval(r io.Reader, file string) (*Benchmark, error) {
	var items []longMemEvalItem
	if err := json.NewDecoder(r).Decode(&items); err != nil {
		return nil, errAt(file, "top level", "not a LongMemEval file (a JSON list of questions): %v", err)
	}
	b := &Benchmark{Name: "longmemeval"}
	for i, it := range items {
		place := fmt.Sprintf("question %d (%s)", i, it.QuestionID)
		if it.QuestionID == "" {
			return nil, errAt(file, place, "no question_id")
		}
		if len(it.HaystackSessionIDs) != len(it.HaystackSessions) || len(it.HaystackDates) != len(it.HaystackSessions) {
			return nil, errAt(file, place, "haystack_session_ids (%d), haystack_dates (%d) and haystack_sessions (%d) differ in length",
				len(it.HaystackSessionIDs), len(it.HaystackDates), len(it.HaystackSessions))
		}
		asked, err := parseLongMemEvalDate(it.QuestionDate)
		if err != nil && it.QuestionDate != "" {
			return nil, errAt(file, place, "question_date %q: want a time such as \"2023/05/20 (Sat) 02:21\"", it.QuestionDate)
		}
		conv := Conversation{ID: it.QuestionID, SpeakerA: "user", SpeakerB: "assistant"}
		q := Question{ID: it.QuestionID, Conversation: len(b.Conversations), Text: it.Question, Category: it.QuestionType,
			Answer: rawString(it.Answer), Time: asked}
		abstention := strings.HasSuffix(it.QuestionID, "_abs")
		for si, turns := range it.HaystackSessions {
			sid := it.HaystackSessionIDs[si]
			when, err := parseLongMemEvalDate(it.HaystackDates[si])
			if err != nil {
				return nil, errAt(file, place, "haystack_dates[%d] %q: want a time such as \"2023/05/20 (Sat) 02:21\"", si, it.HaystackDates[si])
			}
			s := Session{ID: sid, Time: when}
			for ti, t := range turns {
				if t.Role != "user" && t.Role != "assistant" {
					return nil, errAt(file, place, "haystack_sessions[%d][%d].role %q: want user or assistant", si, ti, t.Role)
				}
				id := fmt.Sprintf("%s#%d", sid, ti)
				s.Turns = append(s.Turns, Turn{ID: id, Speaker: t.Role, Role: t.Role, Text: t.Content})
				if t.HasAnswer && !abstention {
					q.Evidence = append(q.Evidence, id)
				}
			}
			conv.Sessions = append(conv.Sessions, s)
		}
		if !abstention {
			q.EvidenceSessions = append(q.EvidenceSessions, it.AnswerSessionIDs...)
		}
		b.Conversations = append(b.Conversations, conv)
		b.Questions = append(b.Questions, q)
	}
	return b, nil
}

// parseLongMemEvalDate reads "2023/05/20 (Sat) 02:21" as UTC.
func parseLongMemEvalDate(s string) (time.Time, error) {
	var err error
	for _, layout := range longMemEvalDateLayouts {
		var t time.Time
		if t, err = time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}
