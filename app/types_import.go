package app

// The shapes of app/import.go: the import report (Import.ImportPaths,
// ImportFiles, ImportSamples, ChooseAndImport; the "import:done" and
// "import:progress" events): the Import area's part of the contract with the
// frontend (types.go says how it is kept).

// FileReport is the result of importing one session file. Status is one of
// "imported", "unchanged", "appended", "failed". MalformedCount is the number
// of malformed lines in the file as the library holds it; MalformedLines
// lists the first of them, at most session.MaxStoredProblems (10,000):
// a sample when MalformedCount is larger.
type FileReport struct {
	Path             string         `json:"path"`
	Format           string         `json:"format"` // "pi"; "memobrain" for a MemoBrain snapshot or conversation
	Version          int            `json:"version"`
	SessionID        string         `json:"sessionId"`
	Status           string         `json:"status" ts_type:"'imported' | 'unchanged' | 'appended' | 'failed'"`
	Entries          int            `json:"entries"` // entries in the file (header excluded)
	NewEntries       int            `json:"newEntries"`
	EntriesByType    map[string]int `json:"entriesByType"`
	MalformedCount   int            `json:"malformedCount"`
	MalformedLines   []LineProblem  `json:"malformedLines"`
	PendingTail      bool           `json:"pendingTail"`
	Segments         int            `json:"segments"`
	BoundariesByType map[string]int `json:"boundariesByType"`
	EdgesByType      map[string]int `json:"edgesByType"`
	Error            string         `json:"error,omitempty"`
	// Reasoning is what a MemoBrain snapshot or conversation file made
	// (Format "memobrain"); absent for session files.
	Reasoning *ReasoningImport `json:"reasoning,omitempty"`
}

// LineProblem is a malformed line of a session file.
type LineProblem struct {
	Line   int    `json:"line"`
	Offset int64  `json:"offset"`
	Reason string `json:"reason"`
}

// ImportTotals sums an import's file reports.
type ImportTotals struct {
	Files     int `json:"files"`
	Imported  int `json:"imported"`
	Unchanged int `json:"unchanged"`
	Appended  int `json:"appended"`
	Failed    int `json:"failed"`
	Entries   int `json:"entries"`
	Segments  int `json:"segments"`
	Malformed int `json:"malformed"` // malformed lines, all of them (FileReport.MalformedCount)
	// ReadableSeconds is how long the import took to make the sessions
	// readable (their entries, segments and nodes stored and searchable);
	// CompleteSeconds, when `rhizome import` waited for the derivation
	// (summaries, knowledge, relations, vectors, index merges) after it,
	// how long until all of it was done, from the same start; 0 when not
	// waited for (issue 25).
	ReadableSeconds float64 `json:"readableSeconds"`
	CompleteSeconds float64 `json:"completeSeconds"`
}

// ImportReport is the result of one import request.
type ImportReport struct {
	Files  []FileReport `json:"files"`
	Totals ImportTotals `json:"totals"`
	// RelationsError says why the projects the import changed could not be
	// queued for their relations across sessions (the import itself is
	// kept); the relations queue derives them after the import
	// (relations_queue.go, issue 25).
	RelationsError string `json:"relationsError,omitempty"`
}

// DroppedFile is a file's contents sent by the frontend (a browser File or a
// file dropped on the window): Name is the file name, Content its bytes as
// base64.
type DroppedFile struct {
	Name    string `json:"name"`
	Content string `json:"content"`
}

// ImportProgress is sent as the "import:progress" event while importing.
// Bytes are file bytes; Phase is "reading", "writing" or "done".
type ImportProgress struct {
	File       string `json:"file"`
	FileIndex  int    `json:"fileIndex"` // 0-based
	FileCount  int    `json:"fileCount"`
	BytesDone  int64  `json:"bytesDone"`  // over all files
	BytesTotal int64  `json:"bytesTotal"` // over all files
	Entries    int    `json:"entries"`    // entries read so far in this file
	Phase      string `json:"phase"`
	// Committed counts the files whose sessions were imported or appended
	// to and committed so far: the library shows them already.
	Committed int `json:"committed"`
}
