package cli

import (
	"context"
	"fmt"
)

// runExportSession is `rhizome export-session`: the original file of a
// library session, written back byte for byte (checked against the size and
// SHA-256 recorded at import) to OUT.
func runExportSession(ctx context.Context, c *call) int {
	a, status := c.start(ctx, 2, "give ITEM (a rhizome:session/ or rhizome:node/ URI, a session id, or the path it was imported from) and OUT")
	if a == nil {
		return status
	}
	res, err := a.ExportSession(c.Arg(0), c.Arg(1))
	if err != nil {
		fmt.Fprintf(c.stderr, "rhizome export-session: %v\n", err)
		return 1
	}
	fmt.Fprintf(c.stdout, "%s: %d bytes of session %s (%s)\n", res.Path, res.Bytes, res.Session.ID, res.Session.Format)
	for _, p := range res.ToolOutputs {
		fmt.Fprintf(c.stdout, "%s: a tool output the session keeps in a file of its own\n", p)
	}
	return 0
}
