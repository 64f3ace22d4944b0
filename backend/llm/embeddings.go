package llm

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"time"
)

// Embeddings is a client of an OpenAI-compatible embeddings endpoint
// (OpenAI, Ollama, llama.cpp server with --embeddings, LM Studio, vLLM),
// for semantic search.
//
// Wire format (OpenAI's API reference, which the compatible servers follow):
//
//	POST {base}/embeddings
//	  {"model": "...", "input": ["text", ...], "encoding_format": "float"}
//	headers: Content-Type: application/json, Authorization: Bearer {key}
//	         (only when a key is set)
//	200: {"object": "list", "model": "...",
//	      "data": [{"object": "embedding", "index": 0, "embedding": [0.1, ...]}, ...],
//	      "usage": {"prompt_tokens": 8, "total_tokens": 8}}
//
// Errors are the same as for generation (*APIError, retried per Retry).
// Set HTTPClient, Retry and BatchSize before the first Embed; after that an
// Embeddings is safe for concurrent use.
type Embeddings struct {
	cfg Config
	// HTTPClient sends the requests; give it a timeout or cancel the
	// context.
	HTTPClient *http.Client
	// Retry says when a refused request is retried.
	Retry RetryPolicy
	// BatchSize is how many texts one request carries (default 64).
	BatchSize int

	sleep func(context.Context, time.Duration) error
}

// NewEmbeddings returns a client for cfg, whose Model is the embedding
// model (e.g. "text-embedding-3-small", "nomic-embed-text"); only the
// "openai" provider is supported (Anthropic has no embeddings endpoint).
// The error names the Config field that is wrong.
func NewEmbeddings(cfg Config) (*Embeddings, error) {
	if cfg.Provider == "" {
		cfg.Provider = ProviderOpenAI
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Provider != ProviderOpenAI {
		return nil, fmt.Errorf("llm: config field provider: %q has no embeddings endpoint; use an OpenAI-compatible server", cfg.Provider)
	}
	if cfg.Model == "" {
		return nil, fmt.Errorf("llm: config field model: empty; name the embedding model")
	}
	return &Embeddings{cfg: cfg, HTTPClient: &http.Client{}, Retry: DefaultRetry, BatchSize: 64, sleep: sleepCtx}, nil
}

// Model is the embedding model the client asks for: vectors of different
// models are not comparable.
func (e *Embeddings) Model() string { return e.cfg.Model }

type embeddingRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

// Embed returns one vector per text, in order, asking BatchSize texts per
// request. Every vector has the same length; a response with a missing,
// repeated or out-of-range index, vectors of different lengths, or
// non-finite values is an error naming the endpoint and the index. An
// empty text is sent as it is (servers give it a vector).
func (e *Embeddings) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	batch := e.BatchSize
	if batch <= 0 {
		batch = 64
	}
	url := e.cfg.baseURL() + "/embeddings"
	dims := -1
	for from := 0; from < len(texts); from += batch {
		part := texts[from:min(from+batch, len(texts))]
		vecs, err := e.request(ctx, url, part)
		if err != nil {
			return nil, fmt.Errorf("llm: embeddings: %w", err)
		}
		for i, v := range vecs {
			if dims < 0 {
				dims = len(v)
			}
			if len(v) != dims || dims == 0 {
				return nil, fmt.Errorf("llm: embeddings: POST %s: vector %d has %d values, the first had %d", url, from+i, len(v), dims)
			}
			out[from+i] = v
		}
	}
	return out, nil
}

func (e *Embeddings) request(ctx context.Context, url string, texts []string) ([][]float32, error) {
	header := http.Header{"Content-Type": {"application/json"}}
	if e.cfg.APIKey.IsSet() {
		header.Set("Authorization", "Bearer "+e.cfg.APIKey.Reveal())
	}
	pst := poster{hc: e.HTTPClient, retry: e.Retry, sleep: e.sleep, redact: redactor(e.cfg.APIKey.Reveal())}
	resp, body, err := pst.exchange(ctx, url, embeddingRequest{Model: e.cfg.Model, Input: texts, EncodingFormat: "float"}, header)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r embeddingResponse
	if err := decodeWhole(ctx, url, body, pst.redact, &r); err != nil {
		return nil, err
	}
	if len(r.Data) != len(texts) {
		return nil, fmt.Errorf("POST %s: %d embeddings for %d texts", url, len(r.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("POST %s: embedding index %d missing, repeated or out of range (%d texts)", url, d.Index, len(texts))
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("POST %s: embedding %d holds %v at %d", url, d.Index, x, j)
			}
			v[j] = float32(x)
		}
		out[d.Index] = v
	}
	return out, nil
}
