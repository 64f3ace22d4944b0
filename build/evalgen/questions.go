package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// A LoCoMo conversation's questions: every question its facts allow
// (cands), then a sample in LoCoMo's proportions.

// cand is a question that could be asked.
type cand struct {
	cat    int
	q, a   string
	ev     []string
	spread string // questions of one fact are spread out: the fact's key
	adv    bool
	joined bool // evidence written as one string "D3:4; D7:2"
	// For adversarial swaps: the template and fact it came from.
	tpl *qTemplate
	f   *fact
}

// LoCoMo's proportions of categories (the published locomo10.json has
// single-hop 42%, multi-hop 14%, temporal 16%, open-domain 5%,
// adversarial 22%).
var categoryShare = map[int]float64{1: 0.15, 2: 0.17, 3: 0.055, 5: 0.22}

// questions samples the conversation's questions.
func (c *lcConv) questions() []lcQA {
	var cands []cand
	for _, f := range c.facts {
		cands = append(cands, c.factQuestions(f)...)
	}
	cands = append(cands, c.multiHop()...)
	cands = append(cands, c.temporalPairs()...)
	adv := c.adversarial(cands)

	total := between(c.r, 128, 190)
	byCat := map[int][]cand{}
	for _, q := range append(cands, adv...) {
		cat := q.cat
		if q.adv {
			cat = 5
		}
		byCat[cat] = append(byCat[cat], q)
	}
	seen := map[string]bool{}
	var chosen []cand
	take := func(cat, n int) int {
		got := c.spreadPick(byCat[cat], n, seen)
		chosen = append(chosen, got...)
		return len(got)
	}
	short := 0
	for _, cat := range []int{5, 1, 2, 3} {
		want := int(categoryShare[cat]*float64(total) + 0.5)
		short += want - take(cat, want)
	}
	take(4, total-len(chosen))
	_ = short

	// Questions in the order of their evidence, the adversarial ones last.
	sort.SliceStable(chosen, func(i, j int) bool {
		a, b := chosen[i], chosen[j]
		if a.adv != b.adv {
			return !a.adv
		}
		return evOrder(a.ev) < evOrder(b.ev)
	})
	var out []lcQA
	for _, q := range chosen {
		qa := lcQA{Question: q.q, Category: q.cat, Evidence: append([]string{}, q.ev...)}
		if q.adv {
			qa.Category = 5
			qa.AdversarialAnswer = q.a
		} else {
			qa.Answer = q.a
		}
		if q.joined && len(q.ev) > 1 {
			qa.Evidence = []string{strings.Join(q.ev, "; ")}
		}
		out = append(out, qa)
	}
	return out
}

// evOrder sorts evidence by its first turn (no evidence last).
func evOrder(ev []string) int {
	if len(ev) == 0 {
		return 1 << 30
	}
	best := 1 << 30
	for _, e := range ev {
		var s, t int
		fmt.Sscanf(e, "D%d:%d", &s, &t)
		best = min(best, s*1000+t)
	}
	return best
}

// spreadPick takes n of cs, one per fact in turn so that no fact is asked
// about much more than the others, skipping question texts already taken.
func (c *lcConv) spreadPick(cs []cand, n int, seen map[string]bool) []cand {
	cs = shuffled(c.r, cs)
	var keys []string
	byKey := map[string][]cand{}
	for _, q := range cs {
		if _, ok := byKey[q.spread]; !ok {
			keys = append(keys, q.spread)
		}
		byKey[q.spread] = append(byKey[q.spread], q)
	}
	var out []cand
	for len(out) < n {
		progress := false
		for _, k := range keys {
			for len(byKey[k]) > 0 {
				q := byKey[k][0]
				byKey[k] = byKey[k][1:]
				if seen[q.q] {
					continue
				}
				seen[q.q] = true
				out = append(out, q)
				progress = true
				break
			}
			if len(out) >= n {
				break
			}
		}
		if !progress {
			break
		}
	}
	return out
}

// askVars are the values a question about f asked of asker names: the
// asker's name and pronouns, f's values, its owner's family and state.
func (c *lcConv) askVars(f *fact, asker int) []vars {
	p := c.p[asker]
	who := pronouns(p.female)
	who["N"], who["O"] = p.name, c.p[1-asker].name
	return []vars{who, f.v, c.p[f.owner].v, c.stateAt(f.owner, f.sess)}
}

