package analyze

// Chunking: a segment whose transcript does not fit one request is sent in
// parts ("chunks") that each fit the model's context window. Entries are
// packed in order, whole, by their token estimate (EstimateTokens of their
// rendered form); an entry larger than a chunk's room on its own is cut to
// it. Each chunk after the first repeats the last entries of the one
// before (at most overlapEntries, together within a tenth of the room: a
// longer entry is repeated cut to that), marked "(repeated)", so that a
// request is not read without its cause; and it
// carries the findings of the earlier chunks (handoverSection), so that the
// model answers for the segment so far. The answers are merged (see
// mergeAnalyses).

// overlapEntries is how many entries of the previous chunk a chunk repeats
// at most.
const overlapEntries = 2

// minRoom is the smallest transcript room of a request, in tokens, under
// which a segment is not sent: the model would see too little to analyse.
const minRoom = 400

// chunk is a run of entries sent in one request: entries[from:to] of the
// segment, of which the first overlap repeat the end of the previous chunk,
// each cut to overlapTokens.
type chunk struct {
	from, to, overlap int
	overlapTokens     int // the bound of each repeated entry
	tokens            int // estimated tokens of its entries, repeated ones as cut
}

// planChunks packs entries, by their estimated token costs, into chunks of
// at most room tokens each (an entry costing more than room makes a chunk
// of its own, cut when rendered). Entries costing nothing are carried
// along. It returns at least one chunk when there are entries.
func planChunks(costs []int, room int) []chunk {
	var out []chunk
	n := len(costs)
	for i := 0; i < n; {
		c := chunk{from: i}
		if len(out) > 0 {
			// Repeat the previous chunk's last new entries while they take
			// at most a tenth of the room; the last one always, cut to it.
			prev := out[len(out)-1]
			limit := max(room/10, 1)
			for k := 1; k <= overlapEntries && prev.to-k >= prev.from+prev.overlap; k++ {
				cost := 0
				for j := prev.to - k; j < prev.to; j++ {
					cost += costs[j]
				}
				if k > 1 && cost > limit {
					break
				}
				c.from, c.overlap, c.tokens, c.overlapTokens = prev.to-k, k, min(cost, limit), limit
			}
		}
		for i < n && (i == c.from+c.overlap || c.tokens+costs[i] <= room) {
			c.tokens += costs[i]
			i++
		}
		c.to = i
		out = append(out, c)
	}
	return out
}

// planRoom is the transcript room of one request, in tokens, for a context
// window of window tokens, a reply bound of maxOut tokens and fixed tokens
// of everything else the request carries (system prompt, schema, context
// section): what is left after those, a safety margin (5% of the window,
// for the estimate's error and the messages' framing) and room for the one
// retry's excerpt and instruction (a tenth of the window, at most 2000
// tokens). It may be negative.
func planRoom(window, maxOut, fixed int) int {
	return window - maxOut - fixed - window/20 - min(2000, window/10)
}
