package search

import (
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	// Wednesday 12 March 2025, 15:04 in Berlin.
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		loc = time.FixedZone("CET", 3600)
	}
	now := time.Date(2025, 3, 12, 15, 4, 0, 0, loc)
	d := func(y int, m time.Month, day int) time.Time { return time.Date(y, m, day, 0, 0, 0, 0, loc) }
	h := func(y int, m time.Month, day, hour int) time.Time { return time.Date(y, m, day, hour, 0, 0, 0, loc) }
	var zero time.Time
	for _, tc := range []struct {
		q        string
		from, to time.Time
		rest     string
		text     string
	}{
		{"errors yesterday", d(2025, 3, 11), d(2025, 3, 12), "errors", "yesterday"},
		{"what did I do today", d(2025, 3, 12), d(2025, 3, 13), "what did I do", "today"},
		{"compaction last week", d(2025, 3, 3), d(2025, 3, 10), "compaction", "last week"},
		{"this week theme", d(2025, 3, 10), d(2025, 3, 17), "theme", "this week"},
		{"last month", d(2025, 2, 1), d(2025, 3, 1), "", "last month"},
		{"this year", d(2025, 1, 1), d(2026, 1, 1), "", "this year"},
		{"tmux in March", d(2025, 3, 1), d(2025, 4, 1), "tmux", "in March"},
		{"in december", d(2024, 12, 1), d(2025, 1, 1), "", "in december"}, // the latest December
		{"oauth March 2024", d(2024, 3, 1), d(2024, 4, 1), "oauth", "March 2024"},
		{"on Mar 5", d(2025, 3, 5), d(2025, 3, 6), "", "on Mar 5"},
		{"5 March 2024 deploy", d(2024, 3, 5), d(2024, 3, 6), "deploy", "5 March 2024"},
		{"March 5th, 2024", d(2024, 3, 5), d(2024, 3, 6), "", "March 5th, 2024"},
		{"since Monday", d(2025, 3, 10), zero, "", "since Monday"},
		{"since wednesday", d(2025, 3, 5), zero, "", "since wednesday"}, // today is Wednesday: the one before
		{"tests 2 days ago", d(2025, 3, 10), d(2025, 3, 11), "tests", "2 days ago"},
		{"three weeks ago", d(2025, 2, 17), d(2025, 2, 24), "", "three weeks ago"},
		{"a month ago", d(2025, 2, 1), d(2025, 3, 1), "", "a month ago"},
		{"pgx 2025-01-13", d(2025, 1, 13), d(2025, 1, 14), "pgx", "2025-01-13"},
		// A time of day beside a day narrows it.
		{"what was I working on just before midnight on 20 February", h(2025, 2, 20, 21), d(2025, 2, 21), "what was I working",
			"on just before midnight on 20 February"},
		{"push right before 1am on 24 February 2025", h(2025, 2, 23, 22), h(2025, 2, 24, 1), "push", "right before 1am on 24 February 2025"},
		{"commit on the evening of 17 February", h(2025, 2, 17, 17), d(2025, 2, 18), "commit", "on the evening of 17 February"},
		{"deploy yesterday at 9:30pm", h(2025, 3, 11, 20), h(2025, 3, 11, 23), "deploy", "at 9:30pm yesterday"},
		{"tests after noon today", h(2025, 3, 12, 12), h(2025, 3, 12, 15), "tests", "after noon today"},
		{"the 17th of February", d(2025, 2, 17), d(2025, 2, 18), "", "the 17th of February"},
		{"at 25:00 yesterday", d(2025, 3, 11), d(2025, 3, 12), "at 25:00", "yesterday"}, // no such time: the day
		{"2024-11 release", d(2024, 11, 1), d(2024, 12, 1), "release", "2024-11"},
		{"before 2025-01-01", zero, d(2025, 1, 1), "", "before 2025-01-01"},
		{"after January", d(2025, 2, 1), zero, "", "after January"},
		{"until yesterday", zero, d(2025, 3, 12), "", "until yesterday"},
		{"in 2024", d(2024, 1, 1), d(2025, 1, 1), "", "in 2024"},
		{"the last 3 days", d(2025, 3, 10), d(2025, 3, 13), "the", "last 3 days"},
		{"in the past two weeks", d(2025, 2, 27), d(2025, 3, 13), "", "in the past two weeks"},
		{"between 2025-01-01 and 2025-01-31", d(2025, 1, 1), d(2025, 2, 1), "", "between 2025-01-01 and 2025-01-31"},
		{"from January to February", d(2025, 1, 1), d(2025, 3, 1), "", "from January to February"},
		{"last Friday", d(2025, 3, 7), d(2025, 3, 8), "", "last Friday"},
		{"recently", d(2025, 3, 6), d(2025, 3, 13), "", "recently"},
	} {
		expr, rest, ok := ParseTime(tc.q, now)
		if !ok {
			t.Errorf("%q: no time expression", tc.q)
			continue
		}
		if !expr.Range.From.Equal(tc.from) || !expr.Range.To.Equal(tc.to) || rest != tc.rest || expr.Text != tc.text {
			t.Errorf("%q: [%v, %v) %q rest %q; want [%v, %v) %q rest %q", tc.q, expr.Range.From, expr.Range.To, expr.Text, rest,
				tc.from, tc.to, tc.text, tc.rest)
		}
	}
	for _, q := range []string{"agent", "the theme selector", "2025 items", "version 2025-13", "Feb 30"} {
		if expr, rest, ok := ParseTime(q, now); ok {
			t.Errorf("%q: found %q [%v, %v), rest %q", q, expr.Text, expr.Range.From, expr.Range.To, rest)
		}
	}
}

func TestProximity(t *testing.T) {
	day := func(n int) time.Time { return time.Date(2025, 3, n, 12, 0, 0, 0, time.UTC) }
	r := TimeRange{From: day(10).Add(-12 * time.Hour), To: day(17).Add(-12 * time.Hour)} // a week
	if r.Proximity(day(12)) != 1 {
		t.Error("inside is not 1")
	}
	near, far := r.Proximity(day(18)), r.Proximity(day(28))
	if !(near < 1 && far < near && far > 0) {
		t.Errorf("proximity a day after %v, 11 days after %v", near, far)
	}
	if (TimeRange{}).Proximity(day(1)) != 0 || r.Proximity(time.Time{}) != 0 {
		t.Error("no range or no time is not 0")
	}
}
