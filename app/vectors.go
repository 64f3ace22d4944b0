package app

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"rhizome/backend/llm"
	"rhizome/backend/search"
	"rhizome/store"
)

// lsaBlob is the search blob holding the offline model.
const lsaBlob = "lsa"

// lsaRetrainGrowth is how many times more texts than the offline model
// learnt from the library must hold before the model learns again.
const lsaRetrainGrowth = 2

// lsaTrainingDocs is how many of the library's texts the offline model is
// trained on (search.LSAOptions' default MaxDocs).
const lsaTrainingDocs = 50000

// embedBatch is how many texts the queue embeds and saves at a time.
const embedBatch = 256

// vectorState is what a search reads of the vectors: the model that made
// them, the embedder that embeds a query the same way, and their index.
type vectorState struct {
	model    string
	embedder search.Embedder
	index    *search.HNSW
}

// vectorQueue is the background embedding queue (issue 10, section 1):
// with an embedding endpoint configured (SearchSettings), it embeds every
// node and embedded entry through /v1/embeddings; without one, it trains
// the offline LSA model on the library's text (once, kept in the library)
// and embeds with it. Vectors of another model are dropped first, so a new
// model makes them again. It then builds the nearest-neighbour index. One
// run at a time; Kick during a run asks for another after it.
type vectorQueue struct {
	c *core

	mu      sync.Mutex
	state   vectorState
	running bool
	again   bool
	pending int
	err     string
	done    chan struct{} // closed when the current run ends
	loaded  string        // the library's search blobs' stamp when load read them

	// client makes the HTTP client of the endpoint (tests shorten retries).
	retry *llm.RetryPolicy
}

func newVectorQueue(c *core) *vectorQueue { return &vectorQueue{c: c} }

func (q *vectorQueue) current() vectorState {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.state
}

// note says why the vector component is missing, "" when it is in force.
func (q *vectorQueue) note() string {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.state.index != nil && q.state.index.Len() > 0 && q.pending == 0:
		return ""
	case q.err != "":
		return "vectors: " + q.err
	case q.running || q.pending > 0:
		return "vectors are being made in the background; ranked without them until they are ready"
	case q.state.index == nil:
		return "no vectors yet"
	}
	return ""
}

// Status reports the queue's progress.
func (q *vectorQueue) Status() VectorStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	st := VectorStatus{Model: q.state.model, Pending: q.pending, Running: q.running, Error: q.err}
	if q.state.index != nil {
		st.Vectors = q.state.index.Len()
	}
	return st
}

// Kick starts a run in the background, or asks the current one to run
// again when it ends.
func (q *vectorQueue) Kick() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running {
		q.again = true
		return
	}
	q.running = true
	q.done = make(chan struct{})
	go q.loop(q.done)
}

// Wait blocks until no run is going or ctx ends.
func (q *vectorQueue) Wait(ctx context.Context) error {
	return waitIdle(ctx, func() (bool, <-chan struct{}) {
		q.mu.Lock()
		defer q.mu.Unlock()
		return q.running, q.done
	})
}

func (q *vectorQueue) loop(done chan struct{}) {
	for {
		err := q.run(q.c.context())
		q.mu.Lock()
		q.err = ""
		if err != nil {
			q.err = err.Error()
		}
		if q.again && err == nil {
			q.again = false
			q.mu.Unlock()
			continue
		}
		q.again = false
		q.running = false
		q.mu.Unlock()
		close(done)
		q.c.emitEvent("search:vectors", q.Status())
		return
	}
}

// endpoint returns the embeddings client set's endpoint asks for, with the
// API key kept for its base URL, if any.
func (q *vectorQueue) endpoint(set SearchSettings) (*llm.Embeddings, error) {
	cfg := llm.Config{Provider: llm.ProviderOpenAI, BaseURL: set.EmbeddingBaseURL, Model: set.EmbeddingModel}
	if key, err := q.c.store.Secrets().Get(cfg.KeyName()); err == nil && key != "" {
		cfg.APIKey = llm.NewSecret(key)
	}
	e, err := llm.NewEmbeddings(cfg)
	if err != nil {
		return nil, err
	}
	e.HTTPClient.Timeout = 2 * time.Minute
	if q.retry != nil {
		e.Retry = *q.retry
	}
	return e, nil
}

