package main

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// The LoCoMo half: conversations between two people over months, each
// telling facts of their lives (topics.go) among small talk (talk.go), and
// questions of LoCoMo's five categories asked of them.

// lcSample is one sample of locomo10.json.
type lcSample struct {
	SampleID     string  `json:"sample_id"`
	Conversation ordered `json:"conversation"`
	QA           []lcQA  `json:"qa"`
}

type lcTurnJSON struct {
	Speaker     string   `json:"speaker"`
	DiaID       string   `json:"dia_id"`
	Text        string   `json:"text"`
	ImgURL      []string `json:"img_url,omitempty"`
	BlipCaption string   `json:"blip_caption,omitempty"`
}

type lcQA struct {
	Question          string   `json:"question"`
	Answer            string   `json:"answer,omitempty"`
	AdversarialAnswer string   `json:"adversarial_answer,omitempty"`
	Evidence          []string `json:"evidence"`
	Category          int      `json:"category"`
}

// line is one parsed script line.
type line struct {
	who     byte // 'O' or 'P'
	tags    []string
	caption string
	text    string
}

var lineRE = regexp.MustCompile(`^([OP])(?:\[([^\]]*)\])?(?:\(([^)]*)\))?: (.*)$`)

func parseLine(s string) line {
	m := lineRE.FindStringSubmatch(s)
	if m == nil {
		panic("evalgen: bad script line " + s)
	}
	l := line{who: m[1][0], caption: m[3], text: m[4]}
	if m[2] != "" {
		l.tags = strings.Split(m[2], ",")
	}
	if l.caption != "" {
		l.tags = append(l.tags, "photo")
	}
	return l
}

func parseScript(ss []string) []line {
	out := make([]line, len(ss))
	for i, s := range ss {
		out[i] = parseLine(s)
	}
	for i := 1; i < len(out); i++ {
		if out[i].who == out[i-1].who {
			panic("evalgen: a script's speakers must alternate: " + ss[i])
		}
	}
	return out
}

// qTemplate is one parsed question template.
type qTemplate struct {
	cat     int
	flags   string
	tags    []string
	q, a    string
	printed string
}

var qRE = regexp.MustCompile(`^(\d)([a-z]*)\[([^\]]*)\] (.*) => (.*)$`)

func parseQ(s string) qTemplate {
	m := qRE.FindStringSubmatch(s)
	if m == nil {
		panic("evalgen: bad question template " + s)
	}
	return qTemplate{cat: int(m[1][0] - '0'), flags: m[2], tags: strings.Split(m[3], ","), q: m[4], a: m[5], printed: s}
}

// person is one speaker of a conversation.
type person struct {
	idx    int
	name   string
	female bool
	v      vars // name, pronouns, family
	city0  city
	job0   job
	hasKid bool
	single bool
}

// fact is one fact a speaker tells.
type fact struct {
	id        int
	owner     int
	t         *topic
	v         vars
	sess      int
	script    []line
	scriptIdx int            // which of t.scripts tells it
	evAt      map[string]int // tag -> index of the turn in its session
	ev        map[string]string
	rel       *relDate
	prev      *fact
	// superseded: a later fact replaced this one (a move, a new job).
	superseded bool
}

// lcConv is one conversation being made.
type lcConv struct {
	r        *rand.Rand
	tp       *templater
	id       string
	p        [2]*person
	dates    []time.Time
	facts    []*fact
	sessions [][]lcTurn
	used     map[string]bool // names, pets, options already used
}

type lcTurn struct {
	speaker int
	text    string
	caption string
}

// fixed topics every speaker has (home, work) or that replace them.
var fixedKinds = map[string]bool{"home": true, "work": true, "move": true, "jobchange": true}

var nationalParks = []string{"Yellowstone", "Glacier National Park", "Yosemite", "the Grand Canyon",
	"Rocky Mountain National Park", "Olympic National Park", "Grand Teton", "Arches National Park"}

var workDurations = []string{"three years", "almost five years", "eight years", "over a decade", "two years",
	"six years", "about four years"}

