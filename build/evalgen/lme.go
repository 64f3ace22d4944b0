package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The LongMemEval half: each question has a haystack of its own, 20-28
// dated sessions in which a user asks an assistant about everyday tasks
// (lme_tasks.go); in one to three of them the user mentions, in passing,
// the personal fact the question is about (lme_scenarios.go).

// lmeItem is one question of longmemeval_s.json.
type lmeItem struct {
	QuestionID         string      `json:"question_id"`
	QuestionType       string      `json:"question_type"`
	Question           string      `json:"question"`
	Answer             string      `json:"answer"`
	QuestionDate       string      `json:"question_date"`
	HaystackSessionIDs []string    `json:"haystack_session_ids"`
	HaystackDates      []string    `json:"haystack_dates"`
	HaystackSessions   [][]lmeTurn `json:"haystack_sessions"`
	AnswerSessionIDs   []string    `json:"answer_session_ids"`
}

type lmeTurn struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	HasAnswer bool   `json:"has_answer,omitempty"`
}

// lmePlan is how many questions of each type a file has, and how many of
// them are abstention questions (LongMemEval_s: 500 questions, 30 of them
// abstention; multi-session and temporal-reasoning the most common).
var lmePlan = []struct {
	qtype   string
	n, nAbs int
}{
	{"single-session-user", 5, 1},
	{"single-session-assistant", 4, 0},
	{"single-session-preference", 3, 0},
	{"multi-session", 7, 1},
	{"temporal-reasoning", 6, 1},
	{"knowledge-update", 5, 0},
}

type lmeGen struct {
	r  *rand.Rand
	tp *templater
}

// genLongMemEval makes one LongMemEval file's questions; seen holds the
// question texts the other file has, which this one does not repeat.
func genLongMemEval(half string, seed uint64, seen map[string]bool) ([]lmeItem, error) {
	r := rand.New(rand.NewPCG(seed, 7))
	g := &lmeGen{r: r, tp: &templater{r: r, pools: map[string][]string{}}}
	type slot struct {
		qtype string
		abs   bool
	}
	var slots []slot
	for _, p := range lmePlan {
		for i := range p.n {
			slots = append(slots, slot{p.qtype, i < p.nAbs})
		}
	}
	slots = shuffled(r, slots)
	var items []lmeItem
	usedOpt := map[string]bool{}
	for _, sl := range slots {
		var sc *lmeScenario
		var v vars
		var q string
		for tries := 0; ; tries++ {
			if tries > 500 {
				return nil, fmt.Errorf("evalgen: no unused %s question left", sl.qtype)
			}
			sc = pick(r, lmeScenarios)
			if sc.qtype != sl.qtype || (sl.abs && sc.absQ == "") {
				continue
			}
			oi := r.IntN(len(sc.opts))
			key := fmt.Sprintf("%p:%d", sc, oi)
			v = parseVars(sc.opts[oi])
			qt := sc.q
			if sl.abs {
				qt = sc.absQ
			}
			q = g.tp.must(pick(r, strings.Split(qt, "|")), v)
			if usedOpt[key] || seen[q] {
				continue
			}
			usedOpt[key] = true
			seen[q] = true
			break
		}
		items = append(items, g.item(sc, v, q, sl.abs))
	}
	return items, nil
}

