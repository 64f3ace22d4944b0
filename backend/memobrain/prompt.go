package memobrain

import (
	"strconv"
	"strings"
)

// Prompt is a chat request for the memory model: a system message and a user
// message. MemoBrain samples with temperature 0.7, top_p 0.8, top_k 20,
// min_p 0.05, presence_penalty 1.1 and at most 8192 tokens.
type Prompt struct {
	System string `json:"system"`
	User   string `json:"user"`
}

// MemoryPatchInstructions is the system prompt for a memory patch. It asks
// for what MemoBrain's MEMORY_SYS_PROMPT asks for (interchange-formats.md
// §3, "MemoryPatch"), in Rhizome's own words; the user message carries the
// turn and the graph (see PatchPrompt). ReadPatch reads the reply.
const MemoryPatchInstructions = `You keep the reasoning memory of an agent that is working through a multi-step task. The memory is a graph; after each step of the agent, you add that step to it as new nodes and edges.

Node kinds:
- "task": the main task, the root of the graph.
- "subtask": a sub-problem the task was broken into, or a sharper restatement of a task or subtask.
- "evidence": a fact, an answer or a conclusion a step established for a task or subtask.
- "summary": earlier nodes condensed into one. Summaries are made elsewhere: never create one.

Edges go from a parent (an existing node, or a new one of your reply) to a new node:
- task -> subtask: the task is broken down;
- task or subtask -> a more precise subtask: the problem is refined;
- task or subtask -> evidence: the evidence answers or supports it.

You are given CURRENT_INTERACTION, the agent's latest step as a JSON list of two messages (what the agent did, then what came back), followed by the current graph, one node per line with its children indented below it:
- Node <id>: [<kind>] [<status>] <notes>
    --[->] Node <child id> [Rationale: <why>]

Reply with one JSON object and nothing else (no commentary, no code fence), for example:
{
  "add_nodes": [
    {"tmp_id": "tmp1", "kind": "subtask", "thought": [{"role": "assistant", "content": "what the agent set out to do"}, {"role": "user", "content": "what came back"}]},
    {"tmp_id": "tmp2", "kind": "evidence", "thought": [{"role": "assistant", "content": "the action that found it"}, {"role": "user", "content": "the fact it found"}]}
  ],
  "add_edges": [
    {"src": 1, "dst": "tmp1", "rationale": "break the task down"},
    {"src": "tmp1", "dst": "tmp2", "rationale": "answers the subtask"}
  ]
}

Rules:
- "kind" is "subtask" or "evidence".
- "thought" is a list of notes {"role": ..., "content": ...} that keep the core of the step: usually an "assistant" note for the action and a "user" note for its result.
- "tmp_id" is a new name such as "tmp1", unique within your reply. In "add_edges", "src" is the integer id of an existing node or a tmp_id, "dst" is a tmp_id, and "rationale" is a short reason.
- Never create a cycle.
- Add nodes only for steps that matter. When the step adds nothing, reply {"add_nodes": [], "add_edges": []}.`

// FlushAndFoldInstructions is the system prompt for flush and fold. It asks
// for what MemoBrain's FLUSH_AND_FOLD_PROMPT asks for (interchange-formats.md
// §3, "FlushAndFold"), in Rhizome's own words; the user message carries the
// graph (see RecallPrompt). ReadFlushAndFold reads the reply.
const FlushAndFoldInstructions = `You tidy the reasoning memory of an agent that is working through a multi-step task. The memory is a graph, given as CURRENT_GRAPH, one node per line with its children indented below it:
- Node <id>: [<kind>] [<status>] <notes>
    --[->] Node <child id> [Rationale: <why>]
<status> is Active or Flushed.

Two operations make the memory smaller:
1. flush: a node that no longer helps (a step that yielded nothing useful, or one a later step superseded or refined) is flushed: the agent keeps only its notes.
2. fold: when the steps under a subtask have reached a conclusion (the information was found, or evidence shows it cannot be), those steps are folded into one summary node written from your notes; edges into and out of them then attach to the summary.

Reply with one JSON object and nothing else (no commentary, no code fence), for example:
{
  "flush_ops": [{"id": 5, "rationale": "superseded by node 7"}],
  "fold_ops": [
    {"ids": [6, 7, 8], "rationale": "why these steps can be folded",
     "notes": [{"role": "assistant", "content": "what these steps set out to do and how"}, {"role": "user", "content": "what they found"}]}
  ]
}

Rules:
- Only Active nodes may be flushed or folded.
- A node appears in at most one operation: never in two folds, never in both a flush and a fold.
- Each fold lists at least one id and has notes that summarise its nodes: an "assistant" note for the aims and steps, a "user" note for the findings.
- Fold connected steps: never fold two ends of a path and leave a node between them out.
- When nothing should change, reply {"flush_ops": [], "fold_ops": []}.`

