package cli

import (
	"context"
	"errors"
	"fmt"
	"os"

	"rhizome/app"
	"rhizome/backend/llm"
)

// runAnalyze is `rhizome analyze [--db PATH] [--json] [--offline]
// [--base-url URL --model NAME] [--budget USD] [ITEM...]`: the items (node
// ids or URIs, session ids, project paths; none: every node the model has
// not analysed) and whatever the queue held are analysed with the
// configured model, or the one named, or with --offline by the offline
// analyzer again. It prints the estimate first, then each node, then the
// spending. A rate limit, the budget or a server error stops it with status
// 1; the nodes left stay queued for the next run.
func runAnalyze(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, "print the report as one JSON object")
	offline := c.Bool("offline", false, "run the offline analyzer again instead of a model")
	provider := c.String("provider", llm.ProviderOpenAI, "the API --base-url speaks: openai or anthropic")
	baseURL := c.String("base-url", "", "the model's server (with --model)")
	model := c.String("model", "", "the model to analyse with (default: the configured one)")
	budget := c.Float64("budget", 0, "spending limit in USD across all analyses (0: keep the stored one)")
	manual := c.Bool("again", false, "make a new version even of nodes that are current")
	if status, ok := c.parse(); !ok {
		return status
	}
	if *budget < 0 {
		fmt.Fprintln(stderr, "rhizome analyze: --budget must be 0 or more")
		return 2
	}
	if (*baseURL == "") != (*model == "") && *model == "" {
		fmt.Fprintln(stderr, "rhizome analyze: --base-url needs --model")
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		return status
	}

	var client llm.Provider
	var cfg llm.Config
	if !*offline {
		key := os.Getenv("RHIZOME_API_KEY")
		var err error
		client, cfg, err = app.AnalysisModel(a, *provider, *baseURL, *model, key)
		if errors.Is(err, app.ErrNoModel) {
			fmt.Fprintln(stderr, "rhizome analyze: no model configured: set one in Settings, name one with --base-url and --model, or use --offline")
			return 1
		}
		if err != nil {
			fmt.Fprintf(stderr, "rhizome analyze: %v\n", err)
			return 1
		}
		est, err := app.EstimateAnalysis(ctx, a, c.Args(), false, cfg)
		if err != nil {
			fmt.Fprintf(stderr, "rhizome analyze: %v\n", err)
			return 1
		}
		e := est.Estimate
		price := fmt.Sprintf("$%.4f", e.USD)
		if !e.PriceKnown {
			price = "price unknown"
		}
		fmt.Fprintf(stderr, "estimate: %d segments, %d calls, at most %d input and %d output tokens, %s with %s\n",
			e.Segments, e.Calls, e.InputTokens, e.OutputTokens, price, est.Model)
		if est.OverBudget {
			fmt.Fprintf(stderr, "note: the estimate passes the budget ($%.2f of $%.2f spent); the analysis stops at the budget\n", est.SpentUSD, est.BudgetUSD)
		}
	}
	var progress func(app.AnalysisNodeOutcome)
	if !*asJSON {
		progress = func(o app.AnalysisNodeOutcome) {
			line := fmt.Sprintf("%s  %-8s", o.NodeID, o.Result)
			switch {
			case o.Result == "analysed":
				line += fmt.Sprintf(" v%d (%s), %d tokens, $%.4f, %d model relations", o.Version, o.Trigger, o.Tokens, o.USD, o.Edges)
				if k := o.Knowledge; k != nil {
					line += fmt.Sprintf("; knowledge: %d new, %d updated, %d retired, %d unchanged", k.Added, k.Updated, k.Retired, k.Unchanged)
				}
			case o.Failure != nil:
				line += fmt.Sprintf(" %s: %s", o.Failure.Kind, o.Failure.Message)
			case o.Error != "":
				line += " " + o.Error
			}
			fmt.Fprintln(stdout, line)
		}
	}
	rep, err := app.RunAnalysis(ctx, a, c.Args(), *manual, *offline, client, cfg.Provider, cfg.Model, cfg.BaseURL, *budget, progress)
	if *asJSON {
		printJSON(stdout, rep)
	} else {
		fmt.Fprintf(stdout, "%d analysed, %d current, %d failed, %d left queued; this run: %d tokens, $%.4f; all analyses: $%.4f",
			rep.ByResult["analysed"], rep.ByResult["current"], rep.ByResult["failed"], rep.Status.Queued, rep.Tokens, rep.USD, rep.Status.SpentUSD)
		if rep.Status.BudgetUSD > 0 {
			fmt.Fprintf(stdout, " of a $%.2f budget", rep.Status.BudgetUSD)
		}
		fmt.Fprintln(stdout)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome analyze: stopped: %v; %d nodes stay queued (run again to go on)\n", err, rep.Status.Queued)
		if ctx.Err() != nil {
			return interruptedStatus(ctx)
		}
		return 1
	}
	return 0
}
