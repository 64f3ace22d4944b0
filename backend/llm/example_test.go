package llm_test

import (
	"context"
	"fmt"
	"log"

	"rhizome/backend/llm"
	"rhizome/backend/llm/llmtest"
)

// Generating three continuations of a buffer against the local test
// provider, as `rhizome serve --test-provider` would wire it.
func Example() {
	fake := llmtest.NewOpenAIServer(1)
	fake.IgnoreN = true // like Ollama: the client fills in with parallel requests
	base, stop, err := fake.Start("")
	if err != nil {
		log.Fatal(err)
	}
	defer stop(context.Background())

	p, err := llm.New(llm.Config{Provider: llm.ProviderOpenAI, BaseURL: base, Model: "llmtest", N: 3, MaxTokens: 5})
	if err != nil {
		log.Fatal(err)
	}
	got, err := p.Generate(context.Background(), llm.Request{Prompt: "The rhizome"}, func(d llm.Delta) {
		// Stream d.Text into branch d.Index of the loom view.
	})
	if err != nil {
		log.Fatal(err) // nothing to write: no half-made node
	}
	fmt.Println(len(got), "continuations,", fake.Requests(), "requests")
	for _, c := range got {
		fmt.Println(c.Index, c.FinishReason, len(c.RawSHA256()))
	}
	// Output:
	// 3 continuations, 3 requests
	// 0 length 64
	// 1 length 64
	// 2 length 64
}