// genLoCoMo makes one LoCoMo file's samples.
func genLoCoMo(half string, seed uint64, names []personName) ([]lcSample, error) {
	var out []lcSample
	for i := range conversationsPerFile {
		r := rand.New(rand.NewPCG(seed, uint64(i)+1))
		c := &lcConv{r: r, tp: &templater{r: r, pools: reactionPools}, id: fmt.Sprintf("synth-%s-%02d", half, i+1),
			used: map[string]bool{}}
		c.makePeople(names[2*i], names[2*i+1])
		c.makeDates()
		c.planFacts()
		for s := range c.dates {
			c.renderSession(s)
		}
		qa := c.questions()
		out = append(out, lcSample{SampleID: c.id, Conversation: c.conversationJSON(), QA: qa})
	}
	return out, nil
}

// takeName is a name of otherNames not used yet in the conversation.
func (c *lcConv) takeName(female *bool) personName {
	for _, n := range shuffled(c.r, otherNames) {
		if c.used["name:"+n.name] || (female != nil && n.female != *female) {
			continue
		}
		c.used["name:"+n.name] = true
		return n
	}
	panic("evalgen: out of names")
}

func (c *lcConv) takePet() string {
	for _, n := range shuffled(c.r, petNames) {
		if !c.used["pet:"+n] {
			c.used["pet:"+n] = true
			return n
		}
	}
	panic("evalgen: out of pet names")
}

func pronouns(female bool) vars {
	if female {
		return vars{"he": "she", "him": "her", "his": "her", "himself": "herself", "auntuncle": "aunt"}
	}
	return vars{"he": "he", "him": "him", "his": "his", "himself": "himself", "auntuncle": "uncle"}
}

func (c *lcConv) makePeople(a, b personName) {
	cs := shuffled(c.r, cities)
	js := shuffled(c.r, jobs)
	for i, n := range []personName{a, b} {
		c.used["name:"+n.name] = true
		p := &person{idx: i, name: n.name, female: n.female, city0: cs[i], job0: js[i]}
		p.v = pronouns(n.female)
		p.v["name"] = n.name
		sib := c.takeName(nil)
		p.v["sib"] = sib.name
		if sib.female {
			p.v["sibrel"], p.v["sibpro"], p.v["sibhe"] = "sister", "her", "she"
		} else {
			p.v["sibrel"], p.v["sibpro"], p.v["sibhe"] = "brother", "his", "he"
		}
		if chance(c.r, 0.5) {
			p.v["parentrel"], p.v["parentpro"], p.v["parenthis"] = "mom", "she", "her"
		} else {
			p.v["parentrel"], p.v["parentpro"], p.v["parenthis"] = "dad", "he", "his"
		}
		p.v["friend"] = c.takeName(nil).name
		if chance(c.r, 0.45) {
			k := c.takeName(nil)
			p.hasKid = true
			p.v["kid"] = k.name
			if k.female {
				p.v["kidrel"], p.v["kidhe"], p.v["kidhim"], p.v["kidhis"] = "daughter", "she", "her", "her"
			} else {
				p.v["kidrel"], p.v["kidhe"], p.v["kidhim"], p.v["kidhis"] = "son", "he", "him", "his"
			}
		}
		if chance(c.r, 0.4) {
			p.v["partner"] = c.takeName(nil).name
		} else {
			p.single = true
			p.v["single"] = "yes"
		}
		c.p[i] = p
	}
}

// makeDates spreads 15-25 sessions over 6-12 months, irregularly.
func (c *lcConv) makeDates() {
	n := between(c.r, 15, 25)
	start := time.Date(2022, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, c.r.IntN(540))
	span := float64(between(c.r, 185, 360))
	w := make([]float64, n-1)
	sum := 0.0
	for i := range w {
		w[i] = 0.25 + c.r.ExpFloat64()
		sum += w[i]
	}
	day := start
	for i := range n {
		if i > 0 {
			gap := int(span*w[i-1]/sum + 0.5)
			day = day.AddDate(0, 0, max(1, gap))
		}
		h, m := timeOfDay(c.r)
		c.dates = append(c.dates, time.Date(day.Year(), day.Month(), day.Day(), h, m, 0, 0, time.UTC))
	}
}