// item builds one question's haystack around scenario sc.
func (g *lmeGen) item(sc *lmeScenario, v vars, q string, abs bool) lmeItem {
	r := g.r
	asked := time.Date(2023, time.Month(between(r, 3, 11)), between(r, 1, 28), 0, 0, 0, 0, time.UTC)
	h, m := timeOfDay(r)
	asked = asked.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute)
	n := between(r, 20, 28)
	// Session days over the 40-120 days before the question, distinct.
	span := between(r, 40, 120)
	var days []int
	for _, d := range r.Perm(span)[:n] {
		days = append(days, d+1)
	}
	slices.Sort(days)
	slices.Reverse(days) // oldest first
	dates := make([]time.Time, n)
	for i, d := range days {
		hh, mm := timeOfDay(r)
		dates[i] = dayOf(asked).AddDate(0, 0, -d).Add(time.Duration(hh)*time.Hour + time.Duration(mm)*time.Minute)
	}
	// The evidence sessions, in order, not the very last session.
	idx := r.Perm(n - 1)[:len(sc.facts)]
	slices.Sort(idx)
	isEv := map[int]int{}
	for k, i := range idx {
		isEv[i] = k
	}
	qid := fmt.Sprintf("%08x", r.Uint32())
	it := lmeItem{QuestionID: qid, QuestionType: sc.qtype, Question: q, QuestionDate: asked.Format(lmeLayout)}
	if abs {
		it.QuestionID += "_abs"
	}
	// Near-duplicates: filler sessions on the evidence sessions' tasks, and
	// decoy lines with the facts' words.
	var sameTask []string
	for _, f := range sc.facts {
		sameTask = append(sameTask, f.task)
	}
	decoysLeft := shuffled(r, sc.decoys)
	factDates := make([]time.Time, len(sc.facts))
	factVars := v.with()
	for i := range n {
		var sid string
		var turns []lmeTurn
		if k, ok := isEv[i]; ok {
			f := sc.facts[k]
			sid = fmt.Sprintf("answer_%08x_%d", r.Uint32(), k+1)
			rd := pick(r, []struct {
				phrase string
				back   int
			}{{"today", 0}, {"today", 0}, {"yesterday", 1}, {"this morning", 0}})
			if dates[i].Hour() < 12 && rd.phrase == "this morning" {
				rd.phrase = "today"
			}
			factDates[k] = dayOf(dates[i]).AddDate(0, 0, -rd.back)
			fv := v.with("when", rd.phrase)
			say := g.tp.must(f.say, fv)
			asst := ""
			if f.asst != "" {
				asst = g.tp.must(f.asst, fv)
			}
			if f.label != "" {
				factVars[fmt.Sprintf("label%d", k)] = g.tp.must(f.label, fv)
			}
			turns = g.session(taskByKey(f.task), say, asst, "", abs)
			it.AnswerSessionIDs = append(it.AnswerSessionIDs, sid)
		} else {
			sid = g.fillerID()
			var t *task
			if len(sameTask) > 0 && chance(r, 0.15) {
				t = taskByKey(pick(r, sameTask))
			} else {
				t = pick(r, tasks)
			}
			// A decoy opens a session of its own task ("dog: My
			// neighbor's dog...").
			decoy := ""
			if len(decoysLeft) > 0 && chance(r, 0.2) {
				key, line, _ := strings.Cut(decoysLeft[0], ": ")
				decoy, decoysLeft, t = g.tp.must(line, v), decoysLeft[1:], taskByKey(key)
			}
			turns = g.session(t, "", "", decoy, false)
		}
		it.HaystackSessionIDs = append(it.HaystackSessionIDs, sid)
		it.HaystackDates = append(it.HaystackDates, dates[i].Format(lmeLayout))
		it.HaystackSessions = append(it.HaystackSessions, turns)
	}
	it.Answer = g.answer(sc, factVars, factDates, dayOf(asked), abs)
	return it
}

// answer is the question's answer: the scenario's, or one computed from
// the evidence sessions' dates.
func (g *lmeGen) answer(sc *lmeScenario, v vars, at []time.Time, asked time.Time, abs bool) string {
	if abs {
		return g.tp.must(sc.absA, v)
	}
	days := func(a, b time.Time) int { return int(b.Sub(a).Hours()/24 + 0.5) }
	switch sc.calc {
	case "daysago":
		d := days(at[0], asked)
		return fmt.Sprintf("%d days. %d days (including the last day) is also acceptable.", d, d+1)
	case "weeksago":
		d := days(at[0], asked)
		w := (d + 3) / 7
		return fmt.Sprintf("%d weeks (%d days)", w, d)
	case "between":
		d := days(at[0], at[1])
		return fmt.Sprintf("%d days. %d days (including the last day) is also acceptable.", d, d+1)
	case "first":
		if at[1].Before(at[0]) {
			return capFirst(v["label1"])
		}
		return capFirst(v["label0"])
	}
	return g.tp.must(sc.a, v)
}

