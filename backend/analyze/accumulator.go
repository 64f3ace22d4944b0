package analyze

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"rhizome/backend/graph"
	"rhizome/backend/session"
)

// Bounds on what an Accumulator keeps, whatever the segment's size.
const (
	maxRequests     = 3    // meaningful user requests kept for the summary (4 KB each at most)
	maxRequestRunes = 600  // runes kept of the first user text (for hadClearGoal)
	maxErrors       = 20   // errorsSeen entries
	maxFiles        = 2000 // distinct file paths
	maxErrorRunes   = 200  // runes of an error message
	maxPending      = 64   // manifest reads and bash calls awaiting their result
	maxImportBytes  = 1024 // bytes of a write call's arguments searched for framework imports

	// substantialReply is the length in bytes from which an assistant text
	// says more than "Done." (see summarize).
	substantialReply = 80
)

// picoPerUSD is the fixed-point scale of costs: the accumulator sums costs
// as integers of 1e-12 USD, so that sums are exact and do not depend on
// order (the costs of a session's nodes add up to exactly the session's
// cost).
const picoPerUSD = 1e12

// Accumulator collects the facts of one segment, entry by entry, for Node.
// It keeps only bounded facts: the first few meaningful user requests
// (truncated), the last assistant text (4 KB), counters, sets of tools and
// files, at most 20 errors and usage sums. Every text it inspects is capped at
// 4 KB per entry; longer texts are only measured.
//
// An Accumulator is not safe for concurrent use. The zero value is not ready:
// use NewAccumulator.
type Accumulator struct {
	entries             int
	firstID, lastID     string
	firstTime, lastTime time.Time

	// User requests.
	firstRequest  string   // first user text that is not a slash command
	sawRequest    bool     // firstRequest is set
	requests      []string // first meaningful requests (isTrivial false, capped, as written), at most maxRequests
	lastRequest   string   // the last meaningful request (capped, as written)
	meaningful    int      // meaningful requests
	firstClasses  wordClass
	classMessages [8]int // meaningful requests with a word of each wordClass bit
	terms         map[string]termStat
	termSeq       int
	handoff       bool

	// Assistant messages.
	assistantMessages int
	reply             []byte // text of the last assistant message that had text (capped)
	longReply         []byte // text of the last assistant message with at least substantialReply bytes of text
	lastStop          string // stopReason of the last assistant message
	fallback          string // first compaction or branch summary (capped)

	// Tools and files.
	tools       map[string]int
	files       map[string]*fileFacts
	edits       [kindMedia + 1]int // edit and write calls by kind of file
	testEdits   int                // edit and write calls of test files
	readCalls   int                // read tool calls and other read-only tools
	webCalls    int                // web fetch/search tools
	bash        bashFacts
	frameworks  map[string]int
	manifestIDs map[string]bool   // tool call ids of manifest reads awaiting their result
	bashKeys    map[string]string // tool call id of a bash call awaiting its result: bashKey

	// Errors.
	errs            []graph.ErrorSummary
	errIndex        map[string]int   // type + "\x00" + message: index in errs
	openErrs        map[string][]int // error source (tool name, modelSource): unresolved indices in errs
	unresolved      map[string]int   // error source: unresolved errors, stored or not
	lastResultError bool

	// Usage.
	models    map[modelKey]*modelSums
	tokens    int64
	textBytes int64

	scratch []byte
	shell   shellScanner
}

// fileFacts is what the segment did with one file.
type fileFacts struct {
	touches int // tool calls and bash commands that named it
}

// modelKey names a model.
type modelKey struct{ provider, model string }

// modelSums are one model's usage sums; cost in 1e-12 USD.
type modelSums struct {
	input, output, cacheRead, cacheWrite int64
	costPico                             int64
}

// modelSource is the error source of model errors (stopReason "error").
const modelSource = "\x00model"

// NewAccumulator returns an empty accumulator for one segment.
func NewAccumulator() *Accumulator {
	return &Accumulator{
		terms:       map[string]termStat{},
		tools:       map[string]int{},
		files:       map[string]*fileFacts{},
		frameworks:  map[string]int{},
		manifestIDs: map[string]bool{},
		bashKeys:    map[string]string{},
		errIndex:    map[string]int{},
		openErrs:    map[string][]int{},
		unresolved:  map[string]int{},
		models:      map[modelKey]*modelSums{},
	}
}