// newFact makes a fact of topic t for owner, with an option no one in the
// conversation has used (nil when t does not fit the owner).
func (c *lcConv) newFact(owner int, t *topic) *fact {
	p := c.p[owner]
	for _, need := range t.needs {
		if _, ok := p.v[need]; !ok {
			return nil
		}
	}
	f := &fact{id: len(c.facts), owner: owner, t: t, v: vars{}, evAt: map[string]int{}, ev: map[string]string{}}
	if len(t.opts) > 0 {
		var free []int
		for i := range t.opts {
			if !c.used[fmt.Sprintf("opt:%s:%d", t.kind, i)] {
				free = append(free, i)
			}
		}
		if len(free) == 0 {
			return nil
		}
		oi := pick(c.r, free)
		c.used[fmt.Sprintf("opt:%s:%d", t.kind, oi)] = true
		f.v = parseVars(t.opts[oi])
	}
	if topicUses(t, "pname") {
		f.v["pname"] = c.takePet()
	}
	if topicUses(t, "fname") {
		f.v["fname"] = c.takeName(nil).name
	}
	if topicUses(t, "bname") {
		female := f.v["babyrel"] == "niece"
		f.v["bname"] = c.takeName(&female).name
	}
	f.v["park"] = pick(c.r, nationalParks)
	c.facts = append(c.facts, f)
	return f
}

// planFacts chooses each speaker's facts and the sessions that tell them.
func (c *lcConv) planFacts() {
	n := len(c.dates)
	atMost := func(a, b int) int { return min(max(a, 0), n-1) }
	for i, p := range c.p {
		home := c.newFact(i, topicByKind("home"))
		home.v["city"], home.v["state"], home.v["region"] = p.city0.name, p.city0.state, p.city0.region
		home.sess = atMost(between(c.r, 0, 2), 0)
		work := c.newFact(i, topicByKind("work"))
		work.v["job"], work.v["workplace"], work.v["dur"] = p.job0.title, p.job0.place, pick(c.r, workDurations)
		work.v["ajob"] = withArticle(p.job0.title)
		work.sess = atMost(between(c.r, 0, 3), 0)
		if chance(c.r, 0.6) {
			mv := c.newFact(i, topicByKind("move"))
			var to city
			for _, ct := range shuffled(c.r, cities) {
				if ct.name != c.p[0].city0.name && ct.name != c.p[1].city0.name && !c.used["city:"+ct.name] {
					to = ct
					break
				}
			}
			c.used["city:"+to.name] = true
			mv.v["newcity"], mv.v["newstate"], mv.v["oldcity"] = to.name, to.state, p.city0.name
			mv.sess = between(c.r, n*35/100, n*75/100)
			mv.prev, home.superseded = home, true
		}
		if chance(c.r, 0.5) {
			jc := c.newFact(i, topicByKind("jobchange"))
			nj := pick(c.r, newJobs)
			for c.used["job:"+nj.title] {
				nj = pick(c.r, newJobs)
			}
			c.used["job:"+nj.title] = true
			jc.v["newjob"], jc.v["company"], jc.v["why"], jc.v["whyAns"] = nj.title, nj.company, nj.why, nj.whyAns
			jc.v["anewjob"] = withArticle(nj.title)
			jc.v["prevjob"], jc.v["aprevjob"] = p.job0.title, withArticle(p.job0.title)
			jc.sess = between(c.r, n*30/100, n*85/100)
			jc.prev, work.superseded = work, true
		}
	}
	// The other topics: mostly each speaker's own, a few both have.
	var pool []*topic
	for _, t := range topics {
		if !fixedKinds[t.kind] {
			pool = append(pool, t)
		}
	}
	pool = shuffled(c.r, pool)
	kinds := [2][]*topic{}
	common := 0
	for _, t := range pool {
		if common < 2 && t.group != "" && t.kind != "garden" {
			kinds[0], kinds[1] = append(kinds[0], t), append(kinds[1], t)
			common++
			continue
		}
		i := 0
		if len(kinds[1]) < len(kinds[0]) {
			i = 1
		}
		kinds[i] = append(kinds[i], t)
	}
	var regular []*fact
	for i := range c.p {
		want := n*11/10 - 3 + between(c.r, -1, 2)
		var mine []*fact
		for _, t := range kinds[i] {
			if len(mine) >= want {
				break
			}
			if f := c.newFact(i, t); f != nil {
				mine = append(mine, f)
			}
		}
		// Repeatable kinds: a second trip, pet, book... up to the count.
		for tries := 0; len(mine) < want && tries < 20; tries++ {
			t := pick(c.r, kinds[i])
			if !t.repeat || c.countKind(i, t.kind) >= 2 {
				continue
			}
			f := c.newFact(i, t)
			if f == nil {
				continue
			}
			if t.kind == "pet" {
				first := c.firstOfKind(i, "pet")
				if first.v["kind"] == f.v["kind"] {
					c.dropFact(f)
					continue
				}
				f.prev = first
			}
			mine = append(mine, f)
		}
		regular = append(regular, mine...)
	}
	// Sessions: 1-3 new facts each, in a shuffled order of slots.
	load := make([]int, n)
	for _, f := range c.facts {
		if fixedKinds[f.t.kind] {
			load[f.sess]++
		}
	}
	var slots []int
	for s := range n {
		capacity := between(c.r, 2, 3) - load[s]
		if capacity < 1 && load[s] == 0 {
			capacity = 1
		}
		for range capacity {
			slots = append(slots, s)
		}
	}
	slots = shuffled(c.r, slots)
	for len(slots) < len(regular) {
		slots = append(slots, c.r.IntN(n))
	}
	for i, f := range regular {
		f.sess = slots[i]
	}
	// Seasonal facts go to a session in their months, or are left out.
	for _, f := range slices.Clone(regular) {
		months := f.t.months
		if m := f.v["months"]; m != "" {
			months = nil
			for _, x := range strings.Split(m, ",") {
				var n int
				fmt.Sscan(x, &n)
				months = append(months, n)
			}
		}
		if len(months) == 0 || slices.Contains(months, int(c.dates[f.sess].Month())) {
			continue
		}
		var ok []int
		for s, d := range c.dates {
			if slices.Contains(months, int(d.Month())) {
				ok = append(ok, s)
			}
		}
		if len(ok) == 0 {
			c.dropFact(f)
			regular = slices.DeleteFunc(regular, func(g *fact) bool { return g == f })
			continue
		}
		f.sess = pick(c.r, ok)
	}
	// A second pet comes after the first, in a later session.
	for _, f := range regular {
		if f.prev != nil && f.sess <= f.prev.sess {
			if f.prev.sess == n-1 {
				f.prev.sess = n - 2
			}
			f.sess = between(c.r, f.prev.sess+1, n-1)
		}
	}
	// Ids in the order the facts are told.
	sort.SliceStable(c.facts, func(i, j int) bool { return c.facts[i].sess < c.facts[j].sess })
	for i, f := range c.facts {
		f.id = i
	}
	// Dates of the dated facts, and the values that change over time.
	for _, f := range c.facts {
		now := c.dates[f.sess]
		back := 45
		if f.sess > 0 {
			back = int(dayOf(now).Sub(dayOf(c.dates[f.sess-1])).Hours() / 24)
		}
		switch f.t.when {
		case "day", "span":
			rd := pastDate(c.r, now, f.t.when, back, f.t.avoid)
			f.rel = &rd
		case "next":
			rd := futureDate(c.r, now)
			f.rel = &rd
		}
		if f.rel != nil {
			f.v["when"], f.v["date"] = f.rel.phrase, f.rel.answer
		}
		f.v["sessmonth"] = now.Format("January 2006")
		if f.prev != nil {
			for k, x := range f.prev.v {
				f.v["prev."+k] = x
				f.v["prev"+k] = x
			}
		}
	}
}

