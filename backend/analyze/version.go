package analyze

// Trigger is why a node version was made: the trigger_reason of its row in
// node_versions. See pi-brain-node-model.md, "Version Data Structure",
// with the triggers issue 9 defines for Rhizome.
type Trigger string

// Version triggers.
const (
	// TriggerInitial: the node's first analysis.
	TriggerInitial Trigger = "initial"
	// TriggerAppend: the segment grew (pi appended entries to the session)
	// since the last analysis.
	TriggerAppend Trigger = "append"
	// TriggerModelChange: another analyzer made it: another model, or a
	// model after the offline analyzer, or the offline analyzer after a
	// model.
	TriggerModelChange Trigger = "model_change"
	// TriggerPromptUpdate: the same analyzer with new rules: another
	// analyzer version (the offline rules' Version, or the model prompt's
	// ModelVersion).
	TriggerPromptUpdate Trigger = "prompt_update"
	// TriggerManual: the user asked for it.
	TriggerManual Trigger = "manual"
)

// AnalysisState is what decides whether a node needs a new analysis: who
// made the analysis, with which rules, of how much of the segment.
type AnalysisState struct {
	// AnalyzerVersion is metadata.analyzerVersion: Version ("offline-1")
	// or ModelVersion() ("model-1-<prompt hash>").
	AnalyzerVersion string `json:"analyzerVersion"`
	// Source is SourceOffline or ModelSource(provider, model).
	Source string `json:"source"`
	// EntryCount and EndEntryID describe the segment analysed
	// (source.segment).
	EntryCount int    `json:"entryCount"`
	EndEntryID string `json:"endEntryId"`
}

// DecideTrigger says whether an analysis in state next should make a new
// version of a node last analysed in state prev (nil: never analysed), and
// why. The first reason that holds wins: no previous analysis (initial),
// the user asked (manual, always a new version), the segment grew
// (append), another analyzer (model_change), new rules of the same
// analyzer (prompt_update). When none holds, the node is current: ok is
// false.
func DecideTrigger(prev *AnalysisState, next AnalysisState, manual bool) (t Trigger, ok bool) {
	switch {
	case prev == nil:
		return TriggerInitial, true
	case manual:
		return TriggerManual, true
	case prev.EntryCount != next.EntryCount || prev.EndEntryID != next.EndEntryID:
		return TriggerAppend, true
	case prev.Source != next.Source:
		return TriggerModelChange, true
	case prev.AnalyzerVersion != next.AnalyzerVersion:
		return TriggerPromptUpdate, true
	}
	return "", false
}
