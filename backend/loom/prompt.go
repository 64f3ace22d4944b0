package loom

import (
	"errors"
)

// ErrNothingToContinue is returned by Prompt when the path's context window
// has no text.
var ErrNothingToContinue = errors.New("loom: the active path has no text to continue")

// TurnRole is who speaks a Turn of a dialogue-mode prompt.
type TurnRole string

// Turn roles.
const (
	TurnSystem    TurnRole = "system"
	TurnUser      TurnRole = "user"
	TurnAssistant TurnRole = "assistant"
)

// Turn is one message of a dialogue-mode prompt.
type Turn struct {
	Role TurnRole
	Text string
}

// Prompt is what a model is asked to continue: in buffer mode a text
// completion (Text), in dialogue mode chat messages (Turns). Exactly one of
// the two is set.
type Prompt struct {
	Text  string
	Turns []Turn
}

// Prompt returns the prompt continuing ap, built from its context window
// (Context: excluded nodes and annotations left out). Buffer mode: the
// system context, a blank line, then the path's text (PathText); the system
// context and blank line only when there is one. Dialogue mode: the system
// context as a system turn, then one turn per node with text, an
// assistant's when the node's original (Family) was written by a model (a
// model reply the person edited stays the assistant's turn), else a user's.
// Errors: those of ResolvePath, ErrNothingToContinue.
// See aspen-grove-core-entities.md, "LoomTree" (systemContext), "NodeMetadata
// Properties" (excluded) and "Edge" (annotations), corrected by ERRATA.md.
func (t *Tree) Prompt(ap ActivePath) (Prompt, error) {
	nodes, err := t.Context(ap)
	if err != nil {
		return Prompt{}, err
	}
	if t.Mode == ModeBuffer {
		text := PathText(nodes)
		if text == "" {
			return Prompt{}, ErrNothingToContinue
		}
		if t.SystemContext != "" {
			text = t.SystemContext + "\n\n" + text
		}
		return Prompt{Text: text}, nil
	}
	var turns []Turn
	for _, n := range nodes {
		text := n.Content.PlainText()
		if text == "" {
			continue
		}
		role := TurnUser
		if orig := t.nodes[t.Family(n.ID)]; orig != nil && orig.AuthorType == AuthorModel {
			role = TurnAssistant
		}
		turns = append(turns, Turn{Role: role, Text: text})
	}
	if len(turns) == 0 {
		return Prompt{}, ErrNothingToContinue
	}
	if t.SystemContext != "" {
		turns = append([]Turn{{Role: TurnSystem, Text: t.SystemContext}}, turns...)
	}
	return Prompt{Turns: turns}, nil
}