func (c *lcConv) countKind(owner int, kind string) int {
	n := 0
	for _, f := range c.facts {
		if f.owner == owner && f.t.kind == kind {
			n++
		}
	}
	return n
}

func (c *lcConv) firstOfKind(owner int, kind string) *fact {
	for _, f := range c.facts {
		if f.owner == owner && f.t.kind == kind {
			return f
		}
	}
	return nil
}

func (c *lcConv) dropFact(f *fact) {
	c.facts = slices.DeleteFunc(c.facts, func(g *fact) bool { return g == f })
}

// stateAt are a speaker's values that change over time, as they are in
// session s: the city, the job, the newest pet.
func (c *lcConv) stateAt(owner, s int) vars {
	p := c.p[owner]
	v := vars{"city": p.city0.name, "job": p.job0.title, "workplace": p.job0.place}
	for _, f := range c.facts {
		if f.owner != owner || f.sess > s {
			continue
		}
		switch f.t.kind {
		case "move":
			if f.sess < s {
				v["city"] = f.v["newcity"]
			}
		case "jobchange":
			if f.sess < s {
				v["job"], v["workplace"] = f.v["newjob"], "work"
			}
		case "pet":
			if f.sess < s {
				v["pet"], v["petkind"] = f.v["pname"], f.v["kind"]
			}
		}
	}
	return v
}

