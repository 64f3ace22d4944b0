package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"rhizome/app"
)

// runSummarize is `rhizome summarize`: it makes every missing or stale
// summary (or those of the items named) offline, or with a model when the
// library's settings say so or one is given for this run (--offline: never),
// and prints them (see app.App.Summarize for which). A model failure leaves
// the previous summary, says so on stderr and makes the exit status 1.
// Ctrl-C stops it (interruptedStatus); what was made is kept.
func runSummarize(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, `print {"summaries": [{"item", "kind", "title", "text", "source", "stale"}]}`)
	offline := c.Bool("offline", false, "make offline summaries only, whatever the settings say")
	model := c.modelFlags()
	if status, ok := c.parse(); !ok {
		return status
	}
	a, status := c.open(ctx)
	if a == nil {
		return status
	}
	given, err := useModel(a, model.override())
	if err != nil {
		fmt.Fprintf(stderr, "rhizome summarize: %v\n", err)
		return 2
	}
	got, err := a.Summarize(ctx, app.SummarizeOptions{Items: c.Args(), Offline: *offline, Model: given && !*offline})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome summarize: %v: the summaries made so far are kept\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome summarize: %v\n", err)
		return 1
	}
	status = 0
	for _, s := range got {
		if s.FailedNow {
			fmt.Fprintf(stderr, "rhizome summarize: %s: the model failed, the previous summary stays: %s\n", s.Item, s.Error)
			status = 1
		}
	}
	if *asJSON {
		type line struct {
			Item   string `json:"item"`
			Kind   string `json:"kind"`
			Title  string `json:"title"`
			Text   string `json:"text"`
			Label  string `json:"label"`
			Source string `json:"source"`
			Stale  bool   `json:"stale"`
			Error  string `json:"error,omitempty"`
		}
		out := struct {
			Summaries []line `json:"summaries"`
		}{Summaries: []line{}}
		for _, s := range got {
			out.Summaries = append(out.Summaries, line{Item: s.Item, Kind: s.Kind, Title: s.Title, Text: s.Text, Label: s.Label,
				Source: s.Source, Stale: s.Stale, Error: s.Error})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		enc.Encode(out)
		return status
	}
	if len(got) == 0 {
		fmt.Fprintln(stdout, "nothing to summarise")
	}
	for _, s := range got {
		head := s.Title
		if head == "" {
			head = s.Label
		}
		flags := s.Source
		if s.Stale {
			flags += ", stale"
		}
		fmt.Fprintf(stdout, "%s  [%s, %s]\n    %s\n    %s\n", head, s.Kind, flags, s.Text, s.Item)
	}
	return status
}
