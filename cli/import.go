package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"

	"rhizome/app"
)

// runImport is `rhizome import`. When ctx ends (Ctrl-C), the file being
// imported is rolled back, the report says which files were imported and
// which were not, and the status is interruptedStatus.
func runImport(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	asJSON := c.Bool("json", false, "print the report as one JSON object")
	noWait := c.Bool("no-wait", false, "return once the sessions are readable; leave their summaries, knowledge, relations and vectors to the window, serve or watch")
	if status, ok := c.parse(); !ok {
		return status
	}
	if c.NArg() == 0 {
		fmt.Fprintln(stderr, "rhizome import: give one or more session files or folders")
		return 2
	}
	a, status := c.open(ctx)
	if a == nil {
		if ctx.Err() != nil {
			fmt.Fprintf(stderr, "rhizome import: %v: nothing imported\n", context.Cause(ctx))
		}
		return status
	}
	if !*asJSON {
		a.SetEmitter(progressPrinter(stderr))
	}
	start := time.Now()
	report, err := a.Import.ImportPaths(c.Args())
	if err != nil {
		fmt.Fprintf(stderr, "rhizome import: %v\n", err)
		return 1
	}
	if !*asJSON && ctx.Err() == nil {
		fmt.Fprintf(stderr, "readable after %s\n", seconds(report.Totals.ReadableSeconds))
	}
	completeErr := error(nil)
	shared := !a.Alone()
	if shared && !*noWait && !*asJSON {
		// The window, serve, watch or another import has the library open
		// and analyses what is queued: waiting here would wait for all it
		// holds (a large import's vectors, its sessions' analysis).
		fmt.Fprintln(stderr, "another Rhizome process has the library open: it analyses the sessions")
	}
	if !*noWait && !shared && ctx.Err() == nil {
		// What the import left to the background, derived now: the
		// library is complete when the command returns (issue 25).
		if !*asJSON {
			a.SetEmitter(derivationPrinter(ctx, stderr, a))
		}
		var changed []string
		for _, f := range report.Files {
			if (f.Status == "imported" || f.Status == "appended") && f.SessionID != "" {
				changed = append(changed, f.SessionID)
			}
		}
		if completeErr = a.Complete(ctx, changed); completeErr == nil {
			report.Totals.CompleteSeconds = time.Since(start).Seconds()
		}
	}
	if *asJSON {
		printJSON(stdout, report)
	} else {
		printReport(stdout, report)
	}
	if completeErr != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "rhizome import: the sessions are imported and readable; deriving their summaries, knowledge and relations failed: %v (the window, serve or watch derive them again)\n", completeErr)
		return 1
	}
	if ctx.Err() != nil {
		t := report.Totals
		fmt.Fprintf(stderr, "rhizome import: %v: %d of %d files imported, appended or unchanged; %d not imported (import again to finish)\n",
			context.Cause(ctx), t.Imported+t.Appended+t.Unchanged, t.Files, t.Failed)
		return interruptedStatus(ctx)
	}
	if report.Totals.Failed > 0 {
		return 1
	}
	return 0
}

// progressPrinter draws import progress as a bar on w (bytes over all
// files, the current file named).
func progressPrinter(w io.Writer) app.Emitter {
	var bar *progressbar.ProgressBar
	return func(event string, data any) {
		p, ok := data.(app.ImportProgress)
		if event != "import:progress" || !ok || p.BytesTotal == 0 {
			return
		}
		if bar == nil {
			bar = progressbar.NewOptions64(p.BytesTotal,
				progressbar.OptionSetWriter(w),
				progressbar.OptionShowBytes(true),
				progressbar.OptionSetWidth(30),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
				progressbar.OptionClearOnFinish())
		}
		bar.Describe(fmt.Sprintf("%d/%d %s", p.FileIndex+1, p.FileCount, filepath.Base(p.File)))
		bar.Set64(p.BytesDone)
	}
}

// printedProblems is how many malformed lines of a file the text report
// shows; it counts the others.
const printedProblems = 20