// beat is a run of lines about one thing, begun by owner.
type beat struct {
	owner int
	lines []line
	f     *fact
	v     vars
	kind  string   // "open", "fact", "later", "talk", "close"
	raw   []string // a talk beat's script: either speaker may start it
}

// lineVars are the values a line of owner's may name.
func (c *lcConv) lineVars(owner, s int, extra vars) []vars {
	p, o := c.p[owner], c.p[1-owner]
	return []vars{extra, {"N": p.name, "O": o.name}, c.stateAt(owner, s), p.v, c.sessionVars(s)}
}

func (c *lcConv) sessionVars(s int) vars {
	w := seasonWeather[seasonOf(c.dates[s])]
	return vars{"weather": w[(s*7+len(c.id))%len(w)], "food": foods[(s*5+3)%len(foods)], "weekday": c.dates[s].Weekday().String(),
		"away": elsewhere[(s*3+len(c.id))%len(elsewhere)]}
}

// seasonOf is t's season in the northern hemisphere.
func seasonOf(t time.Time) string {
	return map[time.Month]string{12: "winter", 1: "winter", 2: "winter", 3: "spring", 4: "spring", 5: "spring",
		6: "summer", 7: "summer", 8: "summer", 9: "fall", 10: "fall", 11: "fall"}[t.Month()]
}

// fits is whether every line of script fills for owner in session s.
func (c *lcConv) fits(script []string, owner, s int, extra vars) bool {
	for _, l := range script {
		pl := parseLine(l)
		if _, ok := c.tp.fill(pl.text, c.lineVars(owner, s, extra)...); !ok {
			return false
		}
		if pl.caption != "" {
			if _, ok := c.tp.fill(pl.caption, c.lineVars(owner, s, extra)...); !ok {
				return false
			}
		}
	}
	return true
}

// pickScript is a random script of ss that fits.
func (c *lcConv) pickScript(ss [][]string, owner, s int, extra vars) []line {
	sc, _ := c.pickScriptAvoiding(ss, nil, owner, s, extra)
	return sc
}

// pickScriptAvoiding prefers scripts whose index avoid does not hold.
func (c *lcConv) pickScriptAvoiding(ss [][]string, avoid []int, owner, s int, extra vars) ([]line, int) {
	order := c.r.Perm(len(ss))
	sort.SliceStable(order, func(i, j int) bool { return !slices.Contains(avoid, order[i]) && slices.Contains(avoid, order[j]) })
	for _, i := range order {
		if c.fits(ss[i], owner, s, extra) {
			return parseScript(ss[i]), i
		}
	}
	return nil, -1
}

