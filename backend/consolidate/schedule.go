package consolidate

import "time"

// Every returns the interval between scheduled runs of cycle c, or 0 when
// its schedule is off (it still runs on demand) or c is unknown.
func (s *Settings) Every(c Cycle) time.Duration {
	var d float64
	switch c {
	case Decay:
		d = s.DecayEveryDays
	case Creative:
		d = s.CreativeEveryDays
	case Cluster:
		d = s.ClusterEveryDays
	case Forget:
		d = s.ForgetEveryDays
	}
	return time.Duration(d * float64(day))
}

// Due lists the cycles whose scheduled run is due at time now, in the order
// of Cycles, given when each last ran (a missing or zero time: never). A
// cycle is due when its schedule is on and it never ran, or its interval
// has passed since it last ran, or it last ran after now (the clock went
// back: better one early run than none until the clock catches up). The
// app calls Due while it is open (say hourly) and runs what it lists as one
// run. See automem-features.md, "Cycles" (daily, weekly, monthly,
// quarterly).
func Due(last map[Cycle]time.Time, now time.Time, s Settings) []Cycle {
	var due []Cycle
	for _, c := range Cycles {
		every := s.Every(c)
		if every <= 0 {
			continue
		}
		t := last[c]
		if t.IsZero() || t.After(now) || now.Sub(t) >= every {
			due = append(due, c)
		}
	}
	return due
}

// NextRun returns, per cycle whose schedule is on, when it is next due:
// its last run plus its interval, or zero when it never ran (due now).
func NextRun(last map[Cycle]time.Time, s Settings) map[Cycle]time.Time {
	next := map[Cycle]time.Time{}
	for _, c := range Cycles {
		every := s.Every(c)
		if every <= 0 {
			continue
		}
		if t := last[c]; !t.IsZero() {
			next[c] = t.Add(every)
		} else {
			next[c] = time.Time{}
		}
	}
	return next
}
