package llm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// JSONSchema asks a Request for structured output: the answer is one JSON
// object that should be valid against Schema. How each provider is asked:
//
//   - OpenAI-compatible: "response_format": {"type": "json_schema",
//     "json_schema": {"name", "description", "schema", "strict"}} (OpenAI's
//     "Structured Outputs"). A server that answers 400 (or 422) to it is
//     asked again with {"type": "json_object"} ("JSON mode") and then with
//     no response_format at all; in those two modes the schema goes into
//     the system message with the instruction to reply with one JSON object
//     only. The client remembers the mode that worked, so later requests
//     start from it (see OpenAI).
//   - Anthropic: a forced tool call, "tools": [{"name", "description",
//     "input_schema"}] with "tool_choice": {"type": "tool", "name"}; the
//     tool_use block's input is the object.
//
// Completion.JSON carries the object's text as received, unvalidated:
// checking it against the schema is the caller's work, as is asking again.
type JSONSchema struct {
	// Name names the schema (OpenAI json_schema.name, Anthropic tool name):
	// 1 to 64 of a-z, A-Z, 0-9, _ and -.
	Name string `json:"name"`
	// Description says what the object is for; the model reads it.
	Description string `json:"description,omitempty"`
	// Schema is a JSON Schema whose top level is {"type": "object", ...}.
	Schema json.RawMessage `json:"schema"`
	// Strict asks OpenAI to constrain decoding to the schema, which must
	// then keep to OpenAI's strict subset: every object lists all its
	// properties in "required" and has "additionalProperties": false.
	Strict bool `json:"strict,omitempty"`
}

// StructuredMode says how a structured answer was asked for.
type StructuredMode string

// The ways a structured answer is asked for, from the strongest: a schema
// the server enforces, valid JSON the server enforces, the instruction
// alone, and Anthropic's forced tool call.
const (
	ModeJSONSchema StructuredMode = "json_schema"
	ModeJSONObject StructuredMode = "json_object"
	ModePrompt     StructuredMode = "prompt"
	ModeTool       StructuredMode = "tool"
)

var schemaName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// validate reports what is wrong with s, by field.
func (s *JSONSchema) validate() error {
	if !schemaName.MatchString(s.Name) {
		return fmt.Errorf("llm: request field jsonSchema.name: %q, want 1 to 64 of a-z, A-Z, 0-9, _ and -", s.Name)
	}
	var top struct {
		Type any `json:"type"`
	}
	if len(bytes.TrimSpace(s.Schema)) == 0 {
		return fmt.Errorf("llm: request field jsonSchema.schema: empty")
	}
	if err := json.Unmarshal(s.Schema, &top); err != nil {
		return fmt.Errorf("llm: request field jsonSchema.schema: not a JSON object: %v", err)
	}
	if top.Type != "object" {
		return fmt.Errorf("llm: request field jsonSchema.schema: top-level type %v, want \"object\"", top.Type)
	}
	return nil
}

// compactSchema is s.Schema without insignificant white space, for
// prompts and request bodies.
func (s *JSONSchema) compactSchema() json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, s.Schema); err != nil {
		return s.Schema
	}
	return b.Bytes()
}

// schemaInstruction is what the system message says when the server does
// not enforce the schema (ModeJSONObject and ModePrompt). It names JSON, as
// OpenAI's JSON mode requires of the messages.
func schemaInstruction(s *JSONSchema) string {
	var b strings.Builder
	b.WriteString("Reply with one JSON object and nothing else: no Markdown code fence, no text before or after it.")
	if s.Description != "" {
		b.WriteString(" The object is " + strings.TrimRight(s.Description, ".") + ".")
	}
	b.WriteString(" It must be valid against this JSON Schema:\n")
	b.Write(s.compactSchema())
	return b.String()
}

// withInstruction returns messages with the schema instruction appended to
// the first system message, or put first in a new one when there is none.
// Some chat templates (llama.cpp, vLLM) accept only one system message, at
// the start: the instruction joins it rather than adding another.
func withInstruction(messages []Message, s *JSONSchema) []Message {
	instr := schemaInstruction(s)
	out := make([]Message, 0, len(messages)+1)
	done := false
	for _, m := range messages {
		if !done && m.Role == RoleSystem {
			m.Text = strings.TrimRight(m.Text, "\n") + "\n\n" + instr
			done = true
		}
		out = append(out, m)
	}
	if !done {
		out = append([]Message{{Role: RoleSystem, Text: instr}}, out...)
	}
	return out
}

// ExtractJSON returns the JSON object a model's text reply holds: the text
// without surrounding white space and without a Markdown code fence around
// it (```json ... ```); then, unless it is valid JSON as it is, the part
// from the first "{" to the last "}" when that part is valid JSON (prose
// before or after the object dropped). Otherwise the text is kept as it
// is, so that a reply cut off mid-object reaches the caller's decoder,
// and the model's retry, as the model wrote it.
func ExtractJSON(text string) string {
	s := strings.TrimSpace(text)
	if strings.HasPrefix(s, "```") {
		if nl := strings.IndexByte(s, '\n'); nl >= 0 {
			s = s[nl+1:]
		} else {
			s = strings.TrimLeft(s, "`")
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "```"))
	}
	if json.Valid([]byte(s)) {
		return s
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i >= 0 && j > i && json.Valid([]byte(s[i:j+1])) {
		return s[i : j+1]
	}
	if i > 0 && !strings.HasPrefix(s, "{") {
		return s[i:]
	}
	return s
}
