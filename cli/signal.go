package cli

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// interrupted is the cause of a signalContext's end: the signal received.
type interrupted struct{ sig os.Signal }

func (e interrupted) Error() string {
	switch e.sig {
	case os.Interrupt:
		return "interrupted by SIGINT"
	case syscall.SIGTERM:
		return "interrupted by SIGTERM"
	}
	return "interrupted by " + e.sig.String()
}

// signalContext returns a context cancelled, with an interrupted cause, when
// one of signals arrives (Ctrl-C is os.Interrupt), and the function that
// stops listening. After the first signal the default behaviour is back: a
// second Ctrl-C ends the process at once.
func signalContext(signals ...os.Signal) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, signals...)
	go func() {
		select {
		case sig := <-ch:
			signal.Stop(ch)
			cancel(interrupted{sig})
		case <-ctx.Done():
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
	}
}

// interruptedStatus is the exit status of a command stopped because ctx
// ended: 128 + the signal's number, as shells report it (130 for Ctrl-C, 143
// for SIGTERM), else 1.
func interruptedStatus(ctx context.Context) int {
	var e interrupted
	if errors.As(context.Cause(ctx), &e) {
		if sig, ok := e.sig.(syscall.Signal); ok {
			return 128 + int(sig)
		}
	}
	return 1
}