// PatchPrompt is the request for a memory patch after one turn, built as
// MemoBrain's _generate_patch builds it: MemoryPatchInstructions as system
// message, and as user message "CURRENT_INTERACTION:\n", the turn's two
// messages as Python's json.dumps(pair, ensure_ascii=False) writes them, a
// blank line, and PrettyPrint(g).
func PatchPrompt(g *Graph, pair [2]Message) Prompt {
	a, _ := pair[0].MarshalJSON()
	b, _ := pair[1].MarshalJSON()
	list := append(append(append(append([]byte{'['}, a...), ','), b...), ']')
	return Prompt{System: MemoryPatchInstructions,
		User: "CURRENT_INTERACTION:\n" + pyDumps(list, false) + "\n\n" + PrettyPrint(g)}
}

// RecallPrompt is the request for flush and fold, built as MemoBrain's
// recall builds it: FlushAndFoldInstructions as system message, and
// "CURRENT_GRAPH:\n" followed by PrettyPrint(g) as user message.
func RecallPrompt(g *Graph) Prompt {
	return Prompt{System: FlushAndFoldInstructions, User: "CURRENT_GRAPH:\n" + PrettyPrint(g)}
}

// PrettyPrint renders the graph as MemoBrain's pretty_print (full mode)
// shows it to the model, line for line:
//
//   - Node 1: [task] [Active] Begin to solve the task: …
//     --[->] Node 2 [Rationale: …]
//   - Node 2: [subtask] [Active] [{'role': 'assistant', 'content': '…'}, …]
//
// Folded nodes are left out (Python reads false as false); flushed ones are
// shown (it reads "Flushed" as true). Roots are the shown nodes no shown
// edge enters, in node order; each node is shown once, depth first, under
// the first parent that reaches it, and edges to a node already shown are
// left out. Shown nodes no root reaches follow under "Isolated active nodes
// (not connected to roots):". A thought is shown as Python's str() of it:
// a string as it is, a list of notes as Python writes a list of dicts.
func PrettyPrint(g *Graph) string {
	shown := func(n *ReasoningNode) bool { return n.Active != Folded }
	type child struct {
		dst       int
		rationale string
	}
	children := map[int][]child{}
	inDeg := map[int]int{}
	for _, e := range g.edges {
		s, d := g.nodes[g.index[e.Src]], g.nodes[g.index[e.Dst]]
		if shown(s) && shown(d) {
			children[e.Src] = append(children[e.Src], child{e.Dst, e.Rationale})
			inDeg[e.Dst]++
		}
	}
	var lines []string
	visited := map[int]bool{}
	var walk func(id int, indent string)
	walk = func(id int, indent string) {
		if visited[id] {
			return
		}
		visited[id] = true
		n := g.nodes[g.index[id]]
		status := "Active"
		if n.Active == Flushed {
			status = "Flushed"
		}
		lines = append(lines, indent+"- Node "+strconv.Itoa(id)+": ["+string(n.Kind)+"] ["+status+"] "+pyStr(n.Thought.raw))
		for _, c := range children[id] {
			if visited[c.dst] {
				continue
			}
			lines = append(lines, indent+"    --[->] Node "+strconv.Itoa(c.dst)+" [Rationale: "+c.rationale+"]")
			walk(c.dst, indent+"        ")
		}
	}
	roots := 0
	for _, n := range g.nodes {
		if shown(n) && inDeg[n.ID] == 0 {
			roots++
			walk(n.ID, "")
		}
	}
	if roots == 0 {
		lines = append(lines, "No roots (possibly empty graph)")
	}
	var hidden []*ReasoningNode
	for _, n := range g.nodes {
		if shown(n) && !visited[n.ID] {
			hidden = append(hidden, n)
		}
	}
	if len(hidden) > 0 {
		lines = append(lines, "\nIsolated active nodes (not connected to roots):")
		for _, n := range hidden {
			lines = append(lines, "- "+strconv.Itoa(n.ID)+": ["+string(n.Kind)+"] "+pyStr(n.Thought.raw))
		}
	}
	return strings.Join(lines, "\n")
}
