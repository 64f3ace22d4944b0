package search

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TimeRange is a span of time: From inclusive, To exclusive. A zero From
// is open towards the past, a zero To towards the future.
type TimeRange struct {
	From, To time.Time
}

// Contains reports whether t lies in r.
func (r TimeRange) Contains(t time.Time) bool {
	return (r.From.IsZero() || !t.Before(r.From)) && (r.To.IsZero() || t.Before(r.To))
}

// IsZero reports whether r is open at both ends (no range).
func (r TimeRange) IsZero() bool { return r.From.IsZero() && r.To.IsZero() }

// TimeExpr is a time expression found in a query.
type TimeExpr struct {
	Range TimeRange
	Text  string // the words of the query that said it, as typed
}

var months = map[string]time.Month{
	"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4, "apr": 4, "may": 5,
	"june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8, "september": 9, "sep": 9, "sept": 9,
	"october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12,
}

var weekdays = map[string]time.Weekday{
	"sunday": 0, "sun": 0, "monday": 1, "mon": 1, "tuesday": 2, "tue": 2, "tues": 2, "wednesday": 3, "wed": 3,
	"thursday": 4, "thu": 4, "thurs": 4, "friday": 5, "fri": 5, "saturday": 6, "sat": 6,
}

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}

const (
	monthRe   = `(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)`
	weekdayRe = `(monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tues|tue|wed|thurs|thu|fri|sat|sun)`
	unitRe    = `(day|week|month|year)s?`
	numRe     = `(\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`
	isoRe     = `(\d{4})-(\d{2})(?:-(\d{2}))?`
)

