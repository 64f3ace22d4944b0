// Package mcp is `rhizome mcp`'s transport: the library for coding agents
// as an MCP server (the official MCP Go SDK) over stdio, its tools and
// resources calling app.Agent (app/agent.go is what an agent may do), and
// an input reader that answers a malformed line instead of ending the
// session (frames.go). Issue 11 section 3.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"rhizome/app"
	"rhizome/store"
)

// instructions tell the agent how to use the server (ccmemory's SKILL.md
// advice: rules are binding, open questions on demand only).
const instructions = `Rhizome is the library of this person's past work with coding agents: sessions, segments, and knowledge (decisions, corrections, failed approaches, insights, questions, project facts, lessons).
- Call project_rules at the start of work in a project and follow them like CLAUDE.md or AGENTS.md.
- Call search before deciding something that may have been decided before; get reads any rhizome: URI.
- Call open_questions only when the conversation touches an unresolved area; never bring them up otherwise.
- Call record when a decision is made, a belief is corrected, an approach fails, or a project fact is stated; give your confidence (0-1).`

// errReadOnly is the record tool's answer in a read-only library.
var errReadOnly = errors.New("the library is open read-only (rhizome mcp --read-only): nothing can be recorded")

// searchIn is the search tool's input.
type searchIn struct {
	Query          string   `json:"query" jsonschema:"what to find: words or a question, optionally with a time expression (last week, in March, yesterday); knowledge items must hold every word, session hits are ranked by the hybrid score"`
	Project        string   `json:"project,omitempty" jsonschema:"project directory (absolute path) to search in"`
	Kinds          []string `json:"kinds,omitempty" jsonschema:"what to search: knowledge, node (session segments), entry (messages); default all"`
	KnowledgeKinds []string `json:"knowledgeKinds,omitempty" jsonschema:"knowledge kinds: decision, correction, exception, failedApproach, insight, question, projectFact, lesson"`
	From           string   `json:"from,omitempty" jsonschema:"ISO 8601 date or time: not before"`
	To             string   `json:"to,omitempty" jsonschema:"ISO 8601 date or time: not after"`
	Limit          int      `json:"limit,omitempty" jsonschema:"most results (default 20, at most 100)"`
	Roles          []string `json:"roles,omitempty" jsonschema:"session hits: message roles (user, assistant, toolResult)"`
	Tools          []string `json:"tools,omitempty" jsonschema:"session hits: tools called or answered (bash, edit, ...)"`
	Files          []string `json:"files,omitempty" jsonschema:"session hits: files touched, a path or its end (server.ts)"`
	Models         []string `json:"models,omitempty" jsonschema:"session hits: models that answered"`
	NodeTypes      []string `json:"nodeTypes,omitempty" jsonschema:"session hits: segment types (coding, debugging, refactoring, ...)"`
	RelationTypes  []string `json:"relationTypes,omitempty" jsonschema:"session hits: only segments with an edge of these types"`
}

type getIn struct {
	URI string `json:"uri" jsonschema:"a rhizome: URI, e.g. rhizome:knowledge/01J..., rhizome:node/..., rhizome:session/..., rhizome:entry/SESSION/ENTRY, rhizome:project/%2Fpath"`
}

type projectIn struct {
	Project string `json:"project" jsonschema:"project directory (absolute path); cross-project items are included"`
}

type questionsIn struct {
	Project string `json:"project,omitempty" jsonschema:"project directory (absolute path); empty: every project"`
	Topic   string `json:"topic,omitempty" jsonschema:"only questions mentioning every word of this"`
}

type recentIn struct {
	Project string `json:"project,omitempty" jsonschema:"project directory (absolute path); empty: every project"`
	Limit   int    `json:"limit,omitempty" jsonschema:"most segments (default 20, at most 200)"`
}