// fillerID is a haystack session id in the published file's styles.
func (g *lmeGen) fillerID() string {
	const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	switch g.r.IntN(3) {
	case 0:
		var b strings.Builder
		for range 7 {
			b.WriteByte(alnum[g.r.IntN(len(alnum))])
		}
		return fmt.Sprintf("sharegpt_%s_%d", b.String(), g.r.IntN(4))
	case 1:
		return fmt.Sprintf("ultrachat_%06d", g.r.IntN(1000000))
	}
	return fmt.Sprintf("%08x_%d", g.r.Uint32(), between(g.r, 1, 3))
}

// session is 3 to 7 exchanges about task t. say (when given) is the
// user's line with the fact, marked has_answer unless abs; it opens the
// session or comes as a later request. asst (when given) is the
// assistant's reply to it, and holds the answer instead. decoy is a user
// line said in passing.
func (g *lmeGen) session(t *task, say, asst, decoy string, abs bool) []lmeTurn {
	r := g.r
	pairs := between(r, 3, 7)
	at := 0
	if say != "" && asst == "" && chance(r, 0.4) {
		at = between(r, 1, pairs-1)
	}
	decoyAt := -1
	if decoy != "" {
		decoyAt = 0
	}
	follows := shuffled(r, append(append([]string(nil), t.follow...), genericFollow...))
	ask := r.IntN(len(t.asks))
	used := map[string]bool{}
	var out []lmeTurn
	for p := range pairs {
		var user string
		switch {
		case say != "" && p == at:
			user = say
		case p == 0:
			user = t.asks[ask]
		default:
			user, follows = follows[0], follows[1:]
		}
		if p == decoyAt {
			user = decoy
		}
		ut := lmeTurn{Role: "user", Content: user}
		if say != "" && p == at && asst == "" && !abs {
			ut.HasAnswer = true
		}
		out = append(out, ut)
		var reply string
		switch {
		case say != "" && p == at && asst != "":
			reply = asst
		case p == 0 && user == t.asks[ask]:
			// The task's intros are written beside its requests.
			reply = g.reply(t, t.intro[ask%len(t.intro)], 3, 5, used)
		case p == 0 || user == say || user == decoy:
			reply = g.reply(t, t.intro[0], 3, 5, used)
		case strings.HasPrefix(user, "Thank you"):
			reply = g.reply(t, "You're welcome! One last tip:", 1, 1, used)
		default:
			reply = g.reply(t, pick(r, genericReply), 2, 3, used)
		}
		at2 := lmeTurn{Role: "assistant", Content: reply}
		if say != "" && p == at && asst != "" && !abs {
			at2.HasAnswer = true
		}
		out = append(out, at2)
	}
	return out
}

// reply is an assistant answer: an opening line, lo to hi of the task's
// points (ones the session has not made yet first), sometimes a closing
// line.
func (g *lmeGen) reply(t *task, open string, lo, hi int, used map[string]bool) string {
	pts := shuffled(g.r, t.points)
	slices.SortStableFunc(pts, func(a, b string) int {
		switch {
		case used[a] == used[b]:
			return 0
		case used[b]:
			return -1
		}
		return 1
	})
	pts = pts[:between(g.r, lo, hi)]
	var b strings.Builder
	b.WriteString(open)
	b.WriteString("\n\n")
	numbered := chance(g.r, 0.6)
	for i, p := range pts {
		used[p] = true
		if numbered && len(pts) > 1 {
			fmt.Fprintf(&b, "%d. %s\n", i+1, p)
		} else if len(pts) > 1 {
			fmt.Fprintf(&b, "- %s\n", p)
		} else {
			b.WriteString(p + "\n")
		}
	}
	if chance(g.r, 0.7) {
		b.WriteString("\n")
		b.WriteString(pick(g.r, closings))
	}
	return strings.TrimRight(b.String(), "\n")
}
