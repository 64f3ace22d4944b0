package cli

import (
	"context"
	"fmt"
	"sync"

	"rhizome/app"
)

// runWatch is `rhizome watch`: the window's watcher without the window. It
// prints the folders it follows, then a line per file each import changed,
// until ctx ends (Ctrl-C, SIGTERM): the import under way is rolled back or
// finished, and the status is interruptedStatus.
func runWatch(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	a, status := c.start(ctx, 0, "takes no arguments (the folders are in the library's settings)")
	if a == nil {
		return status
	}
	var mu sync.Mutex
	firstPass := progressPrinter(stderr) // the first pass over the folders, as an import's bar
	a.SetEmitter(func(event string, data any) {
		mu.Lock()
		defer mu.Unlock()
		switch d := data.(type) {
		case app.ImportProgress:
			if event == "watch:progress" {
				firstPass("import:progress", d)
			}
		case app.WatchImported:
			for _, f := range d.Files {
				line := fmt.Sprintf("%s %-9s %s (%d entries, %d new)", d.At, f.Status, f.Path, f.Entries, f.NewEntries)
				if f.Status == "failed" {
					line = fmt.Sprintf("%s %-9s %s", d.At, f.Status, f.Error)
				}
				fmt.Fprintln(stdout, line)
			}
		case app.WatchStatus:
			if d.LastError != "" {
				fmt.Fprintf(stderr, "rhizome watch: %s\n", d.LastError)
			}
		}
	})
	folders, err := a.Watch.Folders()
	if err != nil {
		fmt.Fprintf(stderr, "rhizome watch: %v\n", err)
		return 1
	}
	watched := 0
	for _, f := range folders {
		state := "off"
		switch {
		case f.Enabled && f.Exists:
			state = "watching"
			watched++
		case f.Enabled:
			state = "missing"
		}
		fmt.Fprintf(stderr, "rhizome watch: %-8s %s\n", state, f.Path)
	}
	if watched == 0 {
		fmt.Fprintln(stderr, "rhizome watch: no watched folder exists; waiting anyway (Ctrl-C to stop)")
	}
	if err := a.Watch.Start(); err != nil {
		fmt.Fprintf(stderr, "rhizome watch: %v\n", err)
		return 1
	}
	// As in the window: the summary queue (a model's summaries, when one is
	// set) and the embedding queue (vectors for search, read by `rhizome
	// search` and `rhizome mcp` too) run while watching.
	a.StartSummaries(ctx)
	a.StartBackground(false)
	<-ctx.Done()
	a.Watch.Stop()
	fmt.Fprintf(stderr, "rhizome watch: %v: stopped\n", context.Cause(ctx))
	return interruptedStatus(ctx)
}