type recordIn struct {
	Kind       string              `json:"kind" jsonschema:"decision, lesson, fact, question, correction, failedApproach, insight or exception"`
	Project    string              `json:"project,omitempty" jsonschema:"project directory (absolute path); empty for a cross-project item"`
	Confidence float64             `json:"confidence,omitempty" jsonschema:"how sure you are, 0 to 1 (default 0.5)"`
	Fields     app.KnowledgeFields `json:"fields" jsonschema:"the kind's fields: decision: description, rationale, optionsConsidered, revisitTrigger; lesson: summary, details, actionable, level; fact: fact, category (convention, constraint, workflow, tool, pattern, environment), context; question: question, answer, context; correction: wrongBelief, rightBelief; failedApproach: approach, outcome, lesson; insight: summary, detail; exception: ruleBroken, justification"`
	Topics     []string            `json:"topics,omitempty"`
	Supersedes string              `json:"supersedes,omitempty" jsonschema:"id or rhizome:knowledge/ URI of an item of the same kind this one replaces"`
	Reason     string              `json:"reason,omitempty" jsonschema:"why it replaces it"`
}

// recordKinds maps the record tool's kinds to the knowledge kinds.
var recordKinds = map[string]string{
	"decision": "decision", "lesson": "lesson", "fact": "projectFact", "projectFact": "projectFact",
	"question": "question", "correction": "correction", "failedApproach": "failedApproach",
	"insight": "insight", "exception": "exception",
}

// list wraps a list result: a tool's structured content is an object.
// Note says, while sessions are still being analysed, that the answer
// lacks their summaries and knowledge (issue 25).
type list[T any] struct {
	Items []T    `json:"items"`
	Note  string `json:"note,omitempty"`
}

// analysingNote is list.Note for a's library now: "" when every session is
// analysed.
func analysingNote(ctx context.Context, a *app.App) string {
	n, err := a.DerivePending(ctx)
	if err != nil || n == 0 {
		return ""
	}
	what := "sessions are"
	if n == 1 {
		what = "session is"
	}
	return fmt.Sprintf("%s %s still being analysed: their messages are searched, their summaries, knowledge and relations are not derived yet", humanCount(n), what)
}

