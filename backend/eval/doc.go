// Package eval measures the memory's retrieval on the conversational
// benchmarks memory systems publish: LoCoMo (Maharana et al., "Evaluating
// Very Long-Term Conversational Memory of LLM Agents", ACL 2024; the
// authors' locomo10.json) and LongMemEval (Wu et al., ICLR 2025; the
// authors' longmemeval_s.json and longmemeval_m.json). It reads their JSON
// as published (ReadLoCoMo, ReadLongMemEval) into one shape (Benchmark:
// conversations of dated sessions of turns, and questions naming the turns
// that hold their evidence), writes each session as a pi session file
// (WritePiSessions) so that the library imports it as it imports any
// session, and scores ranked hits: evidence recall at k by turn and by
// session (Score), beside a plain Okapi BM25 over the same turns (BM25).
//
// Evidence recall@k of a question is the share of its evidence turns among
// its first k hits; a question without evidence (LoCoMo's adversarial
// category, LongMemEval's abstention questions) is left out. Session-level
// recall@k is 1 when every session holding evidence is among the first k
// distinct sessions the hits come from, else 0 (LongMemEval's recall_all;
// recall_any is 1 when one of them is).
package eval