// Reset empties the accumulator for the next segment, keeping its allocated
// memory.
func (a *Accumulator) Reset() {
	*a = Accumulator{
		terms: a.terms, tools: a.tools, files: a.files, frameworks: a.frameworks,
		manifestIDs: a.manifestIDs, bashKeys: a.bashKeys, errIndex: a.errIndex, openErrs: a.openErrs,
		unresolved: a.unresolved, models: a.models,
		requests: a.requests[:0], reply: a.reply[:0], longReply: a.longReply[:0], errs: a.errs[:0],
		scratch: a.scratch[:0], shell: a.shell,
	}
	clear(a.terms)
	clear(a.tools)
	clear(a.files)
	clear(a.frameworks)
	clear(a.manifestIDs)
	clear(a.bashKeys)
	clear(a.errIndex)
	clear(a.openErrs)
	clear(a.unresolved)
	clear(a.models)
}

// Add feeds the next entry of the segment, in file order. A nil entry is
// ignored. Add keeps no reference to e or its strings beyond small ones (ids,
// tool and model names, paths); texts it keeps are copied and capped.
func (a *Accumulator) Add(e *session.Entry) {
	if e == nil {
		return
	}
	a.entries++
	if a.entries == 1 {
		a.firstID = e.ID
	}
	a.lastID = e.ID
	if !e.Timestamp.IsZero() {
		if a.firstTime.IsZero() {
			a.firstTime = e.Timestamp
		}
		a.lastTime = e.Timestamp
	}
	switch e.Type {
	case session.TypeMessage:
		if e.Message != nil {
			a.addMessage(e.Message)
		}
	case session.TypeCompaction, session.TypeBranchSummary:
		a.textBytes += int64(len(e.Summary))
		if a.fallback == "" {
			a.fallback = strings.Clone(capBytes(e.Summary, maxInspectBytes))
		}
	case session.TypeCustom:
		a.textBytes += int64(len(e.Data))
		if strings.EqualFold(e.CustomType, "handoff") {
			a.handoff = true
		}
	case session.TypeCustomMessage:
		_, n := appendBlockText(nil, e.Content, 0)
		a.textBytes += int64(n)
		if strings.EqualFold(e.CustomType, "handoff") {
			a.handoff = true
		}
	}
}

// addMessage feeds a message entry's payload.
func (a *Accumulator) addMessage(m *session.Message) {
	switch m.Role {
	case session.RoleUser:
		a.addUser(m)
	case session.RoleAssistant:
		a.addAssistant(m)
	case session.RoleToolResult:
		a.addToolResult(m)
	case session.RoleBashExecution:
		// A command the user ran with "!": its files and kind count, but it
		// is not a tool the model used.
		a.textBytes += int64(len(m.Command) + len(m.Output))
		inspectBash(&a.shell, m.Command, &a.bash, a.touchFile)
	case session.RoleCustom, session.RoleHookMessage:
		_, n := appendBlockText(nil, m.Content, 0)
		a.textBytes += int64(n)
		if strings.EqualFold(m.CustomType, "handoff") {
			a.handoff = true
		}
	default: // branchSummary, compactionSummary and unknown roles
		_, n := appendBlockText(nil, m.Content, 0)
		a.textBytes += int64(n + len(m.Summary))
	}
}

