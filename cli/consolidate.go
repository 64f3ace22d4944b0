package cli

import (
	"context"
	"fmt"

	"rhizome/app"
)

// runConsolidate is `rhizome consolidate`: one consolidation run of the
// cycles named (all four by default), applied and logged, or only planned
// with --dry-run.
func runConsolidate(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, "print the run's log as JSON")
	dry := c.Bool("dry-run", false, "plan the run without changing the library")
	var cycles filterFlags
	c.Var(&cycles, "cycle", "decay, creative, cluster or forget (repeatable; default all four)")
	if status, ok := c.parse(); !ok {
		return status
	}
	if c.NArg() > 0 {
		fmt.Fprintf(stderr, "rhizome consolidate: unexpected argument %q\n", c.Arg(0))
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		return status
	}
	if err := a.LoadVectors(); err != nil {
		fmt.Fprintf(stderr, "rhizome consolidate: without vectors: %v\n", err)
	}
	run, err := a.Memory.Consolidate(app.ConsolidateRequest{Cycles: cycles, DryRun: *dry})
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "rhizome consolidate: %v\n", context.Cause(ctx))
		return interruptedStatus(ctx)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome consolidate: %v\n", err)
		return 1
	}
	if *asJSON {
		printJSON(stdout, run)
		return 0
	}
	what := "run"
	if run.DryRun {
		what = "dry run (nothing changed)"
	}
	fmt.Fprintf(stdout, "%s %s at %s: %d changes, %d spared\n", what, run.ID, run.At, run.ChangeCount, run.Spared)
	for _, s := range run.Stats {
		fmt.Fprintf(stdout, "  %-8s examined %d, rescored %d, edges %d, MetaPatterns %d (+%d extended, %d PART_OF), archived %d, spared %d\n",
			s.Cycle, s.Examined, s.Rescored, s.EdgesAdded, s.MetaPatterns, s.Extended, s.PartOf, s.Archived, s.Spared)
	}
	return 0
}
