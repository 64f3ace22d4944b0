package analyze

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"rhizome/backend/graph"
	"rhizome/backend/llm"
	"rhizome/backend/session"
)

// Defaults of a model analysis.
const (
	// DefaultContextWindow is the context assumed, in tokens, when neither
	// the options nor the price table know the model's: small enough for
	// local models served with their usual settings.
	DefaultContextWindow = 32000
	// DefaultMaxOutputTokens bounds a reply, in tokens; it is lowered to a
	// quarter of a smaller context window.
	DefaultMaxOutputTokens = 4096
	// maxRechunks is how many times a segment is planned again in smaller
	// chunks after the provider said a request did not fit.
	maxRechunks = 2
)

// Sources of a node's analysis.
const SourceOffline = "offline"

// ModelSource names a model analysis: "model:<provider>/<model>"
// ("model:anthropic/claude-haiku-4-5").
func ModelSource(provider, model string) string { return "model:" + provider + "/" + model }

// SegmentInput is a segment to analyse with a model: what the offline
// analyzer takes, and its node when the caller has it.
type SegmentInput struct {
	Input
	// Entries are the segment's entries in file order.
	Entries []session.Entry
	// Offline is the segment's offline node; nil makes AnalyzeSegment
	// compute it with Analyze.
	Offline *graph.Node
}

// Options configure a model analysis.
type Options struct {
	// Provider ("openai" or "anthropic") and Model name the model; Model is
	// sent in every request. BaseURL is where it is served, for the price
	// lookup (a loopback server is free).
	Provider string
	Model    string
	BaseURL  string
	// ContextWindow is the model's context in tokens; 0 takes the price
	// table's, else DefaultContextWindow.
	ContextWindow int
	// MaxOutputTokens bounds each reply; 0 means DefaultMaxOutputTokens,
	// at most a quarter of the context window.
	MaxOutputTokens int
	// Prices is the price table (DefaultPrices when nil); the model's
	// entry prices Usage and the budget's reservations.
	Prices PriceTable
	// Budget, when set, is reserved before each call: a call that could
	// pass it is not made (ErrBudgetExceeded).
	Budget *Budget
	// Candidates are the other nodes the model may relate the segment to.
	Candidates []Candidate
	// Previous is the state of the node's current version (nil when the
	// segment was never analysed); Manual says the user asked. They decide
	// Result.Trigger.
	Previous *AnalysisState
	Manual   bool
	// Now is the analysis time (time.Now when nil).
	Now func() time.Time
}

// defaultMaxOutput is the reply bound for a context window.
func defaultMaxOutput(window int) int { return min(DefaultMaxOutputTokens, window/4) }