// evidence is the turns of tags of f ("prev.x": of the fact f replaced).
func evidence(f *fact, tags []string) ([]string, bool) {
	var out []string
	for _, tag := range tags {
		g := f
		if rest, ok := strings.CutPrefix(tag, "prev."); ok {
			g, tag = f.prev, rest
		}
		if g == nil {
			return nil, false
		}
		id, ok := g.ev[tag]
		if !ok {
			return nil, false
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out, true
}

// factQuestions are the questions of f's templates whose evidence the
// told script holds.
func (c *lcConv) factQuestions(f *fact) []cand {
	var out []cand
	tpls := f.t.qs
	if f.prev != nil {
		tpls = append(append([]string(nil), tpls...), f.t.upd...)
	}
	for _, s := range tpls {
		t := parseQ(s)
		if strings.Contains(t.flags, "u") && c.countKind(f.owner, f.t.kind) != 1 {
			continue
		}
		if strings.Contains(t.flags, "x") && f.superseded {
			continue
		}
		ev, ok := evidence(f, t.tags)
		if !ok {
			continue
		}
		q, ok1 := c.tp.fill(t.q, c.askVars(f, f.owner)...)
		a, ok2 := c.tp.fill(t.a, c.askVars(f, f.owner)...)
		if !ok1 || !ok2 {
			continue
		}
		a = thirdPerson(a, c.p[f.owner].female)
		tt := t
		out = append(out, cand{cat: t.cat, q: q, a: a, ev: ev, spread: strconv.Itoa(f.id), tpl: &tt, f: f,
			joined: t.cat == 1 && chance(c.r, 0.35)})
	}
	return out
}

// anchor is the turn that tells f's event: where its date is said, else
// the first line that reveals anything.
func anchor(f *fact) (string, bool) {
	if id, ok := f.ev["when"]; ok {
		return id, true
	}
	for _, l := range f.script {
		for _, tag := range l.tags {
			if id, ok := f.ev[tag]; ok {
				return id, true
			}
		}
	}
	return "", false
}

// multiHop are the questions that need two or more turns: lists of a
// speaker's facts of one group, both speakers' facts of one group, where
// a speaker lived or worked when something happened, where they went
// after an event.
func (c *lcConv) multiHop() []cand {
	var out []cand
	add := func(q, a string, ev []string, key string) {
		if len(ev) < 2 {
			return
		}
		out = append(out, cand{cat: 1, q: q, a: a, ev: ev, spread: key, joined: chance(c.r, 0.35)})
	}
	itemsOf := func(owner int, group string) (items, ev []string) {
		for _, f := range c.facts {
			if f.owner != owner || f.t.group != group || f.t.item == "" {
				continue
			}
			id, ok := f.ev[f.t.itemTag]
			if !ok {
				continue
			}
			it := c.tp.must(f.t.item, c.askVars(f, owner)...)
			if slices.Contains(items, it) {
				continue
			}
			items, ev = append(items, it), append(ev, id)
		}
		return items, ev
	}
	groups := make([]string, 0, len(groupQuestions))
	for g := range groupQuestions {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	for _, g := range groups {
		var both [2][]string
		var bothEv [2][]string
		for i, p := range c.p {
			items, ev := itemsOf(i, g)
			both[i], bothEv[i] = items, ev
			if len(items) >= 2 {
				who := pronouns(p.female)
				who["N"] = p.name
				for _, qt := range groupQuestions[g] {
					add(c.tp.must(qt, who), capFirst(joinList(items)), ev, fmt.Sprintf("list:%d:%s", i, g))
				}
			}
		}
		if len(both[0]) > 0 && len(both[1]) > 0 {
			ab := vars{"A": c.p[0].name, "B": c.p[1].name}
			a := fmt.Sprintf("%s: %s; %s: %s", c.p[0].name, joinList(both[0]), c.p[1].name, joinList(both[1]))
			for _, qt := range commonQuestions[g] {
				add(c.tp.must(qt, ab), a, append(append([]string(nil), bothEv[0]...), bothEv[1]...), "common:"+g)
			}
		}
	}
	// Where a speaker lived, and what they did for work, when an event
	// happened: the event's turn and the turn that says the city or job.
	for i, p := range c.p {
		who := pronouns(p.female)
		who["N"] = p.name
		var move, jobc, home, work *fact
		for _, f := range c.facts {
			if f.owner != i {
				continue
			}
			switch f.t.kind {
			case "move":
				move = f
			case "jobchange":
				jobc = f
			case "home":
				home = f
			case "work":
				work = f
			}
		}
		for _, f := range c.facts {
			if f.owner != i || fixedKinds[f.t.kind] || f.t.vp == "" || f.rel == nil || f.t.when == "next" {
				continue
			}
			at, ok := anchor(f)
			if !ok {
				continue
			}
			vp := c.tp.must(f.t.vp, c.askVars(f, i)...)
			if move != nil && f.sess != move.sess {
				var cityEv, city string
				if f.sess < move.sess {
					cityEv, city = home.ev["city"], home.v["city"]
				} else {
					cityEv, city = move.ev["newcity"], move.v["newcity"]
				}
				q := pick(c.r, []string{"Where was {N} living when {he} {vp}?", "Which city did {N} live in when {he} {vp}?",
					"What city was {N} based in at the time {he} {vp}?"})
				if cityEv != "" {
					add(c.tp.must(q, who, vars{"vp": vp}), city, []string{cityEv, at}, fmt.Sprintf("citywhen:%d", i))
				}
			}
			if jobc != nil && f.sess != jobc.sess {
				var jobEv, job string
				if f.sess < jobc.sess {
					jobEv, job = work.ev["job"], "A "+work.v["job"]
				} else {
					jobEv, job = jobc.ev["newjob"], "A "+jobc.v["newjob"]
				}
				q := pick(c.r, []string{"What was {N}'s job when {he} {vp}?", "What did {N} do for a living when {he} {vp}?"})
				if jobEv != "" {
					add(c.tp.must(q, who, vars{"vp": vp}), articled(job), []string{jobEv, at}, fmt.Sprintf("jobwhen:%d", i))
				}
			}
		}
		// After an event: the first fact of a kind that followed it.
		for _, b := range c.facts {
			if b.owner != i || b.t.afterq == "" || b.rel == nil {
				continue
			}
			bEv, ok := b.ev[b.t.itemTag]
			if !ok {
				continue
			}
			for _, a := range c.facts {
				if a.owner != i || a.t.kind == b.t.kind || a.t.ing == "" || a.rel == nil || a.t.when == "next" ||
					a.sess >= b.sess || !a.rel.date.Before(b.rel.date) {
					continue
				}
				between := false
				for _, x := range c.facts {
					if x != b && x.owner == i && x.t.kind == b.t.kind && x.sess > a.sess && x.sess < b.sess {
						between = true
					}
				}
				at, ok := anchor(a)
				if between || !ok {
					continue
				}
				av := vars{"a.ing": c.tp.must(a.t.ing, c.askVars(a, i)...)}
				q := c.tp.must(b.t.afterq, av, who)
				add(q, capFirst(c.tp.must(b.t.item, c.askVars(b, i)...)), []string{at, bEv}, fmt.Sprintf("after:%d", i))
			}
		}
	}
	return out
}

// articled fixes "A a..." to "An a...".
func articled(s string) string {
	if rest, ok := strings.CutPrefix(s, "A "); ok {
		return capFirst(withArticle(rest))
	}
	return s
}

// temporalPairs ask which of two of a speaker's events came first, and
// how long apart they were.
func (c *lcConv) temporalPairs() []cand {
	var out []cand
	for i, p := range c.p {
		who := pronouns(p.female)
		who["N"] = p.name
		var dated []*fact
		for _, f := range c.facts {
			if f.owner == i && f.rel != nil && f.t.ing != "" && f.t.when != "next" {
				if _, ok := f.ev["when"]; ok {
					dated = append(dated, f)
				}
			}
		}
		for x := 0; x < len(dated); x++ {
			for y := x + 1; y < len(dated); y++ {
				a, b := dated[x], dated[y]
				if a.t.kind == b.t.kind {
					continue
				}
				days := b.rel.date.Sub(a.rel.date).Hours() / 24
				if days < 0 {
					a, b, days = b, a, -days
				}
				if days < 21 {
					continue
				}
				ai := c.tp.must(a.t.ing, c.askVars(a, i)...)
				bi := c.tp.must(b.t.ing, c.askVars(b, i)...)
				ev := []string{a.ev["when"], b.ev["when"]}
				key := fmt.Sprintf("pair:%d", i)
				first, second := ai, bi
				if chance(c.r, 0.5) {
					first, second = bi, ai
				}
				v := vars{"x": first, "y": second}
				q := pick(c.r, []string{"Which came first for {N}: {x} or {y}?", "Which happened earlier, {N} {x} or {N} {y}?"})
				out = append(out, cand{cat: 2, q: c.tp.must(q, v, who), a: capFirst(ai), ev: ev, spread: key})
				if a.rel.exact && b.rel.exact {
					q := pick(c.r, []string{"How long after {x} did {N} get around to {y}?", "How much time passed between {N} {x} and {y}?"})
					out = append(out, cand{cat: 2, q: c.tp.must(q, vars{"x": ai, "y": bi}, who), a: spanWords(a.rel.date, b.rel.date),
						ev: ev, spread: key})
				}
			}
		}
	}
	return out
}

// adversarial are LoCoMo's category 5: a question about one speaker's
// fact asked of the other, who has no fact of that kind (its answer the
// first speaker's, its evidence the turn it twists), and questions about
// things neither said.
func (c *lcConv) adversarial(cands []cand) []cand {
	var out []cand
	real := map[string]bool{}
	for _, q := range cands {
		real[q.q] = true
	}
	for _, q := range cands {
		if q.tpl == nil || q.f == nil || (q.cat != 4 && q.cat != 2) || fixedKinds[q.f.t.kind] || q.f.prev != nil {
			continue
		}
		other := 1 - q.f.owner
		if c.countKind(other, q.f.t.kind) > 0 {
			continue
		}
		// Family words name the owner's family: not a swap for someone
		// who may have no such family ("Omar's niece").
		if len(q.f.t.needs) > 0 || q.f.t.group == "family" || strings.Contains(q.tpl.q, "{sibrel}") {
			continue
		}
		sq, ok := c.tp.fill(q.tpl.q, c.askVars(q.f, other)...)
		if !ok || real[sq] {
			continue
		}
		out = append(out, cand{cat: 5, adv: true, q: sq, a: q.a, ev: q.ev, spread: "adv:" + q.spread})
	}
	// Never said: a kind neither speaker has, with made-up particulars.
	for _, t := range shuffled(c.r, topics) {
		if fixedKinds[t.kind] || c.countKind(0, t.kind) > 0 || c.countKind(1, t.kind) > 0 || len(t.opts) == 0 {
			continue
		}
		owner := c.r.IntN(2)
		v := parseVars(pick(c.r, t.opts))
		v["pname"], v["fname"], v["bname"], v["park"] = pick(c.r, petNames), pick(c.r, otherNames).name, pick(c.r, otherNames).name, pick(c.r, nationalParks)
		v["date"], v["when"] = "", ""
		f := &fact{owner: owner, t: t, v: v}
		for _, s := range t.qs {
			tpl := parseQ(s)
			if tpl.cat != 4 || strings.Contains(tpl.flags, "x") {
				continue
			}
			q, ok := c.tp.fill(tpl.q, c.askVars(f, owner)...)
			if !ok || real[q] {
				continue
			}
			out = append(out, cand{cat: 5, adv: true, q: q, a: "Not mentioned in the conversation", ev: []string{},
				spread: "never:" + t.kind})
		}
	}
	return out
}

var firstPersonRE = regexp.MustCompile(`\b(my|My|me|myself|our|Our)\b`)

// thirdPerson turns an answer's first person ("my nonna's lasagna", from
// what the speaker said) into the third ("her nonna's lasagna").
func thirdPerson(a string, female bool) string {
	p := pronouns(female)
	return firstPersonRE.ReplaceAllStringFunc(a, func(w string) string {
		switch w {
		case "my", "our":
			return p["his"]
		case "My", "Our":
			return capFirst(p["his"])
		case "me":
			return p["him"]
		}
		return p["himself"]
	})
}
