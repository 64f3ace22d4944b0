package llm

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"rhizome/backend/llm/llmtest"
)

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / (sqrt(na) * sqrt(nb))
}

func sqrt(x float64) float64 {
	z := x
	for i := 0; i < 40 && z > 0; i++ {
		z = (z + x/z) / 2
	}
	return z
}

// Embeddings through the real client against llmtest, which speaks
// OpenAI's /v1/embeddings on loopback: batches, order, the key, similar
// texts nearer than unrelated ones.
func TestEmbeddingsAgainstLocalServer(t *testing.T) {
	srv := llmtest.NewOpenAIServer(1)
	srv.APIKey = testKey
	rec := &recorder{}
	ts := httptest.NewServer(rec.wrap(t, srv))
	defer ts.Close()
	e, err := NewEmbeddings(Config{BaseURL: ts.URL + "/v1", Model: "nomic-embed-text", APIKey: NewSecret(testKey)})
	if err != nil {
		t.Fatal(err)
	}
	e.BatchSize = 64
	var texts []string
	for i := 0; i < 130; i++ {
		texts = append(texts, strings.Repeat("word", i%3+1)+" session compaction")
	}
	texts[0] = "rate limiting the login endpoint"
	texts[1] = "rate limit for login attempts"
	texts[2] = "a poem about themes"
	vecs, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != 130 || srv.EmbeddingRequests() != 3 {
		t.Fatalf("%d vectors in %d requests", len(vecs), srv.EmbeddingRequests())
	}
	for i, v := range vecs {
		want := llmtest.Embedding(texts[i], 64)
		for j := range v {
			if v[j] != float32(want[j]) {
				t.Fatalf("vector %d differs from the server's at %d", i, j)
			}
		}
	}
	if near, far := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2]); near <= far {
		t.Errorf("similar texts %.3f, unrelated %.3f", near, far)
	}
	r := rec.requests()[0]
	if r.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+testKey ||
		r.Body["model"] != "nomic-embed-text" || r.Body["encoding_format"] != "float" || len(r.Body["input"].([]any)) != 64 {
		t.Errorf("request %s %v %v", r.Path, r.Header, r.Body)
	}

	// A wrong key: the provider's refusal, never the key.
	bad, _ := NewEmbeddings(Config{BaseURL: ts.URL + "/v1", Model: "m", APIKey: NewSecret("sk-wrong-" + testKey)})
	_, err = bad.Embed(context.Background(), []string{"x"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 401 || strings.Contains(err.Error(), testKey) {
		t.Errorf("wrong key: %v", err)
	}
}

// Answers that cannot be right are errors naming what is wrong.
func TestEmbeddingsBadAnswers(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"data": [{"index": 0, "embedding": [1, 2]}]}`, "1 embeddings for 2 texts"},
		{`{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 0, "embedding": [1, 2]}]}`, "index 0 missing, repeated"},
		{`{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 5, "embedding": [1, 2]}]}`, "index 5"},
		{`{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [1]}]}`, "vector 1 has 1 values"},
		{`{"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": []}]}`, "has 0 values"},
		{`{"data": [`, "invalid JSON"},
	} {
		ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(tc.body))
		}))
		e, _ := NewEmbeddings(Config{BaseURL: ts.URL, Model: "m"})
		_, err := e.Embed(context.Background(), []string{"a", "b"})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "/embeddings") {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
		ts.Close()
	}
	if _, err := NewEmbeddings(Config{Provider: ProviderAnthropic, Model: "m"}); err == nil {
		t.Error("an Anthropic embeddings client")
	}
	if _, err := NewEmbeddings(Config{Provider: ProviderOpenAI}); err == nil || !strings.Contains(err.Error(), "model") {
		t.Errorf("no model: %v", err)
	}
}
