package qwen

import "rhizome/backend/session"

// Usage turns an assistant record's usageMetadata into the shared model:
// Input is the uncached prompt (promptTokenCount less
// cachedContentTokenCount), CacheRead the cached prompt, Output the
// completion with its reasoning (candidatesTokenCount; when the counts show
// Gemini's reading, in which thoughtsTokenCount is outside it - total =
// prompt + candidates + thoughts - the thoughts are added), Reasoning
// thoughtsTokenCount. Qwen Code's logs carry tokens, not prices: Cost is
// left zero (the import prices what its table knows).
func (u *wireUsage) Usage() *session.Usage {
	out := &session.Usage{Input: max(u.Prompt-u.Cached, 0), CacheRead: u.Cached, Output: u.Candidates, Reasoning: u.Thoughts}
	if u.Thoughts > 0 && u.Total == u.Prompt+u.Candidates+u.Thoughts {
		out.Output += u.Thoughts
	}
	out.TotalTokens = out.Input + out.Output + out.CacheRead
	return out
}
