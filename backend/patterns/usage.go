package patterns

import (
	"cmp"
	"fmt"
	"math"
	"rhizome/backend/project"
	"slices"
	"time"

	"rhizome/backend/link"
)

// Usage is one node's token use and cost with one model: a segment's
// usage per model (backend/graph's ModelUsage), placed in time.
type Usage struct {
	Node     link.Item `json:"node"`     // the segment (or other node) that used it
	Time     time.Time `json:"time"`     // when: the segment's start
	Project  string    `json:"project"`  // the project's path; "" for none
	Provider string    `json:"provider"` // "anthropic", "openai", …; may be ""
	Model    string    `json:"model"`    // the model's id; "" when unknown
	// Token counts, by kind.
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	CacheRead  int64   `json:"cacheRead"`
	CacheWrite int64   `json:"cacheWrite"`
	Cost       float64 `json:"cost"` // USD
}

// Totals sums usage.
type Totals struct {
	Input      int64   `json:"input"`
	Output     int64   `json:"output"`
	CacheRead  int64   `json:"cacheRead"`
	CacheWrite int64   `json:"cacheWrite"`
	Tokens     int64   `json:"tokens"` // input + output + cache read + cache write, as pi's totalTokens
	Cost       float64 `json:"cost"`   // USD
	Records    int     `json:"records"`
}

func (t *Totals) add(u *Usage) {
	t.Input += u.Input
	t.Output += u.Output
	t.CacheRead += u.CacheRead
	t.CacheWrite += u.CacheWrite
	t.Tokens += u.Input + u.Output + u.CacheRead + u.CacheWrite
	t.Cost += u.Cost
	t.Records++
}

// Series is one model's or project's usage per day, aligned with
// UsageReport.Days.
type Series struct {
	Key   string   `json:"key"`   // "provider/model" (or the model alone), or the project's path
	Name  string   `json:"name"`  // what a chart labels it with: "model · provider" (the model alone without one), or the project's name
	Days  []Totals `json:"days"`  // one per UsageReport.Days entry
	Total Totals   `json:"total"` // over every day
}

// Row is the usage of one day, model and project, with the nodes behind
// it.
type Row struct {
	Day     string      `json:"day"` // YYYY-MM-DD in the report's location
	Model   string      `json:"model"`
	Project string      `json:"project"`
	Totals  Totals      `json:"totals"`
	Nodes   []link.Item `json:"nodes"` // each once, in record order
}

// UsageReport is token use and cost over time: per day, per model, per
// project. Days run from the first record's day to the last's, every day
// between included (zero where nothing was used), so a chart's axis is
// continuous.
type UsageReport struct {
	Days      []string `json:"days"`      // YYYY-MM-DD
	ByDay     []Totals `json:"byDay"`     // one per day
	ByModel   []Series `json:"byModel"`   // the costliest first
	ByProject []Series `json:"byProject"` // the costliest first
	Rows      []Row    `json:"rows"`      // every non-empty (day, model, project), by day, model, project
	Total     Totals   `json:"total"`
}

// MaxUsageDays bounds a report's span: a record dated decades off is an
// input error, not a chart of empty days.
const MaxUsageDays = 36600