// Usage is what a model analysis spent: every request made, retries and
// failed ones included. Tokens are the provider's counts; USD prices them
// all as uncached input and output. The analyzer asks for no prompt
// caching (Anthropic caches only what cache_control marks); OpenAI may
// cache the repeated system prompt and schema on its own and bill them at
// its cached rate, so for OpenAI USD is an upper bound.
type Usage struct {
	Calls        int     `json:"calls"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	USD          float64 `json:"usd"`
	// PriceKnown is false when the model's price is not in the table: USD
	// is then 0.
	PriceKnown bool `json:"priceKnown"`
	// Estimated is true when a server reported no token counts for some
	// reply and EstimateTokens counted them.
	Estimated bool `json:"estimated,omitempty"`
}

// FailureKind says why a model analysis did not replace the offline one.
type FailureKind string

// Failure kinds. None is worth retrying as is: the queue should record it
// and move on.
const (
	// FailureInvalidOutput: the reply was not a valid analysis twice (the
	// second request showed the model its error).
	FailureInvalidOutput FailureKind = "invalid_output"
	// FailureRefusal: the model declined to analyse the segment.
	FailureRefusal FailureKind = "refusal"
	// FailureContextLength: the provider said the requests did not fit its
	// context even after the segment was cut into smaller chunks twice.
	FailureContextLength FailureKind = "context_length"
	// FailureEmpty: the segment has no text to analyse; no call was made.
	FailureEmpty FailureKind = "empty"
)

// Failure records why a model analysis failed, for the node: the app keeps
// it beside the offline version, which stays current.
type Failure struct {
	Kind FailureKind `json:"kind"`
	// Message is the error: the validation errors, the refusal, the
	// provider's message.
	Message string `json:"message"`
	// RawExcerpt is the start of the last reply (at most 4000 bytes), as
	// the model wrote it.
	RawExcerpt string `json:"rawExcerpt,omitempty"`
	// At is when the analysis gave up, ISO 8601.
	At string `json:"at"`
}

// Result is a model analysis of one segment.
type Result struct {
	// Node is the analysed node: the offline node with the model's fields
	// (see AnalyzeSegment), or the offline node unchanged when the analysis
	// failed (Failure set, or an error returned). Its id, version and
	// previousVersions are the offline node's: the store numbers versions.
	Node graph.Node `json:"node"`
	// Source is ModelSource(provider, model) on success, SourceOffline
	// otherwise.
	Source string `json:"source"`
	// Trigger is why the analysis makes a new version (DecideTrigger of
	// Options.Previous and the new state); set on success.
	Trigger Trigger `json:"trigger,omitempty"`
	// Relationships are the model's proposed relations from this node.
	Relationships []ProposedRelationship `json:"relationships"`
	// Findings are the model's key decisions, corrections, failed
	// approaches and lessons, each to become a knowledge item (see
	// run.findings); empty when the analysis failed.
	Findings []Finding `json:"findings"`
	// Usage is what the analysis spent, failed attempts included.
	Usage Usage `json:"usage"`
	// Failure is set when the model's analysis could not be used.
	Failure *Failure `json:"failure,omitempty"`
	// Chunks is how many parts the segment was sent in (the last plan).
	Chunks int `json:"chunks"`
	// Structured is how structured output was asked for, as the last
	// reply says (json_schema, json_object, prompt, tool).
	Structured llm.StructuredMode `json:"structured,omitempty"`
}

// State is the AnalysisState the result's node is in.
func (r Result) State() AnalysisState {
	return AnalysisState{AnalyzerVersion: r.Node.Metadata.AnalyzerVersion, Source: r.Source,
		EntryCount: r.Node.Source.Segment.EntryCount, EndEntryID: r.Node.Source.Segment.EndEntryID}
}

// ErrContextTooSmall is returned (wrapped) when the model's context window
// leaves too little room for any transcript once the prompt, the schema
// and the reply bound are counted.
var ErrContextTooSmall = errors.New("context window too small")

// AnalyzeSegment analyses one segment with a model into the full pi-brain
// node, through client (an llm.Provider: OpenAI-compatible or Anthropic).
//
// It renders the segment's entries as a transcript (each entry cut to its
// bounds, see renderEntry) and sends it with the system prompt, the
// offline facts and the candidate nodes, asking for one JSON object valid
// against analysis.schema.json (structured output: json_schema, or
// Anthropic's forced tool; see llm.JSONSchema). A transcript too long for
// the context window is sent in chunks, each carrying the findings of the
// ones before, and the answers are merged (mergeAnalyses). A reply that is
// not a valid analysis is asked again once, with its error and the start of
// the reply shown to the model. A provider's context-length error makes it
// plan smaller chunks (half the room, twice at most).
//
// Outcomes:
//   - success: Result.Node is the model's node, Source the model's, no
//     Failure, nil error;
//   - the model's answer could not be used (invalid twice, a refusal,
//     context still too long, an empty segment): Result.Node is the offline
//     node unchanged, Failure says why (record it on the node), nil error;
//   - the analysis could not be made now: a rate limit (errors.Is
//     llm.ErrRateLimited; the client already waited and retried once per
//     its RetryPolicy, and RetryAfter(err) says how long the provider asks
//     to wait), a server or network failure, a cancelled ctx,
//     ErrBudgetExceeded, ErrPriceUnknown, ErrContextTooSmall: Result.Node is
//     the offline node, Result.Usage what was spent, and the error says
//     what to fix or when to try again. The queue retries such segments; it
//     never records them as failures.
//
// Where the node's fields come from on success:
//   - the model: classification type, hadClearGoal, language (the offline
//     language when the model gives none) and frameworks (the model's,
//     then the offline ones); content summary, outcome, keyDecisions;
//     errorsSeen (the model's, then the offline errors it did not name);
//     every lesson (level from its list); promptingWins,
//     promptingFailures, modelQuirks, toolUseErrors; semantic tags and
//     topics (the model's; the offline ones fill a list shorter than 4 tags
//     or 2 topics) and concepts;
//   - the offline node, as the model cannot know them: id, version,
//     previousVersions, source, classification project and isNewProject,
//     content filesTouched and toolsUsed, observations modelsUsed, metadata
//     tokensUsed, cost, durationMinutes and timestamp, semantic
//     relatedProjects, daemonMeta segmentTokenCount;
//   - the offline rules over the model: outcome "abandoned" when the user
//     navigated away from the segment (Input.Abandoned), which the
//     transcript does not show;
//   - the analysis itself: metadata analyzedAt (Options.Now) and
//     analyzerVersion (ModelVersion), daemonMeta decisions (the offline
//     ones, then one per chunking, retry, re-plan and dropped item).
//
// Result.Findings holds the model's key decisions, corrections, failed
// approaches and lessons, each with the entries it cites, for the app to
// make knowledge items of (see run.findings); corrections and failed
// approaches are not node fields.
//
// Every model string is cut to a bound (a summary to 1200 bytes, other
// texts to 2000, tags to 60) and every list to a number of items (see
// composeNode): a model's output cannot grow a node without limit.
func AnalyzeSegment(ctx context.Context, client llm.Provider, in SegmentInput, opts Options) (Result, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	started := now()
	offline := in.Offline
	if offline == nil {
		n := Analyze(in.Input, in.Entries, started)
		offline = &n
	}
	res := Result{Node: *offline, Source: SourceOffline, Relationships: []ProposedRelationship{}, Findings: []Finding{}}
	where := fmt.Sprintf("segment %d of session %s", in.Segment.Index, orUnknown(in.Header.ID))
	switch {
	case client == nil:
		return res, fmt.Errorf("analyze: unable to analyse %s: no model client", where)
	case opts.Model == "":
		return res, fmt.Errorf("analyze: unable to analyse %s: options field Model is empty", where)
	case opts.Provider == "":
		return res, fmt.Errorf("analyze: unable to analyse %s: options field Provider is empty", where)
	}
	prices := opts.Prices
	if prices == nil {
		prices = DefaultPrices
	}
	price, known := prices.Lookup(opts.Provider, opts.Model, opts.BaseURL)
	res.Usage.PriceKnown = known
	if opts.Budget != nil && opts.Budget.Limit() > 0 && !known {
		return res, fmt.Errorf("analyze: unable to analyse %s: a budget is set and %w: %s/%s (set its price in the settings)",
			where, ErrPriceUnknown, opts.Provider, opts.Model)
	}
	window := opts.ContextWindow
	if window <= 0 {
		window = price.ContextWindow
	}
	if window <= 0 {
		window = DefaultContextWindow
	}
	maxOut := opts.MaxOutputTokens
	if maxOut <= 0 {
		maxOut = defaultMaxOutput(window)
	}

	r := &run{client: client, opts: opts, price: price, maxOut: maxOut, window: window, now: now, res: &res,
		context: contextSection(in.Input, *offline, opts.Candidates), entries: in.Entries}
	fixed := fixedTokens() + EstimateTokens(r.context) + 100 // 100: the message framing and closing instruction
	room := planRoom(window, maxOut, fixed)
	if room < minRoom {
		return res, fmt.Errorf("analyze: unable to analyse %s: the context window of %d tokens leaves %d for the transcript after the prompt (%d) and the reply (%d); %d are needed: %w",
			where, window, max(room, 0), fixed, maxOut, minRoom, ErrContextTooSmall)
	}
	costs := make([]int, len(in.Entries))
	total := 0
	var buf []byte
	for i := range in.Entries {
		buf = renderEntry(buf[:0], &in.Entries[i], 0)
		costs[i] = EstimateTokens(string(buf))
		total += costs[i]
	}
	if total == 0 {
		res.Failure = &Failure{Kind: FailureEmpty, Message: "the segment has no text to analyse", At: isoTime(now())}
		return res, nil
	}

	for replan := 0; ; replan++ {
		chunkRoom := room
		if total > room {
			chunkRoom = room - room/maxHandoverDivisor // leave room for the earlier findings
		}
		chunks := planChunks(costs, chunkRoom)
		res.Chunks = len(chunks)
		if len(chunks) > 1 {
			r.decide(fmt.Sprintf("Analysed in %d parts", len(chunks)),
				fmt.Sprintf("The transcript (about %d tokens) does not fit one request to a %d-token context: parts of at most %d tokens, each given the findings of the parts before.", total, window, chunkRoom))
		}
		merged, fail, err := r.chunks(ctx, chunks, room)
		if errors.Is(err, llm.ErrContextLength) {
			if replan < maxRechunks && room/2 >= minRoom {
				room /= 2
				r.decide("Planned again in smaller parts", fmt.Sprintf("The provider said a request was too long (%v); the room per request is now %d tokens.", clipString(err.Error(), 300), room))
				continue
			}
			res.Node, res.Source = *offline, SourceOffline
			res.Failure = &Failure{Kind: FailureContextLength, Message: clipString(err.Error(), maxModelTextBytes), At: isoTime(now())}
			return res, nil
		}
		if err != nil {
			return res, fmt.Errorf("analyze: unable to analyse %s: %w", where, err)
		}
		if fail != nil {
			res.Failure = fail
			return res, nil
		}
		res.Findings = r.findings(merged, in.Entries, *offline)
		node, rels := composeNode(*offline, merged, in.Input, opts.Candidates, now(), r)
		res.Node, res.Relationships = node, rels
		res.Source = ModelSource(opts.Provider, opts.Model)
		res.Trigger, _ = DecideTrigger(opts.Previous, res.State(), opts.Manual)
		if res.Trigger == "" {
			res.Trigger = TriggerManual // the caller analysed a current node anyway
		}
		return res, nil
	}
}

// RetryAfter says whether err (from AnalyzeSegment) is a temporary failure
// of the provider, a rate limit or a server error, and how long it asked
// to wait (0 when it named no wait).
func RetryAfter(err error) (time.Duration, bool) {
	if !errors.Is(err, llm.ErrRateLimited) && !errors.Is(err, llm.ErrServerError) {
		return 0, false
	}
	var ae *llm.APIError
	if errors.As(err, &ae) {
		return ae.RetryAfter, true
	}
	return 0, true
}

// run is one AnalyzeSegment call's state.
type run struct {
	client  llm.Provider
	opts    Options
	price   ModelPrice
	maxOut  int
	window  int
	now     func() time.Time
	res     *Result
	context string
	entries []session.Entry

	decisions []graph.DaemonDecision
}

// decide records an analysis decision for daemonMeta.decisions.
func (r *run) decide(decision, reasoning string) {
	r.decisions = append(r.decisions, graph.DaemonDecision{Timestamp: isoTime(r.now()), Decision: decision, Reasoning: reasoning})
}

// chunks asks for each chunk's analysis in order, handing each the merged
// findings of the ones before, and returns the merge of all.
func (r *run) chunks(ctx context.Context, chunks []chunk, room int) (Analysis, *Failure, error) {
	var parts []partAnswer
	var merged *Analysis
	for k, ch := range chunks {
		user := r.userMessage(k, len(chunks), ch, merged, room)
		a, fail, err := r.ask(ctx, user, k, len(chunks))
		if err != nil || fail != nil {
			return Analysis{}, fail, err
		}
		parts = append(parts, partAnswer{a: a, weight: ch.tokens})
		m := mergeAnalyses(parts)
		merged = &m
	}
	return *merged, nil, nil
}

// userMessage is the user message of chunk k of n.
func (r *run) userMessage(k, n int, ch chunk, earlier *Analysis, room int) string {
	var b strings.Builder
	b.WriteString(r.context)
	b.WriteString(handoverSection(k+1, n, earlier, room/maxHandoverDivisor*5/2))
	b.WriteString("\nTranscript (entries in order; [#n] is the entry's position in the session; a long text is cut where it says \"[…N bytes cut]\"):\n")
	var buf []byte
	newTokens := ch.tokens
	for i := ch.from; i < ch.from+ch.overlap; i++ {
		buf = renderEntry(buf[:0], &r.entries[i], ch.overlapTokens*5/2)
		newTokens -= EstimateTokens(string(buf))
		b.WriteString("(repeated) ")
		b.Write(buf)
	}
	for i := ch.from + ch.overlap; i < ch.to; i++ {
		limit := 0
		if ch.to-ch.from-ch.overlap == 1 {
			// A lone entry larger than the room is cut to it.
			limit = max(room-(ch.tokens-newTokens), minRoom) * 5 / 2
		}
		buf = renderEntry(buf[:0], &r.entries[i], limit)
		b.Write(buf)
	}
	b.WriteString("\nAnswer with the JSON object of the analysis.")
	return b.String()
}

// maxReplyAttempts is how many requests one chunk gets: the first, and one
// retry showing the model why its reply was invalid.
const maxReplyAttempts = 2

// ask sends one chunk's request and parses the reply, asking once more
// when the reply is invalid.
func (r *run) ask(ctx context.Context, user string, k, n int) (Analysis, *Failure, error) {
	msgs := []llm.Message{{Role: llm.RoleSystem, Text: systemPrompt}, {Role: llm.RoleUser, Text: user}}
	maxOut := r.maxOut
	estimate := func(msgs []llm.Message) int {
		n := EstimateTokens(string(analysisSchema))
		for _, m := range msgs {
			n += EstimateTokens(m.Text) + 4
		}
		return n
	}
	// The retry's excerpt and error share the room planRoom keeps for it.
	retryBytes := min(2000, r.window/10) * 5 / 2
	var lastErr error
	var lastRaw string
	for attempt := 1; attempt <= maxReplyAttempts; attempt++ {
		inputEst := estimate(msgs)
		var hold *Reservation
		if r.opts.Budget != nil {
			var err error
			hold, err = r.opts.Budget.Reserve(r.price.Cost(int64(inputEst), int64(maxOut)))
			if err != nil {
				return Analysis{}, nil, err
			}
		}
		r.res.Usage.Calls++
		comps, err := r.client.Generate(ctx, llm.Request{
			Messages:  msgs,
			Model:     r.opts.Model,
			MaxTokens: maxOut,
			N:         1, // whatever the loom settings' N: one answer is used
			JSONSchema: &llm.JSONSchema{Name: SchemaName, Strict: true, Schema: analysisSchema,
				Description: "the analysis of one segment of a coding-agent session"},
		}, nil)
		if err != nil {
			hold.Settle(0)
			if errors.Is(err, llm.ErrRefusal) {
				var re *llm.RefusalError
				msg := err.Error()
				if errors.As(err, &re) {
					msg = re.Error()
				}
				return Analysis{}, &Failure{Kind: FailureRefusal, Message: clipString(msg, maxModelTextBytes),
					RawExcerpt: excerpt(refusalText(err), maxExcerptBytes), At: isoTime(r.now())}, nil
			}
			return Analysis{}, nil, err
		}
		c := comps[0]
		in, out := int64(c.Usage.InputTokens), int64(c.Usage.OutputTokens)
		if in == 0 && out == 0 {
			in, out = int64(inputEst), int64(EstimateTokens(c.Text+c.JSON))
			r.res.Usage.Estimated = true
		}
		r.res.Usage.InputTokens += in
		r.res.Usage.OutputTokens += out
		cost := r.price.Cost(in, out)
		r.res.Usage.USD += cost
		hold.Settle(cost)
		r.res.Structured = c.Structured

		raw := c.JSON
		if raw == "" {
			raw = c.Text
		}
		a, perr := ParseAnalysis([]byte(raw))
		if perr == nil {
			if attempt > 1 {
				r.decide("Asked the model again", fmt.Sprintf("Part %d of %d: the first reply was invalid (%s).", k+1, n, clipString(lastErr.Error(), 300)))
			}
			return a, nil, nil
		}
		lastErr, lastRaw = perr, raw
		cutOff := c.FinishReason == "length"
		msgs = append(msgs[:2:2],
			llm.Message{Role: llm.RoleAssistant, Text: excerpt(raw, retryBytes*2/3)},
			llm.Message{Role: llm.RoleUser, Text: fixInstruction(perr, cutOff, retryBytes/3)})
		// A reply cut off at its bound gets up to twice the bound, as far
		// as the window allows after the longer request.
		fit := r.window - estimate(msgs) - r.window/20
		if cutOff {
			maxOut = min(2*r.maxOut, fit)
		} else {
			maxOut = min(r.maxOut, fit)
		}
		maxOut = max(maxOut, min(r.maxOut, 256))
	}
	return Analysis{}, &Failure{Kind: FailureInvalidOutput,
		Message:    clipString(fmt.Sprintf("part %d of %d: %v", k+1, n, lastErr), maxModelTextBytes),
		RawExcerpt: excerpt(lastRaw, maxExcerptBytes), At: isoTime(r.now())}, nil
}

// refusalText is the model's words in a refusal error.
func refusalText(err error) string {
	var re *llm.RefusalError
	if errors.As(err, &re) {
		return re.Message
	}
	return ""
}

// excerpt is the start of a reply: at most n bytes, marked when cut.
func excerpt(raw string, n int) string {
	if len(raw) <= n {
		return raw
	}
	head := capBytes(raw, n)
	return head + fmt.Sprintf(" […%d bytes cut]", len(raw)-len(head))
}
