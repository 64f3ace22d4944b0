// Package search is Rhizome's retrieval: keyword ranking rules, the hybrid
// score of automem-features.md section 3 with a breakdown per result, time
// expressions in queries, an offline embedding model, a nearest-neighbour
// index, and bridges (paths of up to three typed edges between items). It is
// pure domain code: the library is read through the Source interface, which
// the store implements (store.SearchSource).
//
// # Keyword search that stops early
//
// FTS5 ranks every match of a query before it keeps the best: on a library
// of 258 real sessions (214,484 entries) "agent" matches 111,714 entries,
// and ranking them costs 164 ms in the SQLite build Rhizome uses (75 ms in C),
// before snippets and joins. The store (store.SearchWith) therefore ranks in
// one of two ways, chosen per query from the keyword index's counts:
//
//   - Selective queries — the rarest clause held by at most 3,000 entries —
//     are ranked by FTS5's own bm25 over all their matches: exact, a few
//     milliseconds.
//   - Broad queries — every clause common — are ranked from champion lists
//     (Manning, Raghavan and Schütze, "Introduction to Information
//     Retrieval", 7.1.3; static index pruning, Carmel et al. 2001): for
//     every term held by more than 3,000 entries the keyword index keeps the
//     256 entries where the term's bm25 weight, tf*(k1+1)/(tf+k1*(1-b+b*dl/avgdl)),
//     is highest. The candidates are the champions of the query's rarest
//     clause (and a quarter as many of the others'), the 200 newest
//     matches (FTS5 reads a doclist newest first and stops), and the
//     entries imported since the index was refreshed; they are ranked by the
//     same bm25 formula (BM25, IDF), computed here from their text. For one
//     word this is exactly FTS5's top ten (store's TestCommonWordRanksAsFTS5);
//     for a conjunction or a phrase of common words it is the best of a few
//     hundred candidates, and a phrase's IDF is estimated from its rarest
//     word.
//
// The last word of a query is also a prefix (search while typing); FTS5
// expands a prefix by merging the doclists of every term it begins, which
// for "th" is most of the index. The store rewrites a prefix to the 24 most
// frequent terms of the library it begins (as search engines rewrite a
// prefix query to its top terms), and a one-letter last word is a word, not
// a prefix (MinPrefixRunes).
//
// The keyword index is built and kept up to date by
// store.RefreshSearchIndex from the entries imported since it last ran,
// reading their text through Tokenize, which splits and folds text exactly
// as FTS5's unicode61 tokenizer with remove_diacritics 2 does (checked term
// by term against SQLite on the real sessions). Snippets (Snippet) are made
// from the hits' text in FTS5's snippet format.
//
// # Hybrid ranking
//
// Engine gathers candidates — bm25 over any of the query's words (stopwords
// aside), the nearest vectors, and the items of the query's time range — and
// scores each with Weights (the spec's defaults: vector 0.25, keyword 0.15,
// relation 0.25, content 0.25, temporal 0.15, tag 0.10, importance 0.05,
// recency 0.10) over Components in [0, 1]: bm25 and cosine similarity over
// the best among the candidates, IDF-weighted exact token overlap with the
// text and the tags, degree (d/(d+4)) or a given centrality, importance,
// recency as AutoMem's code decays it (exp(-0.01 * age in days), ERRATA.md),
// and the proximity of the item's time to the range ParseTime read from the
// query ("last week", "since Monday", "in March", "2 days ago", ISO dates).
// Every result carries Why: its score broken down by component.
//
// # Vectors
//
// Vectors come from the configured provider's /v1/embeddings (the llm
// package's Embeddings) or, offline, from LSA: latent semantic analysis of
// the library's own text (TF-IDF over Snowball English stems, truncated SVD
// by a randomized method, with gonum). LSA knows only which words occur
// together in this library; it is not a language model and knows nothing of
// words the library never used. On the retrieval-quality set
// (store/testdata/search/quality.json, 36 queries over the real sessions,
// written before any method ran on it) bm25 alone scores recall@10 0.698
// and MRR@10 0.616; LSA alone 0.712 and 0.681 (0.656 and 0.667 before its
// terms were stemmed); the hybrid with the spec's weights 0.707 and 0.685
// (seeds 1-3 of the model: 0.707 each, MRR 0.681-0.692). The hybrid beats
// bm25 on both, by one more answer in the top ten on recall; vectors alone
// are as good on this set, whose answers are mostly a user's own words.
// The app trains the model again once the library holds twice the texts it
// learnt from.
// Nearest neighbours are found with HNSW (Malkov and Yashunin), not by
// comparing every vector.
//
// # Bridges
//
// Graph.Bridges grows paths of up to three edges from the seeds of a search
// best first (a path's score is its seed's score times its edges'
// confidences, so paths leave the queue best first and the search stops
// after the paths asked for); Graph.Connect answers "how is A connected to
// B?" by meeting in the middle. Paths read source -> bridge -> target, each
// step with its edge's type, direction and rationale. AutoMem's own code
// walks one hop (ERRATA.md); these walk three.
package search