// A point names a span on its own ("March", "2025-03-14", "yesterday",
// "Monday"); the patterns below combine points with "since", "before",
// "after", "in", "on", "during", "between ... and ...", "from ... to ...".
var pointRe = `(?:today|yesterday|` + isoRe + `|` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?|(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `(?:,?\s+(\d{4}))?|` + monthRe + `(?:\s+(\d{4}))?|(?:last\s+)?` + weekdayRe + `|(?:this|last|past|previous)\s+` + unitRe + `|` + numRe + `\s+` + unitRe + `\s+ago|in\s+(\d{4}))`

var (
	betweenExpr = regexp.MustCompile(`(?i)\b(?:between|from)\s+(` + pointRe + `)\s+(?:and|to|until)\s+(` + pointRe + `)\b`)
	lastNExpr   = regexp.MustCompile(`(?i)\b(?:in\s+the\s+|over\s+the\s+|during\s+the\s+)?(?:last|past|previous)\s+` + numRe + `\s+` + unitRe + `\b`)
	boundExpr   = regexp.MustCompile(`(?i)\b(since|before|after|until)\s+(` + pointRe + `)\b`)
	pointExpr   = regexp.MustCompile(`(?i)\b(?:(?:in|on|during)\s+)?(` + pointRe + `)\b`)
	recentExpr  = regexp.MustCompile(`(?i)\b(recently|lately)\b`)
	spaces      = regexp.MustCompile(`\s+`)
)

// ParseTime finds the first time expression in q and returns the range it
// names, relative to now (in now's location: "yesterday" is the calendar
// day before now's), with q without it. It understands:
//
//	today, yesterday, recently/lately (the last 7 days)
//	this/last/past/previous day|week|month|year (weeks start on Monday)
//	last/past N days|weeks|months|years, in the last two weeks
//	N days|weeks|months|years ago (that day, week, month or year)
//	Monday, last Monday, on Monday (the latest such day before today)
//	March, in March (the latest March not after now), March 2025
//	March 5, 5 March, March 5th, 2025 (that day)
//	2025-03-14, 2025-03 (ISO dates: that day, that month), in 2025
//	since X, after X, before X, until X, between X and Y, from X to Y
//	the 17th of December
//	and beside a day: in the morning/afternoon/evening/night, the
//	evening of, (just) before/after/around/at midnight, noon, 9am, 21:30
//
// Month and weekday names may be abbreviated ("Mar", "Mon"); case does not
// matter. ok is false when q holds no time expression (q is returned as it
// is). Words that only look like dates ("may" alone, "march" as a verb) are
// read as dates: the caller may ignore the range when the rest is empty.
func ParseTime(q string, now time.Time) (expr TimeExpr, rest string, ok bool) {
	for _, try := range []func() (TimeRange, []int, bool){
		func() (TimeRange, []int, bool) {
			m := betweenExpr.FindStringIndex(q)
			if m == nil {
				return TimeRange{}, nil, false
			}
			a, b, ok := betweenPoints(q[m[0]:m[1]], now)
			return TimeRange{From: a.From, To: b.To}, m, ok
		},
		func() (TimeRange, []int, bool) {
			m := lastNExpr.FindStringSubmatchIndex(q)
			if m == nil {
				return TimeRange{}, nil, false
			}
			n := number(q[m[2]:m[3]])
			unit := strings.ToLower(q[m[4]:m[5]])
			// N days including today; N weeks: 7N days including today.
			today := startOfDay(now)
			return TimeRange{From: back(today, unit, n).AddDate(0, 0, 1), To: today.AddDate(0, 0, 1)}, m[:2], n > 0
		},
		func() (TimeRange, []int, bool) {
			m := boundExpr.FindStringSubmatchIndex(q)
			if m == nil {
				return TimeRange{}, nil, false
			}
			p, ok := point(q[m[4]:m[5]], now)
			if !ok {
				return TimeRange{}, nil, false
			}
			switch strings.ToLower(q[m[2]:m[3]]) {
			case "since":
				return TimeRange{From: p.From}, m[:2], true
			case "after":
				return TimeRange{From: p.To}, m[:2], true
			case "until":
				return TimeRange{To: p.To}, m[:2], true
			default: // before
				return TimeRange{To: p.From}, m[:2], true
			}
		},
		func() (TimeRange, []int, bool) {
			m := pointExpr.FindStringSubmatchIndex(q)
			if m == nil {
				return TimeRange{}, nil, false
			}
			p, ok := point(q[m[2]:m[3]], now)
			return p, m[:2], ok
		},
		func() (TimeRange, []int, bool) {
			m := recentExpr.FindStringIndex(q)
			if m == nil {
				return TimeRange{}, nil, false
			}
			return TimeRange{From: startOfDay(now).AddDate(0, 0, -6), To: startOfDay(now).AddDate(0, 0, 1)}, m, true
		},
	} {
		if r, at, found := try(); found {
			rest = strings.TrimSpace(spaces.ReplaceAllString(q[:at[0]]+" "+q[at[1]:], " "))
			expr := TimeExpr{Range: r, Text: q[at[0]:at[1]]}
			if !r.From.IsZero() && r.From.Equal(startOfDay(r.From)) && r.To.Equal(r.From.AddDate(0, 0, 1)) {
				expr, rest = timeOfDay(expr, rest)
			}
			return expr, rest, true
		}
	}
	return TimeExpr{}, q, false
}

var timeOfDayExpr = regexp.MustCompile(`(?i)\b(?:(?:in|on|during)\s+)?(?:the\s+)?(?:(morning|afternoon|evening|night)(?:\s+of)?|(?:(?:just|right|shortly)\s+)?(before|after|around|at|by)\s+(midnight|noon|\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}))\b`)

// timeOfDay narrows a one-day expression by a time of day said beside it
// in the rest of the query: in the morning (5-12 h), afternoon (12-18 h),
// evening (17-24 h) or night (20-24 h); before a time (the three hours
// before it: "just before midnight", "right before 1am"), after it (the
// three hours after), around or at it (an hour and a half either side);
// times as midnight, noon, 9am, 9:30pm, 21:30. The words are taken out of
// the rest and put before the expression's text.
func timeOfDay(expr TimeExpr, rest string) (TimeExpr, string) {
	m := timeOfDayExpr.FindStringSubmatchIndex(rest)
	if m == nil {
		return expr, rest
	}
	day := expr.Range.From
	at := func(h, min int) time.Time {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(min)*time.Minute)
	}
	var r TimeRange
	if m[2] >= 0 {
		switch strings.ToLower(rest[m[2]:m[3]]) {
		case "morning":
			r = TimeRange{From: at(5, 0), To: at(12, 0)}
		case "afternoon":
			r = TimeRange{From: at(12, 0), To: at(18, 0)}
		case "evening":
			r = TimeRange{From: at(17, 0), To: at(24, 0)}
		default: // night
			r = TimeRange{From: at(20, 0), To: at(24, 0)}
		}
	} else {
		rel := strings.ToLower(rest[m[4]:m[5]])
		word := strings.ToLower(strings.ReplaceAll(rest[m[6]:m[7]], " ", ""))
		var t time.Time
		switch word {
		case "midnight":
			t = at(24, 0)
			if rel == "after" {
				t = at(0, 0)
			}
		case "noon":
			t = at(12, 0)
		default:
			h, min, ok := clock(word)
			if !ok {
				return expr, rest
			}
			t = at(h, min)
		}
		span := 3 * time.Hour
		switch rel {
		case "before", "by":
			r = TimeRange{From: t.Add(-span), To: t}
		case "after":
			r = TimeRange{From: t, To: t.Add(span)}
		default:
			r = TimeRange{From: t.Add(-span / 2), To: t.Add(span / 2)}
		}
	}
	expr.Range = r
	expr.Text = strings.TrimSpace(rest[m[0]:m[1]]) + " " + expr.Text
	return expr, strings.TrimSpace(spaces.ReplaceAllString(rest[:m[0]]+" "+rest[m[1]:], " "))
}

