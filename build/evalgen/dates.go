package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// LoCoMo's and LongMemEval's date layouts.
const (
	locomoLayout = "3:04 pm on 2 January, 2006"
	lmeLayout    = "2006/01/02 (Mon) 15:04"
	answerLayout = "2 January 2006"
)

// relDate is an event's date as a turn says it ("last Saturday", "two
// weeks ago", "next month") and as an answer gives it, resolved against
// the session's date ("The Saturday before 8 May 2023").
type relDate struct {
	phrase string
	date   time.Time // the day, or the middle of a vague span
	answer string
	exact  bool // date is the very day
}

// dayOf is t's calendar day.
func dayOf(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// pastDate picks how a turn on day now dates an event no more than
// maxBack days before: style "day" prefers a day ("yesterday", "last
// Saturday"), "span" a stretch ("last week", "two weeks ago").
func pastDate(r *rand.Rand, now time.Time, style string, maxBack int, avoid []string) relDate {
	d := dayOf(now)
	on := d.Format(answerLayout)
	exact := func(phrase string, back int) relDate {
		t := d.AddDate(0, 0, -back)
		return relDate{phrase, t, t.Format(answerLayout), true}
	}
	var opts []relDate
	add := func(weight int, rd relDate, back int) {
		if back > maxBack || slices.Contains(avoid, rd.phrase) {
			return
		}
		for range weight {
			opts = append(opts, rd)
		}
	}
	dayOpts := func(w int) {
		add(3*w, exact("yesterday", 1), 1)
		add(w, exact("last night", 1), 1)
		if now.Hour() >= 12 {
			add(w, exact("this morning", 0), 0)
		}
		add(w, exact("two days ago", 2), 2)
		k := between(r, 2, 7)
		wd := d.AddDate(0, 0, -k)
		if r.IntN(2) == 0 {
			add(3*w, relDate{"last " + wd.Weekday().String(), wd, fmt.Sprintf("The %s before %s", wd.Weekday(), on), true}, k)
		} else {
			add(3*w, relDate{"last " + wd.Weekday().String(), wd, wd.Format(answerLayout), true}, k)
		}
		if wdn := int(d.Weekday()); wdn >= 1 && wdn <= 4 {
			back := wdn + 1 // the Saturday before
			add(2*w, relDate{"last weekend", d.AddDate(0, 0, -back), "The weekend before " + on, false}, back)
		}
	}
	spanOpts := func(w int) {
		add(2*w, relDate{"last week", d.AddDate(0, 0, -7), "The week before " + on, false}, 7)
		add(w, relDate{"two weeks ago", d.AddDate(0, 0, -14), "Two weeks before " + on, false}, 14)
		add(w, relDate{"a couple of weeks ago", d.AddDate(0, 0, -14), "Two weeks before " + on, false}, 14)
		add(w, relDate{"a few days ago", d.AddDate(0, 0, -3), "A few days before " + on, false}, 3)
		lm := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0)
		add(w, relDate{"last month", lm.AddDate(0, 0, 14), lm.Format("January 2006"), false}, int(d.Sub(lm.AddDate(0, 0, 14)).Hours()/24))
	}
	switch style {
	case "span":
		spanOpts(2)
		if wdn := int(d.Weekday()); wdn >= 1 && wdn <= 4 {
			back := wdn + 1
			add(2, relDate{"last weekend", d.AddDate(0, 0, -back), "The weekend before " + on, false}, back)
		}
	default:
		dayOpts(2)
		spanOpts(1)
	}
	if len(opts) == 0 {
		maxBack, avoid = 2, nil
		dayOpts(1)
	}
	return pick(r, opts)
}

// futureDate picks how a turn on day now dates a planned event.
func futureDate(r *rand.Rand, now time.Time) relDate {
	d := dayOf(now)
	on := d.Format(answerLayout)
	nm := time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, 1, 0)
	later := nm.AddDate(0, between(r, 1, 3), 0)
	opts := []relDate{
		{"next month", nm.AddDate(0, 0, 14), nm.Format("January 2006"), false},
		{"in two weeks", d.AddDate(0, 0, 14), "Two weeks after " + on, false},
		{"in " + later.Month().String(), later.AddDate(0, 0, 14), later.Format("January 2006"), false},
	}
	if wdn := int(d.Weekday()); wdn >= 1 && wdn <= 4 {
		sat := d.AddDate(0, 0, 6-wdn+7)
		opts = append(opts, relDate{"next weekend", sat, "The weekend after " + on, false})
	}
	return pick(r, opts)
}

// timeOfDay is a plausible hour and minute for a chat.
func timeOfDay(r *rand.Rand) (int, int) {
	hours := []int{8, 9, 9, 10, 10, 11, 11, 12, 13, 13, 14, 14, 15, 16, 17, 17, 18, 19, 19, 20, 20, 21, 21, 22}
	return pick(r, hours), r.IntN(60)
}

// spanWords says how far apart two dates are, roughly.
func spanWords(a, b time.Time) string {
	days := int(b.Sub(a).Hours() / 24)
	if days < 0 {
		days = -days
	}
	switch {
	case days < 45:
		w := (days + 3) / 7
		if w <= 1 {
			return "About a week"
		}
		return "About " + numberWord(w) + " weeks"
	default:
		m := (days + 15) / 30
		if m <= 1 {
			return "About a month"
		}
		return "About " + numberWord(m) + " months"
	}
}