// humanCount is n with thousands separated: 3,120.
func humanCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// NewServer is the MCP server over a: the tools search, get,
// project_rules, open_questions, recent_work and record, and resource
// templates for rhizome: URIs. With readOnly, record refuses.
func NewServer(a *app.App, readOnly bool) *sdk.Server {
	s := sdk.NewServer(&sdk.Implementation{Name: "rhizome", Title: "Rhizome", Version: "0.1"},
		&sdk.ServerOptions{Instructions: instructions})
	ro := true
	sdk.AddTool(s, &sdk.Tool{Name: "search", Description: "Search the library: knowledge items first (decisions, facts, corrections…), then session segments and messages ranked by the hybrid score (meaning, keywords, links, time), each with why. Each result has a rhizome: URI to read with get.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in searchIn) (*sdk.CallToolResult, list[app.AgentHit], error) {
			// The window may have made vectors for new sessions since the
			// last search: search with them (and with the old ones if they
			// cannot be read).
			_ = a.RefreshVectors()
			hits, err := a.Agent.Search(app.AgentSearch{Query: in.Query, Project: in.Project, Kinds: in.Kinds,
				KnowledgeKinds: in.KnowledgeKinds, From: in.From, To: in.To, Limit: in.Limit, Roles: in.Roles, Tools: in.Tools,
				Files: in.Files, Models: in.Models, NodeTypes: in.NodeTypes, RelationTypes: in.RelationTypes})
			return nil, list[app.AgentHit]{Items: hits, Note: analysingNote(ctx, a)}, err
		})
	sdk.AddTool(s, &sdk.Tool{Name: "get", Description: "Read any item of the library by its rhizome: URI: a knowledge item (with versions and supersession chain), a segment node, a session, an entry, a project (its rules and recent work), a loom tree (the text of its active path) or loom node (with the text it continues), a note, a reasoning graph or one of its nodes.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in getIn) (*sdk.CallToolResult, any, error) {
			it, err := a.Agent.Get(in.URI)
			if err != nil {
				return nil, nil, err
			}
			return nil, it, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "project_rules", Description: "The project's rules (\"## Project Rules\"): its active project facts, grouped by category, latest wins. Treat them as custom instructions.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in projectIn) (*sdk.CallToolResult, any, error) {
			rules, err := a.Agent.ProjectRules(in.Project)
			if err != nil {
				return nil, nil, err
			}
			text := rules.Markdown
			if note := analysingNote(ctx, a); note != "" {
				text += "\n\n(" + note + ": rules they hold may be missing.)"
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}, rules, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "open_questions", Description: "Unanswered questions of a project. Ask only when the conversation touches an unresolved area.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in questionsIn) (*sdk.CallToolResult, list[app.KnowledgeItem], error) {
			qs, err := a.Agent.OpenQuestions(in.Project, in.Topic)
			return nil, list[app.KnowledgeItem]{Items: qs, Note: analysingNote(ctx, a)}, err
		})
	sdk.AddTool(s, &sdk.Tool{Name: "recent_work", Description: "What happened lately in a project: its newest session segments with their summaries, newest first.",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: ro}},
		func(ctx context.Context, _ *sdk.CallToolRequest, in recentIn) (*sdk.CallToolResult, list[app.WorkItem], error) {
			work, err := a.Agent.RecentWork(in.Project, in.Limit)
			return nil, list[app.WorkItem]{Items: work, Note: analysingNote(ctx, a)}, err
		})
	sdk.AddTool(s, &sdk.Tool{Name: "record", Description: "Record a decision, lesson, project fact or question (or a correction, failed approach, insight, exception) in the library, marked as made by an agent, with your confidence. supersedes states that it replaces an older item of the same kind."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in recordIn) (*sdk.CallToolResult, any, error) {
			if readOnly {
				return nil, nil, errReadOnly
			}
			kind, ok := recordKinds[in.Kind]
			if !ok {
				return nil, nil, fmt.Errorf("kind %q: want decision, lesson, fact, question, correction, failedApproach, insight or exception", in.Kind)
			}
			it, err := a.Agent.Record(app.KnowledgeInput{Kind: kind, Project: in.Project, Fields: in.Fields,
				Confidence: in.Confidence, Topics: in.Topics, Supersedes: strings.TrimPrefix(in.Supersedes, "rhizome:knowledge/"),
				Reason: in.Reason})
			if err != nil {
				return nil, nil, err
			}
			return nil, it, nil
		})
	for _, t := range []struct{ name, tmpl, desc string }{
		{"knowledge", "rhizome:knowledge/{id}", "A knowledge item with its versions and supersession chain"},
		{"node", "rhizome:node/{id}", "A segment node of a session"},
		{"session", "rhizome:session/{id}", "A session with its segments"},
		{"entry", "rhizome:entry/{session}/{entry}", "One entry (message) of a session"},
		{"project", "rhizome:project/{path}", "A project (its percent-encoded directory): rules and recent work"},
		{"loom", "rhizome:loom/{tree}", "A loom tree: what it is and the text of its active path"},
		{"loomNode", "rhizome:loom/{tree}/{node}", "A node of a loom tree with the path of text it continues"},
		{"note", "rhizome:note/{id}", "A person's note on an item, with the item's marks"},
		{"reasoning", "rhizome:reasoning/{graph}", "A MemoBrain reasoning graph: its nodes and edges as they are now"},
		{"reasoningNode", "rhizome:reasoning/{graph}/{node}", "A node of a reasoning graph with the nodes it joins"},
	} {
		s.AddResourceTemplate(&sdk.ResourceTemplate{Name: t.name, URITemplate: t.tmpl, Description: t.desc, MIMEType: "application/json"},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				it, err := a.Agent.Get(req.Params.URI)
				if errors.Is(err, store.ErrNotFound) {
					return nil, sdk.ResourceNotFoundError(req.Params.URI)
				}
				if err != nil {
					return nil, err
				}
				b, err := json.MarshalIndent(it, "", "  ")
				if err != nil {
					return nil, err
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
			})
	}
	return s
}

// Run serves a as an MCP server on stdio (JSON-RPC, one message a line, read
// from in and written to out) until in ends or ctx does; with readOnly,
// record refuses. Nothing but protocol messages is written to out. The end
// of in is not an error; the error returned is the SDK's, as it is.
func Run(ctx context.Context, a *app.App, readOnly bool, in io.ReadCloser, out io.Writer) error {
	w := &lockedWriter{w: out}
	t := &sdk.IOTransport{Reader: newFrames(in, w), Writer: w}
	if err := NewServer(a, readOnly).Run(ctx, t); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