// UsageOverTime aggregates records into days of location loc (nil: UTC).
// A model's key is "provider/model" (the model alone without a provider;
// "(unknown)" without either) and its name "model · provider", since one
// model is served by several providers (gpt-5.5 by openai, azure,
// openrouter…), each a series of its own. A project's series is named by
// names (project.Names over the library's projects; nil: among the records'
// own projects). Errors name the record, its node and the
// field: no time, a negative token count, a negative or non-finite cost, or
// records spanning more than MaxUsageDays days. See issue 10, section 4
// ("tokens and cost per day, per model, per project").
func UsageOverTime(records []Usage, names map[string]string, loc *time.Location) (UsageReport, error) {
	if loc == nil {
		loc = time.UTC
	}
	r := UsageReport{Days: []string{}, ByDay: []Totals{}, ByModel: []Series{}, ByProject: []Series{}, Rows: []Row{}}
	if len(records) == 0 {
		return r, nil
	}
	dayOf := func(t time.Time) time.Time {
		y, m, d := t.In(loc).Date()
		return time.Date(y, m, d, 12, 0, 0, 0, loc) // noon: safe from daylight-saving shifts
	}
	first, last := time.Time{}, time.Time{}
	for i := range records {
		u := &records[i]
		where := func(field string) string {
			return fmt.Sprintf("patterns: usage record %d (%s): field %s", i, u.Node, field)
		}
		if u.Time.IsZero() {
			return UsageReport{}, fmt.Errorf("%s is not set", where("time"))
		}
		for _, f := range []struct {
			name string
			v    int64
		}{{"input", u.Input}, {"output", u.Output}, {"cacheRead", u.CacheRead}, {"cacheWrite", u.CacheWrite}} {
			if f.v < 0 {
				return UsageReport{}, fmt.Errorf("%s: %d is negative", where(f.name), f.v)
			}
		}
		if !(u.Cost >= 0 && !math.IsInf(u.Cost, 0)) {
			return UsageReport{}, fmt.Errorf("%s: %v, want a finite number >= 0 (USD)", where("cost"), u.Cost)
		}
		d := dayOf(u.Time)
		if first.IsZero() || d.Before(first) {
			first = d
		}
		if last.IsZero() || d.After(last) {
			last = d
		}
	}
	span := 1
	for d := first; d.Before(last); d = d.AddDate(0, 0, 1) {
		if span++; span > MaxUsageDays {
			return UsageReport{}, fmt.Errorf("patterns: usage records span from %s to %s, more than %d days: check their times", first.Format(time.DateOnly), last.Format(time.DateOnly), MaxUsageDays)
		}
	}
	dayIndex := map[string]int{}
	for d, i := first, 0; i < span; d, i = d.AddDate(0, 0, 1), i+1 {
		key := d.Format(time.DateOnly)
		dayIndex[key] = i
		r.Days = append(r.Days, key)
	}
	if names == nil {
		paths := make([]string, len(records))
		for i := range records {
			paths[i] = records[i].Project
		}
		names = project.Names(paths)
	}
	r.ByDay = make([]Totals, span)
	models := map[string]*Series{}
	projects := map[string]*Series{}
	series := func(m map[string]*Series, key, name string) *Series {
		s := m[key]
		if s == nil {
			s = &Series{Key: key, Name: name, Days: make([]Totals, span)}
			m[key] = s
		}
		return s
	}
	type rowKey struct{ day, model, project string }
	rows := map[rowKey]*Row{}
	rowNodes := map[rowKey]map[link.Item]bool{}
	for i := range records {
		u := &records[i]
		day := dayOf(u.Time).Format(time.DateOnly)
		di := dayIndex[day]
		model, name := u.Model, u.Model
		switch {
		case u.Model == "" && u.Provider == "":
			model, name = "(unknown)", "(unknown)"
		case u.Model == "":
			model, name = u.Provider+"/(unknown)", "(unknown) · "+u.Provider
		case u.Provider != "":
			model, name = u.Provider+"/"+u.Model, u.Model+" · "+u.Provider
		}
		r.Total.add(u)
		r.ByDay[di].add(u)
		ms := series(models, model, name)
		ms.Days[di].add(u)
		ms.Total.add(u)
		pname, ok := names[u.Project]
		if !ok {
			pname = project.Name(u.Project, nil)
		}
		if pname == "" {
			pname = "(no project)"
		}
		ps := series(projects, u.Project, pname)
		ps.Days[di].add(u)
		ps.Total.add(u)
		k := rowKey{day, model, u.Project}
		row := rows[k]
		if row == nil {
			row = &Row{Day: day, Model: model, Project: u.Project}
			rows[k], rowNodes[k] = row, map[link.Item]bool{}
		}
		row.Totals.add(u)
		if !rowNodes[k][u.Node] {
			rowNodes[k][u.Node] = true
			row.Nodes = append(row.Nodes, u.Node)
		}
	}
	costliest := func(m map[string]*Series) []Series {
		out := make([]Series, 0, len(m))
		for _, s := range m {
			out = append(out, *s)
		}
		slices.SortFunc(out, func(a, b Series) int {
			return cmp.Or(cmp.Compare(b.Total.Cost, a.Total.Cost), cmp.Compare(b.Total.Tokens, a.Total.Tokens), cmp.Compare(a.Key, b.Key))
		})
		return out
	}
	r.ByModel, r.ByProject = costliest(models), costliest(projects)
	for _, row := range rows {
		r.Rows = append(r.Rows, *row)
	}
	slices.SortFunc(r.Rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Model, b.Model), cmp.Compare(a.Project, b.Project))
	})
	return r, nil
}
