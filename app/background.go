package app

import "context"

// waitIdle blocks until a background queue has no run going or ctx ends.
// state reports, under the queue's lock, whether a run goes and the
// channel closed when it ends; a run started meanwhile is waited for too.
// The relations queue, the index merger and the embedding queue wait so.
func waitIdle(ctx context.Context, state func() (running bool, done <-chan struct{})) error {
	for {
		running, done := state()
		if !running {
			return nil
		}
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