// renderSession writes session s's turns: a greeting, the facts told in
// it, mentions of earlier facts, small talk, a goodbye; 12 to 30 turns.
func (c *lcConv) renderSession(s int) {
	var factBeats, later []beat
	for _, f := range c.facts {
		if f.sess == s {
			// A second fact of a kind is told differently from the first.
			var avoid []int
			for _, g := range c.facts {
				if g != f && g.owner == f.owner && g.t == f.t && g.script != nil {
					avoid = append(avoid, g.scriptIdx)
				}
			}
			f.script, f.scriptIdx = c.pickScriptAvoiding(f.t.scripts, avoid, f.owner, s, f.v)
			if f.script == nil {
				panic(fmt.Sprintf("evalgen: no script of %s fits", f.t.kind))
			}
			factBeats = append(factBeats, beat{owner: f.owner, lines: f.script, f: f, v: f.v, kind: "fact"})
		}
	}
	for _, f := range shuffled(c.r, c.facts) {
		if f.sess < s && len(f.t.later) > 0 && len(later) < 2 && chance(c.r, 0.1) {
			// Each later mention once per fact.
			var fresh [][]string
			for i, sc := range f.t.later {
				if !c.used[fmt.Sprintf("later:%d:%d", f.id, i)] {
					fresh = append(fresh, sc)
				}
			}
			if sc, i := c.pickScriptAvoiding(fresh, nil, f.owner, s, f.v); sc != nil {
				c.used[fmt.Sprintf("later:%d:%d", f.id, slices.IndexFunc(f.t.later, func(x []string) bool { return slices.Equal(x, fresh[i]) }))] = true
				later = append(later, beat{owner: f.owner, lines: sc, v: f.v, kind: "later"})
			}
		}
	}
	target := (between(c.r, 12, 30) + between(c.r, 12, 30) + 1) / 2
	season := seasonOf(c.dates[s])
	talk := func() beat {
		for tries := 0; ; tries++ {
			owner := c.r.IntN(2)
			var raw []string
			var key string
			switch x := c.r.IntN(10); {
			case x == 0:
				i := c.r.IntN(len(photoTalk))
				if photoTalk[i].season != "" && photoTalk[i].season != season {
					continue
				}
				raw, key = photoTalk[i].script, fmt.Sprintf("photo:%d", i)
			case x < 5:
				i := c.r.IntN(len(moreTalk))
				raw, key = moreTalk[i], fmt.Sprintf("more:%d", i)
			default:
				i := c.r.IntN(len(smallTalk))
				raw, key = smallTalk[i], fmt.Sprintf("talk:%d", i)
			}
			// Each exchange once a conversation (while there are others).
			if (c.used[key] && tries < 200) || !c.fits(raw, owner, s, vars{}) || !timeFits(raw, c.dates[s]) {
				continue
			}
			c.used[key] = true
			return beat{owner: owner, lines: parseScript(raw), v: vars{}, kind: "talk", raw: raw}
		}
	}
	middle := append(append([]beat(nil), factBeats...), later...)
	count := func(bs []beat) int {
		n := 4
		for _, b := range bs {
			n += len(b.lines)
		}
		return n + len(bs)/3
	}
	for count(middle) < target {
		middle = append(middle, talk())
	}
	middle = shuffled(c.r, middle)
	for attempt := 0; ; attempt++ {
		turns := c.renderBeats(s, middle)
		if len(turns) > 30 && attempt < 20 {
			// Drop a small talk beat, else the longest beat's tail.
			if i := slices.IndexFunc(middle, func(b beat) bool { return b.kind == "talk" || b.kind == "later" }); i >= 0 {
				middle = slices.Delete(middle, i, i+1)
				continue
			}
		}
		if len(turns) < 12 && attempt < 20 {
			middle = append(middle, talk())
			continue
		}
		c.sessions = append(c.sessions, turns)
		break
	}
	for _, f := range c.facts {
		if f.sess == s {
			for tag, i := range f.evAt {
				f.ev[tag] = fmt.Sprintf("D%d:%d", s+1, i+1)
			}
		}
	}
}

// renderBeats fills the beats' lines into turns that alternate speakers,
// and notes where each fact's tags landed.
func (c *lcConv) renderBeats(s int, middle []beat) []lcTurn {
	first := c.r.IntN(2)
	open := beat{owner: first, lines: parseScript(c.pickTimed(openers, s)), v: vars{}, kind: "open"}
	beats := append([]beat{open}, middle...)
	var turns []lcTurn
	for _, b := range middle {
		if b.f != nil {
			b.f.evAt = map[string]int{}
		}
	}
	for bi, b := range beats {
		// Small talk is brought up by whoever did not speak last.
		if b.kind == "talk" && len(turns) > 0 && turns[len(turns)-1].speaker == b.owner && c.fits(b.raw, 1-b.owner, s, vars{}) {
			b.owner = 1 - b.owner
		}
		for li, l := range b.lines {
			spk := b.owner
			if l.who == 'P' {
				spk = 1 - b.owner
			}
			vs := c.lineVars(b.owner, s, b.v)
			text := c.tp.must(l.text, vs...)
			caption := ""
			if l.caption != "" {
				caption = c.tp.must(l.caption, vs...)
			}
			merged := false
			if li == 0 && bi > 0 && turns[len(turns)-1].speaker == spk {
				// The one who just spoke brings up something new: either
				// in the same turn, or after the other asks what's new.
				last := &turns[len(turns)-1]
				if caption == "" && last.caption == "" && chance(c.r, 0.5) {
					if l.who == 'P' {
						// The other asks after an earlier fact.
						last.text += " " + pick(c.r, []string{"Oh hey, ", "By the way, ", "Oh, and "}) + lowerQuestion(text)
					} else {
						last.text += " " + pick(c.r, transitions) + text
					}
					merged = true
				} else {
					turns = append(turns, lcTurn{speaker: 1 - spk, text: pick(c.r, bridges)})
				}
			}
			at := len(turns) - 1
			if !merged {
				at = len(turns)
				turns = append(turns, lcTurn{speaker: spk, text: text, caption: caption})
			}
			if b.f != nil {
				for _, tag := range l.tags {
					if _, ok := b.f.evAt[tag]; !ok {
						b.f.evAt[tag] = at
					}
				}
			}
		}
	}
	closer := parseScript(c.pickTimed(closers, s))
	who := 1 - turns[len(turns)-1].speaker
	for _, l := range closer {
		spk := who
		if l.who == 'P' {
			spk = 1 - who
		}
		turns = append(turns, lcTurn{speaker: spk, text: c.tp.must(l.text, c.lineVars(who, s, vars{})...)})
	}
	return turns
}

