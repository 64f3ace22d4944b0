package copilot

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"rhizome/backend/session"
)

// The files around a session log (testdata/generate/README.md, "On-disk
// format"):
//
//	~/.copilot/session-state/<sessionId>/events.jsonl      the log
//	~/.copilot/session-state/<sessionId>/workspace.yaml    its metadata
//	~/.copilot/session-state/<sessionId>/checkpoints/NNN-session-<8 hex>.md   compaction summaries

// WorkspaceFile is the name of a session's metadata file, beside its
// events.jsonl.
const WorkspaceFile = "workspace.yaml"

// Workspace is a session's workspace.yaml: flat "key: value" lines.
type Workspace struct {
	ID         string `json:"id,omitempty"`
	Cwd        string `json:"cwd,omitempty"`
	GitRoot    string `json:"gitRoot,omitempty"`
	Branch     string `json:"branch,omitempty"`
	ClientName string `json:"clientName,omitempty"`
	// Name is the session's name: the --name given (UserNamed), else the
	// first prompt.
	Name         string `json:"name,omitempty"`
	UserNamed    bool   `json:"userNamed,omitempty"`
	SummaryCount int    `json:"summaryCount,omitempty"` // compactions
	ForkCount    int    `json:"forkCount,omitempty"`
	CreatedAt    string `json:"createdAt,omitempty"`
	UpdatedAt    string `json:"updatedAt,omitempty"`
	// Other holds the keys the reader does not know, as written.
	Other map[string]string `json:"other,omitempty"`
}

// WorkspaceOf reads the workspace.yaml beside the events.jsonl at
// eventsPath. ok is false when there is none or it cannot be read; lines
// it could not use are in problems.
func WorkspaceOf(eventsPath string) (ws Workspace, problems []session.Problem, ok bool) {
	path := filepath.Join(filepath.Dir(eventsPath), WorkspaceFile)
	f, err := os.Open(path)
	if err != nil {
		return Workspace{}, nil, false
	}
	defer f.Close()
	ws, problems, err = ReadWorkspace(f, path)
	return ws, problems, err == nil
}

// ReadWorkspace reads a workspace.yaml: the flat "key: value" lines Copilot
// CLI writes, each value a YAML scalar (plain, 'single' or "double"
// quoted, or a | or > block on the indented lines after it). A line that is
// not one (a list, a nested map) is reported in problems with its line,
// byte offset and reason, and skipped; a key given twice keeps its last
// value; integers and booleans that do not parse are problems too. A read
// error is returned, wrapped with the file and line, with what was read
// before it. This is no general YAML parser: Copilot CLI's file needs none,
// and go.mod has no YAML library.
func ReadWorkspace(r io.Reader, file string) (Workspace, []session.Problem, error) {
	var ws Workspace
	var problems []session.Problem
	problem := func(line int, off int64, reason string) {
		if len(problems) < session.MaxStoredProblems {
			problems = append(problems, session.Problem{File: file, Line: line, Offset: off, Reason: reason})
		}
	}
	lines, err := readLines(r)
	if err != nil {
		err = fmt.Errorf("copilot: %s: line %d: read: %w", file, len(lines)+1, err)
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimRight(l.text, " \t\r")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "#") || t == "---" {
			continue
		}
		if t[0] == ' ' || t[0] == '\t' {
			problem(l.no, l.off, "indented line outside a block value; skipped")
			continue
		}
		key, rest, found := strings.Cut(t, ":")
		if !found || key == "" || strings.ContainsAny(key, " \t\"'") || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
			problem(l.no, l.off, fmt.Sprintf("not a \"key: value\" line: %q", cut(t, 40)))
			continue
		}
		rest = strings.TrimSpace(rest)
		var val string
		switch {
		case rest == "":
			if i+1 < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i+1].text, " "), "- ") {
				problem(l.no, l.off, fmt.Sprintf("key %q: a list or map value; skipped", key))
				for i+1 < len(lines) && (strings.HasPrefix(lines[i+1].text, " ") || strings.HasPrefix(lines[i+1].text, "-")) {
					i++
				}
				continue
			}
		case rest[0] == '|' || rest[0] == '>':
			var block []string
			for i+1 < len(lines) && (strings.HasPrefix(lines[i+1].text, " ") || strings.TrimSpace(lines[i+1].text) == "") {
				i++
				block = append(block, lines[i].text)
			}
			val = blockScalar(rest, block)
		default:
			v, err := scalar(rest)
			if err != nil {
				problem(l.no, l.off, fmt.Sprintf("key %q: %v", key, err))
				continue
			}
			val = v
		}
		if reason := ws.set(key, val); reason != "" {
			problem(l.no, l.off, fmt.Sprintf("key %q: %s", key, reason))
		}
	}
	return ws, problems, err
}

