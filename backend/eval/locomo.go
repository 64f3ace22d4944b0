package eval

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// LoCoMo's question categories, by the number locomo10.json gives them.
var locomoCategories = map[int]string{1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}

// LoCoMoCategories are LoCoMo's categories in the order reports list them.
var LoCoMoCategories = []string{"single-hop", "multi-hop", "temporal", "open-domain", "adversarial"}

// locomoDateLayouts read session_<n>_date_time ("1:56 pm on 8 May, 2023").
var locomoDateLayouts = []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"}

var (
	locomoSessionKey = regexp.MustCompile(`^session_(\d+)$`)
	// locomoTurnID finds dia_ids in an evidence string: "D8:6; D9:17"
	// holds two.
	locomoTurnID = regexp.MustCompile(`D\d+:\d+`)
)

type locomoSample struct {
	SampleID     json.RawMessage            `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []locomoQA                 `json:"qa"`
}

type locomoQA struct {
	Question          string          `json:"question"`
	Answer            json.RawMessage `json:"answer"`
	AdversarialAnswer json.RawMessage `json:"adversarial_answer"`
	Evidence          []string        `json:"evidence"`
	Category          int             `json:"category"`
}

type locomoTurn struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

// ReadLoCoMo reads LoCoMo's locomo10.json from r (file names it in
// errors): a list of samples {sample_id, conversation: {speaker_a,
// speaker_b, session_<n>: [{speaker, dia_id, text, img_url?,
// blip_caption?}], session_<n>_date_time}, qa: [{question, answer |
// adversarial_answer, evidence, category}]}. A shared image's caption is
// appended to its turn ("[shares a photo: a dog on a beach]"), as the
// benchmark's authors give it to models. Evidence ids the conversation does
// not hold are dropped (the published file has a few malformed ones) and
// counted in the second result. Errors name the file, the sample and the
// field; a file that is not a list of samples is an error.
func ReadLoCoMo(r io.Reader, file string) (*Benchmark, int, error) {
	var samples []locomoSample
	if err := json.NewDecoder(r).Decode(&samples); err != nil {
		return nil, 0, errAt(file, "top level", "not a LoCoMo file (a JSON list of samples): %v", err)
	}
	b := &Benchmark{Name: "locomo"}
	dropped := 0
	for si, s := range samples {
		id := rawString(s.SampleID)
		if id == "" {
			id = strconv.Itoa(si)
		}
		place := fmt.Sprintf("sample %d (%s)", si, id)
		conv, err := locomoConversation(id, s.Conversation)
		if err != nil {
			return nil, 0, errAt(file, place, "%v", err)
		}
		sessionOf := conv.SessionOfTurn()
		ci := len(b.Conversations)
		b.Conversations = append(b.Conversations, conv)
		for qi, qa := range s.QA {
			cat, ok := locomoCategories[qa.Category]
			if !ok {
				return nil, 0, errAt(file, fmt.Sprintf("%s, qa %d", place, qi), "category %d, want 1-5", qa.Category)
			}
			q := Question{ID: fmt.Sprintf("%s/q%d", id, qi), Conversation: ci, Text: qa.Question, Category: cat,
				Answer: rawString(qa.Answer)}
			if q.Answer == "" {
				q.Answer = rawString(qa.AdversarialAnswer)
			}
			seenSession := map[string]bool{}
			for _, ev := range qa.Evidence {
				for _, t := range locomoTurnID.FindAllString(ev, -1) {
					sid, ok := sessionOf[t]
					if !ok {
						dropped++
						continue
					}
					if !slices.Contains(q.Evidence, t) {
						q.Evidence = append(q.Evidence, t)
					}
					if !seenSession[sid] {
						seenSession[sid] = true
						q.EvidenceSessions = append(q.EvidenceSessions, sid)
					}
				}
			}
			if cat == "adversarial" {
				// No answer in the conversation: not scored for recall.
				q.Evidence, q.EvidenceSessions = nil, nil
			}
			b.Questions = append(b.Questions, q)
		}
	}
	return b, dropped, nil
}

// locomoConversation reads one sample's conversation object.
func locomoConversation(id string, c map[string]json.RawMessage) (Conversation, error) {
	conv := Conversation{ID: id, SpeakerA: rawString(c["speaker_a"]), SpeakerB: rawString(c["speaker_b"])}
	if conv.SpeakerA == "" || conv.SpeakerB == "" {
		return conv, fmt.Errorf("conversation: speaker_a and speaker_b are required")
	}
	var nums []int
	for k := range c {
		if m := locomoSessionKey.FindStringSubmatch(k); m != nil {
			n, _ := strconv.Atoi(m[1])
			nums = append(nums, n)
		}
	}
	sort.Ints(nums)
	seen := map[string]bool{}
	for _, n := range nums {
		key := fmt.Sprintf("session_%d", n)
		var turns []locomoTurn
		if err := json.Unmarshal(c[key], &turns); err != nil {
			return conv, fmt.Errorf("conversation.%s: want a list of turns: %v", key, err)
		}
		s := Session{ID: key}
		if raw, ok := c[key+"_date_time"]; ok {
			when := rawString(raw)
			t, err := parseLoCoMoDate(when)
			if err != nil {
				return conv, fmt.Errorf("conversation.%s_date_time: %q: want a time such as \"1:56 pm on 8 May, 2023\"", key, when)
			}
			s.Time = t
		}
		for ti, t := range turns {
			if t.DiaID == "" {
				return conv, fmt.Errorf("conversation.%s[%d]: no dia_id", key, ti)
			}
			if seen[t.DiaID] {
				return conv, fmt.Errorf("conversation.%s[%d]: dia_id %q twice", key, ti, t.DiaID)
			}
			seen[t.DiaID] = true
			role := "assistant"
			if t.Speaker == conv.SpeakerA {
				role = "user"
			}
			text := t.Text
			if t.BlipCaption != "" {
				text = strings.TrimSpace(text + " [shares a photo: " + t.BlipCaption + "]")
			}
			s.Turns = append(s.Turns, Turn{ID: t.DiaID, Speaker: t.Speaker, Role: role, Text: text})
		}
		conv.Sessions = append(conv.Sessions, s)
	}
	if len(conv.Sessions) == 0 {
		return conv, fmt.Errorf("conversation: no session_<n> lists")
	}
	return conv, nil
}

// parseLoCoMoDate reads "1:56 pm on 8 May, 2023" as UTC.
func parseLoCoMoDate(s string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	var err error
	for _, layout := range locomoDateLayouts {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, err
}

// rawString is a JSON string's value, or a number's or other value's JSON
// text ("" for null or absent).
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s
	}
	return string(raw)
}