// conversationJSON is the sample's conversation object, keys in
// locomo10.json's order.
func (c *lcConv) conversationJSON() ordered {
	o := ordered{{"speaker_a", c.p[0].name}, {"speaker_b", c.p[1].name}}
	for s, turns := range c.sessions {
		var js []lcTurnJSON
		for i, t := range turns {
			tj := lcTurnJSON{Speaker: c.p[t.speaker].name, DiaID: fmt.Sprintf("D%d:%d", s+1, i+1), Text: t.text}
			if t.caption != "" {
				slug := strings.Join(strings.Fields(strings.TrimPrefix(strings.TrimPrefix(t.caption, "a photo of "), "a painting of ")), "-")
				if len(slug) > 40 {
					slug = strings.TrimRight(slug[:40], "-")
				}
				tj.ImgURL = []string{fmt.Sprintf("https://example.invalid/%s/%d-%d-%s.jpg", c.id, s+1, i+1, strings.ReplaceAll(slug, "'", ""))}
				tj.BlipCaption = t.caption
			}
			js = append(js, tj)
		}
		o = append(o, kv{fmt.Sprintf("session_%d_date_time", s+1), c.dates[s].Format(locomoLayout)},
			kv{fmt.Sprintf("session_%d", s+1), js})
	}
	return o
}

// topicUses is whether any template of t names key.
func topicUses(t *topic, key string) bool {
	all := append(append(append([]string(nil), t.qs...), t.upd...), t.vp, t.ing, t.item, t.afterq)
	for _, ss := range append(append([][]string(nil), t.scripts...), t.later...) {
		all = append(all, ss...)
	}
	for _, s := range all {
		if strings.Contains(strings.ToLower(s), "{"+key+"}") {
			return true
		}
	}
	return false
}

// lowerQuestion lowercases a question's first word ("How's" -> "how's").
func lowerQuestion(s string) string {
	w, _, _ := strings.Cut(s, " ")
	switch strings.TrimRight(w, "'s") {
	case "How", "Are", "Did", "Have", "Has", "Is", "What", "Where", "When", "Any", "Do":
		return strings.ToLower(s[:1]) + s[1:]
	}
	return s
}

// withArticle is "a nurse", "an accountant", "an HR coordinator", "a UX
// designer".
func withArticle(s string) string {
	if strings.HasPrefix(s, "HR") || (s != "" && strings.ContainsRune("aeioAEIO", rune(s[0]))) {
		return "an " + s
	}
	return "a " + s
}

// pickTimed is a random script of ss whose words fit session s's time of
// day.
func (c *lcConv) pickTimed(ss [][]string, s int) []string {
	for {
		sc := pick(c.r, ss)
		if timeFits(sc, c.dates[s]) {
			return sc
		}
	}
}

// timeFits is whether a script's words fit the hour it is said at: no
// "Good morning" at night, no "goodnight" at ten in the morning.
func timeFits(script []string, t time.Time) bool {
	h := t.Hour()
	for _, l := range script {
		l = strings.ToLower(l)
		switch {
		case strings.Contains(l, "good morning") || strings.Contains(l, "morning!") || strings.Contains(l, "morning,"):
			if h >= 12 {
				return false
			}
		case strings.Contains(l, "lunch break"):
			if h < 11 || h > 14 {
				return false
			}
		case strings.Contains(l, "tonight") || strings.Contains(l, "evening,") || strings.Contains(l, "goodnight") ||
			strings.Contains(l, "falling asleep") || strings.Contains(l, "night,"):
			if h < 17 {
				return false
			}
		case strings.Contains(l, "dinner") && (strings.Contains(l, "start dinner") || strings.Contains(l, "finished dinner") || strings.Contains(l, "dinner's not")):
			if h < 16 {
				return false
			}
		}
	}
	return true
}
