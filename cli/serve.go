package cli

import (
	"context"
	"fmt"
	"os"

	"rhizome/serve"
)

// runServe is `rhizome serve`: the app over the library, served to a browser
// on a loopback address (package serve) until ctx ends. Its first line on stdout
// is the URL to open, token included.
func runServe(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	addr := c.String("addr", "127.0.0.1:0", "loopback address to listen on")
	model := c.modelFlags()
	a, status := c.start(context.Background(), anyArgs, "")
	if a == nil {
		return status
	}
	if _, err := useModel(a, model.override()); err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 2
	}
	srv, err := serve.New(a, c.assets.Frontend)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	ln, url, err := srv.Listen(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, url)
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	a.SetContext(ctx)
	a.StartSummaries(ctx)
	a.StartBackground(false)
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "rhizome serve: %v\n", err)
		return 1
	}
	return 0
}