// clock reads "9am", "9:30pm", "21:30" as hours and minutes.
func clock(s string) (h, min int, ok bool) {
	pm, am := strings.HasSuffix(s, "pm"), strings.HasSuffix(s, "am")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "pm"), "am")
	hs, ms, _ := strings.Cut(s, ":")
	h, err := strconv.Atoi(hs)
	if err != nil {
		return 0, 0, false
	}
	if ms != "" {
		if min, err = strconv.Atoi(ms); err != nil || min > 59 {
			return 0, 0, false
		}
	}
	switch {
	case (am || pm) && (h < 1 || h > 12):
		return 0, 0, false
	case pm && h < 12:
		h += 12
	case am && h == 12:
		h = 0
	case h > 23:
		return 0, 0, false
	}
	return h, min, true
}

// betweenPoints reads "between X and Y" / "from X to Y" as its two points.
func betweenPoints(whole string, now time.Time) (a, b TimeRange, ok bool) {
	low := strings.ToLower(whole)
	first := strings.IndexByte(low, ' ')
	for _, sep := range []string{" and ", " to ", " until "} {
		for i := strings.Index(low, sep); i >= 0; {
			a, okA := point(whole[first+1:i], now)
			b, okB := point(whole[i+len(sep):], now)
			if okA && okB {
				return a, b, true
			}
			j := strings.Index(low[i+1:], sep)
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return a, b, false
}

var (
	onlyISO      = regexp.MustCompile(`^` + isoRe + `$`)
	onlyMonthDay = regexp.MustCompile(`(?i)^` + monthRe + `\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?$`)
	onlyDayMonth = regexp.MustCompile(`(?i)^(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?` + monthRe + `(?:,?\s+(\d{4}))?$`)
	onlyMonth    = regexp.MustCompile(`(?i)^` + monthRe + `(?:\s+(\d{4}))?$`)
	onlyWeekday  = regexp.MustCompile(`(?i)^(?:last\s+)?` + weekdayRe + `$`)
	onlyThisLast = regexp.MustCompile(`(?i)^(this|last|past|previous)\s+` + unitRe + `$`)
	onlyAgo      = regexp.MustCompile(`(?i)^` + numRe + `\s+` + unitRe + `\s+ago$`)
	onlyYear     = regexp.MustCompile(`(?i)^in\s+(\d{4})$`)
)

// point reads one point expression (see pointRe) as the span it names.
func point(s string, now time.Time) (TimeRange, bool) {
	s = strings.TrimSpace(spaces.ReplaceAllString(s, " "))
	low := strings.ToLower(s)
	loc := now.Location()
	day := func(y int, m time.Month, d int) (TimeRange, bool) {
		t := time.Date(y, m, d, 0, 0, 0, 0, loc)
		if t.Month() != m || t.Day() != d {
			return TimeRange{}, false // 31 February
		}
		return TimeRange{From: t, To: t.AddDate(0, 0, 1)}, true
	}
	month := func(y int, m time.Month) TimeRange {
		t := time.Date(y, m, 1, 0, 0, 0, 0, loc)
		return TimeRange{From: t, To: t.AddDate(0, 1, 0)}
	}
	// latestYear is the year of the latest month m (day d) not after now.
	latestYear := func(m time.Month, d int) int {
		y := now.Year()
		if time.Date(y, m, d, 0, 0, 0, 0, loc).After(now) {
			y--
		}
		return y
	}
	switch {
	case low == "today":
		return TimeRange{From: startOfDay(now), To: startOfDay(now).AddDate(0, 0, 1)}, true
	case low == "yesterday":
		return TimeRange{From: startOfDay(now).AddDate(0, 0, -1), To: startOfDay(now)}, true
	}
	if m := onlyISO.FindStringSubmatch(s); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		if mo < 1 || mo > 12 {
			return TimeRange{}, false
		}
		if m[3] == "" {
			return month(y, time.Month(mo)), true
		}
		d, _ := strconv.Atoi(m[3])
		return day(y, time.Month(mo), d)
	}
	if m := onlyMonthDay.FindStringSubmatch(low); m != nil {
		mo := months[m[1]]
		d, _ := strconv.Atoi(m[2])
		y := latestYear(mo, d)
		if m[3] != "" {
			y, _ = strconv.Atoi(m[3])
		}
		return day(y, mo, d)
	}
	if m := onlyDayMonth.FindStringSubmatch(low); m != nil {
		mo := months[m[2]]
		d, _ := strconv.Atoi(m[1])
		y := latestYear(mo, d)
		if m[3] != "" {
			y, _ = strconv.Atoi(m[3])
		}
		return day(y, mo, d)
	}
	if m := onlyMonth.FindStringSubmatch(low); m != nil {
		mo := months[m[1]]
		y := latestYear(mo, 1)
		if m[2] != "" {
			y, _ = strconv.Atoi(m[2])
		}
		return month(y, mo), true
	}
	if m := onlyWeekday.FindStringSubmatch(low); m != nil {
		wd := weekdays[m[1]]
		today := startOfDay(now)
		back := (int(today.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7 // the latest such day before today
		}
		d := today.AddDate(0, 0, -back)
		return TimeRange{From: d, To: d.AddDate(0, 0, 1)}, true
	}
	if m := onlyThisLast.FindStringSubmatch(low); m != nil {
		unit := m[2]
		start := startOf(now, unit)
		if m[1] == "this" {
			return TimeRange{From: start, To: back(start, unit, -1)}, true
		}
		return TimeRange{From: back(start, unit, 1), To: start}, true
	}
	if m := onlyAgo.FindStringSubmatch(low); m != nil {
		n := number(m[1])
		unit := m[2]
		start := back(startOf(now, unit), unit, n)
		return TimeRange{From: start, To: back(start, unit, -1)}, true
	}
	if m := onlyYear.FindStringSubmatch(low); m != nil {
		y, _ := strconv.Atoi(m[1])
		t := time.Date(y, 1, 1, 0, 0, 0, 0, loc)
		return TimeRange{From: t, To: t.AddDate(1, 0, 0)}, true
	}
	return TimeRange{}, false
}

func number(s string) int {
	if n, ok := numberWords[strings.ToLower(s)]; ok {
		return n
	}
	n, _ := strconv.Atoi(s)
	return n
}

func startOfDay(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, t.Location())
}

// startOf is the start of the day, week (Monday), month or year holding t.
func startOf(t time.Time, unit string) time.Time {
	d := startOfDay(t)
	switch strings.TrimSuffix(unit, "s") {
	case "week":
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, t.Location())
	case "year":
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, t.Location())
	}
	return d
}

// back moves t n days, weeks, months or years into the past (n < 0: into
// the future).
func back(t time.Time, unit string, n int) time.Time {
	switch strings.TrimSuffix(unit, "s") {
	case "week":
		return t.AddDate(0, 0, -7*n)
	case "month":
		return t.AddDate(0, -n, 0)
	case "year":
		return t.AddDate(-n, 0, 0)
	}
	return t.AddDate(0, 0, -n)
}

// Proximity scores how near t lies to r, in [0, 1]: 1 inside, then
// exp(-distance/width) outside, width the range's length (at least a day;
// a half-open range: a week).
func (r TimeRange) Proximity(t time.Time) float64 {
	if t.IsZero() || r.IsZero() {
		return 0
	}
	if r.Contains(t) {
		return 1
	}
	width := 7 * 24 * time.Hour
	if !r.From.IsZero() && !r.To.IsZero() {
		width = max(r.To.Sub(r.From), 24*time.Hour)
	}
	var dist time.Duration
	if !r.From.IsZero() && t.Before(r.From) {
		dist = r.From.Sub(t)
	} else {
		dist = t.Sub(r.To)
	}
	return math.Exp(-float64(dist) / float64(width))
}
