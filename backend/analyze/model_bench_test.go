package analyze

import (
	"testing"
)

// BenchmarkModelPrompt builds every prompt the model analyzer would send
// for the real sessions' segments (a 32,000-token window: the transcript
// rendered, planned into chunks, each chunk's user message written) and
// validates a canned analysis once per segment. Bytes are the sessions'
// entry text.
func BenchmarkModelPrompt(b *testing.B) {
	type seg struct {
		in      SegmentInput
		context string
	}
	var segs []seg
	var textBytes int64
	for _, rs := range realSessions {
		s, ss, nodes := analyzeReal(b, rs.name)
		for i, sg := range ss {
			in := SegmentInput{Input: Input{Header: s.Header, Segment: sg}, Entries: s.Entries[sg.StartSeq : sg.EndSeq+1], Offline: &nodes[i]}
			segs = append(segs, seg{in: in})
			textBytes += nodes[i].DaemonMeta.SegmentTokenCount * 4
		}
	}
	canned := []byte(chunkAnswer(0))
	b.SetBytes(textBytes)
	b.ReportAllocs()
	for b.Loop() {
		for _, sg := range segs {
			r := &run{entries: sg.in.Entries, context: contextSection(sg.in.Input, *sg.in.Offline, nil)}
			room := planRoom(DefaultContextWindow, defaultMaxOutput(DefaultContextWindow), fixedTokens()+EstimateTokens(r.context)+100)
			costs := make([]int, len(sg.in.Entries))
			var buf []byte
			for i := range sg.in.Entries {
				buf = renderEntry(buf[:0], &sg.in.Entries[i], 0)
				costs[i] = EstimateTokens(string(buf))
			}
			chunks := planChunks(costs, room-room/maxHandoverDivisor)
			for k, ch := range chunks {
				_ = r.userMessage(k, len(chunks), ch, nil, room)
			}
			if _, err := ParseAnalysis(canned); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkParseAnalysis decodes and validates the canned analysis of a
// real segment against analysis.schema.json.
func BenchmarkParseAnalysis(b *testing.B) {
	canned := []byte(poem(b))
	b.SetBytes(int64(len(canned)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAnalysis(canned); err != nil {
			b.Fatal(err)
		}
	}
}