// embedder returns the embedder the settings ask for and the model name its
// vectors are stored under: "endpoint:<base URL>#<model>", or the LSA
// model's id (trained on the library's text when there is none yet).
func (q *vectorQueue) embedder(ctx context.Context, set SearchSettings) (search.Embedder, string, error) {
	if set.EmbeddingModel != "" {
		e, err := q.endpoint(set)
		if err != nil {
			return nil, "", err
		}
		return e, "endpoint:" + strings.TrimRight(set.EmbeddingBaseURL, "/") + "#" + set.EmbeddingModel, nil
	}
	st := q.c.store
	if b, err := st.SearchBlob(ctx, lsaBlob); err == nil {
		if m, err := search.UnmarshalLSA(b); err == nil {
			// The model knows only the words of the texts it learnt from:
			// once the library holds twice as many, it learns again (and
			// every text is embedded anew under the new model's id).
			e, model := offlineEmbedder(m)
			n, err := st.CountVectors(ctx, model)
			if err != nil {
				return nil, "", err
			}
			if n < lsaRetrainGrowth*int64(m.Corpus()) {
				return e, model, nil
			}
		}
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, "", err
	}
	// An even sample of the library's texts (reservoir sampling, seeded):
	// BuildLSA trains on 50,000 at most, and a large library's texts would
	// not all fit in memory.
	corpus := make([]string, 0, lsaTrainingDocs)
	rng := rand.New(rand.NewPCG(1, 2))
	seen := 0
	if err := st.EmbeddingCorpus(ctx, func(text string) error {
		seen++
		if len(corpus) < lsaTrainingDocs {
			corpus = append(corpus, text)
		} else if j := rng.IntN(seen); j < lsaTrainingDocs {
			corpus[j] = text
		}
		return ctx.Err()
	}); err != nil {
		return nil, "", err
	}
	m, err := search.BuildLSA(ctx, corpus, search.LSAOptions{Corpus: seen})
	if err != nil {
		return nil, "", err
	}
	b, err := m.MarshalBinary()
	if err != nil {
		return nil, "", fmt.Errorf("app: %w", err)
	}
	if err := st.PutSearchBlob(ctx, lsaBlob, "lsa", b); err != nil {
		return nil, "", err
	}
	e, model := offlineEmbedder(m)
	return e, model, nil
}

// offlineEmbedder is the embedder of the library's offline model m and the
// model name its vectors are stored under: m blended with the embedded
// GloVe word vectors (search.Blended; m alone if they cannot be read). On
// build/evalgen's LoCoMo-shaped test file recall@10 0.682 -> 0.707 and @5
// 0.610 -> 0.647; on the real sessions' held-out test set by entry 0.551 ->
// 0.558, by segment 0.922 -> 0.939 (issue 23).
func offlineEmbedder(m *search.LSA) (search.Embedder, string) {
	if b, ok := search.WithWordVectors(m).(*search.Blended); ok {
		return b, b.ID()
	}
	return m, m.ID()
}