// addUser feeds a user message: its text (capped) gives requests, words and
// terms.
func (a *Accumulator) addUser(m *session.Message) {
	var n int
	a.scratch, n = appendBlockText(a.scratch[:0], m.Content, maxInspectBytes)
	a.textBytes += int64(n)
	raw := string(a.scratch)
	text := collapseSpace(raw)
	if text == "" {
		return
	}
	if isSlashCommand(text) {
		if strings.HasPrefix(strings.ToLower(text), "/handoff") {
			a.handoff = true
		}
		return
	}
	if !a.sawRequest {
		a.sawRequest = true
		a.firstRequest = truncateRunes(text, maxRequestRunes)
	}
	lower := strings.ToLower(text)
	if strings.Contains(lower, "handoff to") || strings.Contains(lower, "hand off to") ||
		strings.Contains(lower, "hand-off to") {
		a.handoff = true
	}
	var classes wordClass
	forEachProseWord(text, func(w []byte) { classes |= a.countWord(w) })
	if isTrivial(text) {
		return
	}
	a.meaningful++
	a.lastRequest = raw // line structure kept: plainRequest drops pasted tables and code
	if len(a.requests) < maxRequests {
		a.requests = append(a.requests, a.lastRequest)
	}
	if a.meaningful == 1 {
		a.firstClasses = classes
	}
	for bit := 0; classes != 0; bit++ {
		if classes&1 != 0 {
			a.classMessages[bit]++
		}
		classes >>= 1
	}
}

// countWord counts a word of a user request for the tags and returns its
// keyword classes.
func (a *Accumulator) countWord(w []byte) wordClass {
	c := keywordClasses[string(w)]
	if s, ok := a.terms[string(w)]; ok {
		s.count++
		a.terms[string(w)] = s
		return c
	}
	if len(a.terms) < maxTerms {
		a.termSeq++
		a.terms[string(w)] = termStat{count: 1, first: a.termSeq}
	}
	return c
}

// asked reports whether the user's requests are about c: the first meaningful
// request has a word of class c, or at least a third of the meaningful
// requests do. One passing mention in a long segment does not count.
func (a *Accumulator) asked(c wordClass) bool {
	if a.firstClasses&c != 0 {
		return true
	}
	n := 0
	for bit := 0; bit < len(a.classMessages); bit++ {
		if c&(1<<bit) != 0 {
			n = max(n, a.classMessages[bit])
		}
	}
	return n > 0 && n*3 >= a.meaningful
}

// addAssistant feeds an assistant message: usage, stop reason, text and tool
// calls.
func (a *Accumulator) addAssistant(m *session.Message) {
	a.assistantMessages++
	a.lastStop = m.StopReason
	if u := m.Usage; u != nil {
		k := modelKey{m.Provider, m.Model}
		s := a.models[k]
		if s == nil {
			s = &modelSums{}
			a.models[k] = s
		}
		s.input += u.Input
		s.output += u.Output
		s.cacheRead += u.CacheRead
		s.cacheWrite += u.CacheWrite
		s.costPico += int64(math.Round(u.Cost.Total * picoPerUSD))
		if u.TotalTokens > 0 {
			a.tokens += u.TotalTokens
		} else {
			a.tokens += u.Input + u.Output + u.CacheRead + u.CacheWrite
		}
	}
	hasText, textLen := false, 0
	for i := range m.Content {
		b := &m.Content[i]
		switch b.Type {
		case session.BlockText:
			a.textBytes += int64(len(b.Text))
			textLen += len(b.Text)
			if strings.TrimSpace(b.Text) != "" {
				if !hasText {
					a.reply = a.reply[:0]
					hasText = true
				} else {
					a.reply = appendCapped(a.reply, "\n", maxInspectBytes)
				}
				a.reply = appendCapped(a.reply, b.Text, maxInspectBytes)
			}
		case session.BlockThinking:
			a.textBytes += int64(len(b.Thinking))
		case session.BlockToolCall:
			a.textBytes += int64(len(b.Arguments))
			a.addToolCall(b)
		}
	}
	if hasText && textLen >= substantialReply {
		a.longReply = append(a.longReply[:0], a.reply...)
	}
	switch m.StopReason {
	case "error":
		msg := m.ErrorMessage
		if msg == "" {
			msg = "stopReason error"
		}
		a.addError(modelSource, "model_error", firstLines(capBytes(msg, maxInspectBytes), maxErrorRunes))
	case "aborted":
	default:
		a.resolve(modelSource)
	}
}

// toolArgs are the tool call arguments the analyzer reads.
type toolArgs struct {
	Path         string `json:"path"`
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	Cmd          string `json:"cmd"`
	// Cline CLI's run_commands {commands} and read_files {files: [{path}]}.
	Commands []string `json:"commands"`
	Files    []struct {
		Path string `json:"path"`
	} `json:"files"`
}