// printReport prints an import report as text: a line per file, its first
// malformed lines, and the totals.
func printReport(w io.Writer, r app.ImportReport) {
	for _, f := range r.Files {
		fmt.Fprintf(w, "%-9s %s", f.Status, f.Path)
		if f.Status == "failed" {
			fmt.Fprintf(w, ": %s\n", f.Error)
			continue
		}
		if f.Reasoning != nil {
			fmt.Fprintf(w, " (%s)\n", reasoningSummary(f.Reasoning))
			continue
		}
		fmt.Fprintf(w, " (%d entries, %d segments", f.Entries, f.Segments)
		if f.MalformedCount > 0 {
			fmt.Fprintf(w, ", %d malformed lines", f.MalformedCount)
		}
		if f.PendingTail {
			fmt.Fprint(w, ", last line still being written")
		}
		fmt.Fprintln(w, ")")
		shown := f.MalformedLines[:min(len(f.MalformedLines), printedProblems)]
		for _, m := range shown {
			fmt.Fprintf(w, "    line %d (byte %d): %s\n", m.Line, m.Offset, m.Reason)
		}
		if more := f.MalformedCount - len(shown); more > 0 {
			fmt.Fprintf(w, "    and %d more malformed lines (--json lists the first %d)\n", more, len(f.MalformedLines))
		}
	}
	t := r.Totals
	fmt.Fprintf(w, "%d files: %d imported, %d appended, %d unchanged, %d failed\n",
		t.Files, t.Imported, t.Appended, t.Unchanged, t.Failed)
	if t.CompleteSeconds > 0 {
		fmt.Fprintf(w, "readable after %s, complete after %s\n", seconds(t.ReadableSeconds), seconds(t.CompleteSeconds))
	} else if t.ReadableSeconds > 0 {
		fmt.Fprintf(w, "readable after %s; summaries, knowledge and relations are left to the window, serve or watch\n", seconds(t.ReadableSeconds))
	}
}

// seconds is d seconds as a person reads it: "0.42 s", "12.3 s".
func seconds(d float64) string {
	if d < 10 {
		return fmt.Sprintf("%.2f s", d)
	}
	return fmt.Sprintf("%.1f s", d)
}

// derivationPrinter shows on w how many sessions are still being analysed
// while `rhizome import` waits for their derivation, as a bar over the
// sessions pending when it began.
func derivationPrinter(ctx context.Context, w io.Writer, a *app.App) app.Emitter {
	var bar *progressbar.ProgressBar
	total := -1
	return func(event string, data any) {
		if event != "summary:progress" {
			return
		}
		left, err := a.DerivePending(ctx)
		if err != nil {
			return
		}
		if total < 0 {
			total = left
			if total == 0 {
				return
			}
			bar = progressbar.NewOptions(total,
				progressbar.OptionSetWriter(w),
				progressbar.OptionSetDescription("analysing sessions"),
				progressbar.OptionSetWidth(30),
				progressbar.OptionShowCount(),
				progressbar.OptionThrottle(100*time.Millisecond),
				progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
				progressbar.OptionClearOnFinish())
		}
		if bar != nil {
			_ = bar.Set(total - left)
		}
	}
}

// reasoningSummary says what a MemoBrain file made: "memobrain: 9 nodes (1
// task, 2 subtask, 6 evidence), 8 edges, 16 messages, rhizome:reasoning/…".
func reasoningSummary(r *app.ReasoningImport) string {
	var kinds []string
	for _, k := range []string{"task", "subtask", "evidence", "summary"} {
		if n := r.NodesByKind[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
	}
	var other []string // kinds a snapshot may hold besides MemoBrain's, by name
	for k := range r.NodesByKind {
		if k != "task" && k != "subtask" && k != "evidence" && k != "summary" {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		kinds = append(kinds, fmt.Sprintf("%d %s", r.NodesByKind[k], k))
	}
	s := fmt.Sprintf("memobrain: %d nodes (%s), %d edges", r.Nodes, strings.Join(kinds, ", "), r.Edges)
	if r.Messages > 0 {
		s += fmt.Sprintf(", %d messages", r.Messages)
	}
	return s + ", " + r.URI
}
