// Command fakemodel serves llmtest's fake OpenAI-compatible model on
// loopback, for the end-to-end tests and for trying the loom without a
// model: the words are made up, deterministically, and streamed a chunk at a
// time. It prints the base URL to give Settings (provider openai, any model
// name) as its first line on stdout and serves until it is interrupted.
//
//	go run ./build/fakemodel [--addr 127.0.0.1:0] [--delay 20ms] [--seed 1] [--script FILE]
//
// --script names a JSON list of texts: the first requests are answered with
// them, in order (llmtest's scripted replies), the rest with made-up words,
// for the tests that need real answers (a memory patch for MemoBrain's loop).
//
// It is a command of its own so that the release binary links no test
// server (`go list -deps -tags desktop,production .` names no llmtest).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"rhizome/backend/llm/llmtest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves the fake model until ctx ends and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fl.SetOutput(stderr)
	addr := fl.String("addr", "127.0.0.1:0", "loopback address to listen on")
	delay := fl.Duration("delay", 20*time.Millisecond, "the wait before each streamed chunk")
	seed := fl.Uint64("seed", 1, "chooses the words")
	scriptFile := fl.String("script", "", "a JSON list of texts that answer the first requests, in order")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	fake := llmtest.NewOpenAIServer(*seed)
	if *scriptFile != "" {
		replies, err := readScript(*scriptFile)
		if err != nil {
			fmt.Fprintf(stderr, "fakemodel: %v\n", err)
			return 2
		}
		fake.Script(replies...)
	}
	fake.ChunkDelay = *delay
	base, shutdown, err := fake.Start(*addr)
	if err != nil {
		fmt.Fprintf(stderr, "fakemodel: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, base)
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	<-ctx.Done()
	shutdown(context.Background())
	return 0
}

// readScript reads a --script file: a JSON list of reply texts.
func readScript(path string) ([]llmtest.Reply, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("unable to read the script: %w", err)
	}
	var texts []string
	if err := json.Unmarshal(b, &texts); err != nil {
		return nil, fmt.Errorf("%s: the script is not a JSON list of texts: %w", path, err)
	}
	replies := make([]llmtest.Reply, len(texts))
	for i, t := range texts {
		replies[i] = llmtest.Reply{Text: t}
	}
	return replies, nil
}