// run embeds what lacks a vector for the configured model and rebuilds the
// index.
func (q *vectorQueue) run(ctx context.Context) error {
	set, err := q.c.loadSearchSettings()
	if err != nil {
		return err
	}
	st := q.c.store
	// The keyword index's term counts weigh the content and tag components.
	if _, err := st.RefreshSearchIndex(ctx); err != nil {
		return err
	}
	// The WordNet bridges over its terms are built here, not by the first
	// search after the terms changed (a quarter second the first time).
	if _, err := q.c.narrower.Get(ctx, st.SearchSource()); err != nil {
		return err
	}
	emb, model, err := q.embedder(ctx, set)
	if errors.Is(err, search.ErrTooFewDocuments) {
		return nil // an empty library: nothing to embed
	}
	if err != nil {
		return err
	}
	if _, err := st.DeleteVectorsExcept(ctx, model); err != nil {
		return err
	}
	nodes, err := st.NodesToEmbed(ctx, model)
	if err != nil {
		return err
	}
	q.mu.Lock()
	q.pending = len(nodes)
	q.mu.Unlock()
	save := func(items []store.EmbeddingItem) error {
		for from := 0; from < len(items); from += embedBatch {
			part := items[from:min(from+embedBatch, len(items))]
			texts := make([]string, len(part))
			for i, it := range part {
				texts[i] = it.Text
			}
			vecs, err := emb.Embed(ctx, texts)
			if err != nil {
				return err
			}
			if err := st.PutVectors(ctx, model, part, vecs); err != nil {
				return err
			}
			q.mu.Lock()
			q.pending = max(0, q.pending-len(part))
			q.mu.Unlock()
		}
		return nil
	}
	if err := save(nodes); err != nil {
		return err
	}
	var after int64
	for {
		items, last, err := st.EntriesToEmbed(ctx, model, after, embedBatch)
		if err != nil {
			return err
		}
		if len(items) == 0 {
			break
		}
		q.mu.Lock()
		q.pending += len(items)
		q.mu.Unlock()
		if err := save(items); err != nil {
			return err
		}
		after = last
	}
	m, ok := emb.(*search.LSA)
	if b, blended := emb.(*search.Blended); blended {
		m, ok = b.LSA, true
	}
	if ok {
		// The library outgrew the offline model: run again, which trains
		// a new one (embedder); the index below serves until then.
		n, err := st.CountVectors(ctx, model)
		if err != nil {
			return err
		}
		if n >= lsaRetrainGrowth*int64(m.Corpus()) {
			q.mu.Lock()
			q.again = true
			q.mu.Unlock()
		}
	}
	idx := search.NewHNSW()
	if err := st.Vectors(ctx, model, func(item string, v []float32) error {
		_ = idx.Add(item, v) // a vector without direction (an empty text) is left out
		return ctx.Err()
	}); err != nil {
		return err
	}
	if b, err := idx.MarshalBinary(); err == nil {
		if err := st.PutSearchBlob(ctx, indexBlob(model), "hnsw", b); err != nil {
			return err
		}
	}
	q.mu.Lock()
	q.state = vectorState{model: model, embedder: emb, index: idx}
	q.pending = 0
	q.mu.Unlock()
	return nil
}

// indexBlob names the search blob holding the nearest-neighbour index of
// model's vectors.
func indexBlob(model string) string { return "hnsw:" + model }

// load takes the vectors the queue made last, and their saved index,
// without embedding anything (the command line: nothing runs in the
// background). Nothing is loaded when there are none; the search then
// ranks without the vector component.
func (q *vectorQueue) load(ctx context.Context) error {
	stamp, err := q.c.store.SearchBlobsStamp(ctx)
	if err != nil {
		return err
	}
	if err := q.loadBlobs(ctx); err != nil {
		return err
	}
	q.mu.Lock()
	q.loaded = stamp
	q.mu.Unlock()
	return nil
}

// refresh loads the vectors again when the library's search blobs changed
// since load read them (another process's queue saved new ones).
func (q *vectorQueue) refresh(ctx context.Context) error {
	stamp, err := q.c.store.SearchBlobsStamp(ctx)
	if err != nil {
		return err
	}
	q.mu.Lock()
	same := stamp == q.loaded
	q.mu.Unlock()
	if same {
		return nil
	}
	return q.load(ctx)
}

// loadBlobs reads the model, vectors and index the library holds.
func (q *vectorQueue) loadBlobs(ctx context.Context) error {
	set, err := q.c.loadSearchSettings()
	if err != nil {
		return err
	}
	var emb search.Embedder
	var model string
	if set.EmbeddingModel != "" {
		e, err := q.endpoint(set)
		if err != nil {
			return err
		}
		emb, model = e, "endpoint:"+strings.TrimRight(set.EmbeddingBaseURL, "/")+"#"+set.EmbeddingModel
	} else {
		b, err := q.c.store.SearchBlob(ctx, lsaBlob)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		m, err := search.UnmarshalLSA(b)
		if errors.Is(err, search.ErrLSAOutdated) {
			return nil // the background queue trains a new one
		}
		if err != nil {
			return fmt.Errorf("app: the offline model in the library: %w", err)
		}
		emb, model = offlineEmbedder(m)
	}
	b, err := q.c.store.SearchBlob(ctx, indexBlob(model))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	vecs := map[string][]float32{}
	if err := q.c.store.Vectors(ctx, model, func(item string, v []float32) error { vecs[item] = v; return nil }); err != nil {
		return err
	}
	idx, err := search.UnmarshalHNSW(b, func(key string) ([]float32, bool) { v, ok := vecs[key]; return v, ok })
	if err != nil {
		return fmt.Errorf("app: the vector index in the library: %w", err)
	}
	q.mu.Lock()
	q.state = vectorState{model: model, embedder: emb, index: idx}
	q.mu.Unlock()
	return nil
}