// set records one key's value; it returns why a value does not fit, or "".
func (ws *Workspace) set(key, val string) string {
	switch key {
	case "id":
		ws.ID = val
	case "cwd":
		ws.Cwd = val
	case "git_root":
		ws.GitRoot = val
	case "branch":
		ws.Branch = val
	case "client_name":
		ws.ClientName = val
	case "name":
		ws.Name = val
	case "user_named":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return fmt.Sprintf("%q is not true or false", val)
		}
		ws.UserNamed = b
	case "summary_count", "fork_count":
		n, err := strconv.Atoi(val)
		if err != nil {
			return fmt.Sprintf("%q is not an integer", val)
		}
		if key == "summary_count" {
			ws.SummaryCount = n
		} else {
			ws.ForkCount = n
		}
	case "created_at":
		ws.CreatedAt = val
	case "updated_at":
		ws.UpdatedAt = val
	default:
		if ws.Other == nil {
			ws.Other = map[string]string{}
		}
		ws.Other[key] = val
	}
	return ""
}

// scalar reads a one-line YAML scalar: "double quoted" (JSON's escapes and
// YAML's \x, \e, \0), 'single quoted' (” is a quote), or plain (up to a
// " #" comment; ~ and null are empty).
func scalar(s string) (string, error) {
	switch s[0] {
	case '"':
		end := closingQuote(s)
		if end < 0 {
			return "", fmt.Errorf("unterminated double-quoted value")
		}
		var out string
		if err := json.Unmarshal([]byte(s[:end+1]), &out); err != nil {
			u, err2 := strconv.Unquote(s[:end+1])
			if err2 != nil {
				return "", fmt.Errorf("double-quoted value does not parse: %v", err)
			}
			out = u
		}
		return out, nil
	case '\'':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] != '\'' {
				b.WriteByte(s[i])
				continue
			}
			if i+1 < len(s) && s[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return b.String(), nil
		}
		return "", fmt.Errorf("unterminated single-quoted value")
	}
	if i := strings.Index(s, " #"); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if s == "~" || s == "null" {
		return "", nil
	}
	return s, nil
}

// closingQuote returns the index of the quote that closes the
// double-quoted value s, or -1.
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// blockScalar reads a | (literal) or > (folded) block from its indented
// lines; a "-" chomping indicator drops the final newline.
func blockScalar(indicator string, lines []string) string {
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	var parts []string
	for _, l := range lines {
		if len(l) >= indent && indent >= 0 {
			l = l[indent:]
		} else {
			l = strings.TrimLeft(l, " ")
		}
		parts = append(parts, strings.TrimRight(l, "\r"))
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	sep := "\n"
	if indicator[0] == '>' {
		sep = " "
	}
	out := strings.Join(parts, sep)
	if !strings.Contains(indicator, "-") {
		out += "\n"
	}
	return out
}

type textLine struct {
	no   int
	off  int64
	text string
}

// readLines reads r's lines with their numbers and byte offsets.
func readLines(r io.Reader) ([]textLine, error) {
	br := bufio.NewReader(r)
	var out []textLine
	var off int64
	for no := 1; ; no++ {
		s, err := br.ReadString('\n')
		if s != "" {
			out = append(out, textLine{no: no, off: off, text: strings.TrimSuffix(s, "\n")})
			off += int64(len(s))
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