// Tool kinds by lowercase tool name: pi's read, write, edit and bash, and the
// names other agents use for the same tools (GitHub Copilot CLI's view,
// edit and create: create writes a new file, {path, file_text}; Gemini
// CLI's and Qwen Code's read_many_files, replace {file_path, old_string,
// new_string}, run_shell_command {command}, list_directory, grep_search
// and search_file_content; Cline CLI's run_commands {commands: [...]},
// read_files {files: [{path}]}, editor {path, old_text?, new_text} and
// search_codebase).
var (
	readTools  = map[string]bool{"read": true, "read_file": true, "read_many_files": true, "read_files": true, "view": true, "open": true, "cat": true}
	writeTools = map[string]bool{"write": true, "write_file": true, "create_file": true, "create": true, "edit": true,
		"edit_file": true, "multiedit": true, "multi_edit": true, "str_replace": true,
		"str_replace_editor": true, "str_replace_based_edit_tool": true, "notebookedit": true,
		"apply_patch": true, "patch": true, "replace": true, "editor": true}
	// createTools write whole files (their arguments start with the file's
	// imports).
	createTools = map[string]bool{"write": true, "write_file": true, "create_file": true, "create": true}
	bashTools   = map[string]bool{"bash": true, "shell": true, "sh": true, "exec": true, "run_command": true, "terminal": true,
		"run_shell_command": true, "run_commands": true}
	searchTools = map[string]bool{"grep": true, "glob": true, "find": true, "ls": true, "list": true,
		"rg": true, "list_files": true, "search_files": true, "codebase_search": true, "list_directory": true,
		"grep_search": true, "search_file_content": true, "search_codebase": true}
)

// addToolCall feeds one tool call block: the tool, the files it names and,
// for bash, what the command does.
func (a *Accumulator) addToolCall(b *session.Block) {
	name := b.Name
	a.tools[name]++
	var args toolArgs
	if len(b.Arguments) > 0 && b.Arguments[0] == '{' {
		_ = json.Unmarshal(b.Arguments, &args) // arguments the model got wrong name no files
	}
	p := args.Path
	if p == "" {
		p = args.FilePath
	}
	if p == "" {
		p = args.NotebookPath
	}
	lname := strings.ToLower(name)
	switch {
	case bashTools[lname]:
		cmd := args.Command
		if cmd == "" {
			cmd = args.Cmd
		}
		if cmd == "" && len(args.Commands) > 0 {
			cmd = strings.Join(args.Commands, "\n")
		}
		inspectBash(&a.shell, cmd, &a.bash, a.touchFile)
		if b.ID != "" && len(a.bashKeys) < maxPending {
			a.bashKeys[b.ID] = bashKey(&a.shell, cmd)
		}
	case readTools[lname]:
		a.readCalls++
		a.touch(p)
		for _, f := range args.Files {
			a.touch(f.Path)
		}
		if isManifest(p) && len(a.manifestIDs) < maxPending && b.ID != "" {
			a.manifestIDs[b.ID] = true
		}
	case writeTools[lname]:
		if kind, isTest := a.touch(p); p != "" {
			a.edits[kind]++
			if isTest {
				a.testEdits++
			}
		}
		// Framework evidence: the imports at the top of a written file,
		// and a manifest's dependencies. Edits (the most frequent call)
		// are fragments: only those of manifests are searched.
		limit := 0
		switch {
		case isManifest(p):
			limit = maxInspectBytes
		case createTools[lname]:
			limit = maxImportBytes
		}
		raw := b.Arguments[:min(len(b.Arguments), limit)]
		for len(raw) > 0 && len(raw) < len(b.Arguments) && !utf8.RuneStart(b.Arguments[len(raw)]) {
			raw = raw[:len(raw)-1]
		}
		if len(raw) > 0 {
			a.scanFrameworks(string(raw))
		}
	case searchTools[lname]:
		a.readCalls++
		if looksLikeFile(p) {
			a.touch(p)
		}
	case strings.Contains(lname, "fetch") || strings.Contains(lname, "web") ||
		strings.Contains(lname, "browse") || strings.Contains(lname, "search"):
		a.webCalls++
	default:
		if looksLikeFile(p) {
			a.touch(p)
		}
	}
}

