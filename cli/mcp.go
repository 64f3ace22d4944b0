package cli

import (
	"context"
	"fmt"
	"os"

	"rhizome/app"
	"rhizome/mcp"
	"rhizome/store"
)

// runMCP is `rhizome mcp [--db PATH] [--read-only]`: an MCP server over
// stdio (JSON-RPC, one message a line, on stdin and stdout) until stdin
// closes or ctx ends. With --read-only the library is opened read-only
// (store.OpenReadOnly) and record refuses. Nothing but protocol messages is
// written to stdout; errors go to stderr.
func runMCP(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	readOnly := c.Bool("read-only", false, "open the library read-only; record refuses")
	if status, ok := c.parse(); !ok {
		return status
	}
	var st *store.Store
	var err error
	if *readOnly {
		st, err = store.OpenReadOnly(ctx, *c.db)
	} else {
		st, err = store.OpenContext(ctx, *c.db)
	}
	if err != nil {
		fmt.Fprintf(stderr, "rhizome mcp: %v\n", err)
		return 1
	}
	defer st.Close()
	a := app.New(st, *c.db)
	a.SetContext(ctx)
	// The vectors and index the window's background queue saved: search
	// ranks with them (and without, saying so on stderr, when there are
	// none to read).
	if err := a.LoadVectors(); err != nil {
		fmt.Fprintf(stderr, "rhizome mcp: searching without vectors: %v\n", err)
	}
	if err := mcp.Run(ctx, a, *readOnly, os.Stdin, stdout); err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "rhizome mcp: %v\n", err)
		return 1
	}
	return 0
}
