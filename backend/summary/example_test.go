package summary_test

import (
	"fmt"
	"io"
	"os"
	"time"

	"rhizome/backend/pisession"
	"rhizome/backend/segment"
	"rhizome/backend/summary"
)

// The importer's loop (app/ingest/read.go) with summaries: one accumulator per
// segment, told the entry that opens the next segment before it summarises,
// and one for the whole session. Memory stays bounded whatever the file's
// size.
func Example() {
	f, err := os.Open("../segment/testdata/v3/sessions/2026-01-12T09-00-00-000Z_019bb16e-fe80-72b5-af2e-7d405d44d120.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	rd := pisession.NewReader(f, f.Name())
	hdr, err := rd.Header()
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	builder := segment.NewBuilder(segment.DefaultOptions())
	seg, sess := summary.NewAccumulator(), summary.NewAccumulator()
	closeSegment := func(s *segment.Segment) {
		sum := seg.Segment(hdr.ID, *s, now)
		fmt.Printf("segment %d: %s — %s\n", s.Index, sum.Label, sum.Text)
		seg.Reset()
	}
	for {
		e, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			panic(err)
		}
		if step := builder.Add(e); step.Closed != nil {
			seg.Followed(e) // a branch_summary here is pi's summary of the closed segment
			closeSegment(step.Closed)
		}
		seg.Add(e)
		sess.Add(e)
	}
	if last := builder.Finish(); last != nil {
		closeSegment(last)
	}
	s := sess.Session(hdr.ID, hdr.Cwd, now)
	fmt.Printf("session: %s\n%s\n", s.Title, s.Text)
	// Output:
	// segment 0: Add rate limiting to POST login — Add rate limiting to POST login in src/server.ts: at most 5 attempts per minute per IP — edited server.ts; finally the limiter is reset before each test.
	// segment 1: Rate-limit POST login to 5 attempts — Rate-limit POST login to 5 attempts per minute per IP; done: installed express-rate-limit@7, added rateLimit.ts and all 14 tests passed.
	// segment 2: Keep the hand-written limiter — Keep the hand-written limiter, but make the window configurable via RATE_LIMIT_WINDOW_MS — the window now comes from RATE_LIMIT_WINDOW_MS (default 60 000 ms); tests pass.
	// segment 3: Document the middleware in README.md — Document the middleware in README.md — README.md now has a Rate limiting section.
	// session: login rate limiting
	// Add rate limiting to POST login in src/server.ts: at most 5 attempts per minute per IP — edited server.ts. It went on to add rate limiting to POST login, keep the hand-written limiter and document the middleware in README.md. 4 files edited, mostly in src/.
}