// touch records a file the segment named (in a tool call or a bash command)
// and returns its kind and whether it is a test file. Paths are kept as the
// session wrote them (cleaned); Node makes them relative to the project.
func (a *Accumulator) touch(p string) (fileKind, bool) {
	p = cleanPath(p)
	if p == "" {
		return kindOther, false
	}
	f := a.files[p]
	if f == nil && len(a.files) < maxFiles {
		// A path from a bash command is a slice of the whole command:
		// copy it, not to keep the command alive.
		f = &fileFacts{}
		a.files[strings.Clone(p)] = f
	}
	if f != nil {
		f.touches++
	}
	kind, _ := classifyFile(p)
	return kind, kind == kindCode && isTestFile(p)
}

// touchFile is touch without results, for inspectBash.
func (a *Accumulator) touchFile(p string) { a.touch(p) }

// scanFrameworks counts the framework markers in s (see frameworkMarkers).
func (a *Accumulator) scanFrameworks(s string) {
	for _, m := range frameworkMarkers {
		if strings.Contains(s, m.marker) {
			a.frameworks[m.framework]++
		}
	}
}

// addToolResult feeds a tool result: an error is recorded, a success
// resolves the earlier errors of the same tool (for bash and other shell
// tools: of the same command, see bashKey).
func (a *Accumulator) addToolResult(m *session.Message) {
	var n int
	if m.IsError || a.manifestIDs[m.ToolCallID] {
		a.scratch, n = appendBlockText(a.scratch[:0], m.Content, maxInspectBytes)
	} else {
		_, n = appendBlockText(nil, m.Content, 0)
	}
	a.textBytes += int64(n)
	if a.manifestIDs[m.ToolCallID] {
		delete(a.manifestIDs, m.ToolCallID)
		if !m.IsError {
			a.scanFrameworks(string(a.scratch))
		}
	}
	// Errors of a shell tool are resolved by a later success of the same
	// command (bashKey), not by any later command: an "ls" does not undo a
	// failed "npm publish".
	source := m.ToolName
	if key, ok := a.bashKeys[m.ToolCallID]; ok {
		delete(a.bashKeys, m.ToolCallID)
		source = m.ToolName + "\x00" + key
	}
	a.lastResultError = m.IsError
	if m.IsError {
		msg := errorMessage(string(a.scratch), maxErrorRunes)
		if msg == "" {
			msg = "(no output)"
		}
		a.addError(source, m.ToolName+"_error", msg)
		return
	}
	a.resolve(source)
}

// addError records an unresolved error of a source (a tool name or
// modelSource). An error whose type and message are already listed is not
// listed again: the listed one becomes unresolved again. After maxErrors
// listed errors, errors are only counted.
func (a *Accumulator) addError(source, typ, msg string) {
	a.unresolved[source]++
	key := typ + "\x00" + msg
	if i, ok := a.errIndex[key]; ok {
		if a.errs[i].Resolved {
			a.errs[i].Resolved = false
			a.openErrs[source] = append(a.openErrs[source], i)
		}
		return
	}
	if len(a.errs) >= maxErrors {
		return
	}
	a.errIndex[key] = len(a.errs)
	a.openErrs[source] = append(a.openErrs[source], len(a.errs))
	a.errs = append(a.errs, graph.ErrorSummary{Type: typ, Message: msg})
}

// resolve marks the errors of a source resolved: the tool (or the model)
// later succeeded in the segment.
func (a *Accumulator) resolve(source string) {
	if a.unresolved[source] == 0 {
		return
	}
	for _, i := range a.openErrs[source] {
		a.errs[i].Resolved = true
	}
	a.openErrs[source] = a.openErrs[source][:0]
	a.unresolved[source] = 0
}

// unresolvedErrors is the number of errors (listed or not) no later success
// of their tool or model resolved.
func (a *Accumulator) unresolvedErrors() int {
	n := 0
	for _, c := range a.unresolved {
		n += c
	}
	return n
}

// replyText is the last assistant text as a string.
func (a *Accumulator) replyText() string {
	return string(bytes.TrimSpace(a.reply))
}
