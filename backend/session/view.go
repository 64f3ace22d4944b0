package session

import (
	"encoding/json"
	"strings"
)

// View is an entry in the form a person reads it: its content as blocks in
// order, with the role, model and tool that produced it, whether it failed,
// and a summary. See ERRATA.md, "The pi session format", for the entry types
// and roles.
type View struct {
	Role     string
	Model    string // "provider/model" for a model_change, else the message's model
	ToolName string
	IsError  bool   // an error result, an assistant stopped by an error, a failed bash command
	Summary  string // compaction and branch summaries
	Blocks   []ViewBlock
}

// ViewBlock is one block of a View: Type is a content block type (BlockText,
// BlockThinking, BlockToolCall, BlockImage, or an unknown type, kept empty)
// or ViewToolResult, the text of a tool's result.
type ViewBlock struct {
	Type      string
	Text      string
	Name      string // a tool call's tool; a custom entry's customType
	Arguments string // a tool call's arguments, as JSON text
	MimeType  string // an image's
	Data      string // an image's bytes, base64
}

// ViewToolResult is the ViewBlock type of the text a tool returned (a
// toolResult message's text blocks, a bash command's output).
const ViewToolResult = "toolResult"

// ViewEntry returns e as a person reads it: message content as blocks
// (toolResult text as ViewToolResult blocks; a bashExecution as a bash tool
// call and its output; an assistant's error message as a last text block),
// compaction and branch summaries as Summary, custom_message content, custom
// data, a label, a session name and a thinking level as text, a model change
// as Model. Other types give no block.
func ViewEntry(e *Entry) View {
	v := View{Blocks: []ViewBlock{}}
	switch e.Type {
	case TypeMessage:
		m := e.Message
		if m == nil {
			break
		}
		v.Role, v.Model, v.ToolName = m.Role, m.Model, m.ToolName
		v.IsError = m.IsError || m.StopReason == "error"
		textType := BlockText
		if m.Role == RoleToolResult {
			textType = ViewToolResult
		}
		v.Blocks = appendViewBlocks(v.Blocks, m.Content, textType)
		switch m.Role {
		case RoleBashExecution:
			args, _ := json.Marshal(map[string]string{"command": m.Command})
			v.ToolName = "bash"
			v.Blocks = append(v.Blocks,
				ViewBlock{Type: BlockToolCall, Name: "bash", Arguments: string(args)},
				ViewBlock{Type: ViewToolResult, Name: "bash", Text: m.Output})
			if m.ExitCode != nil && *m.ExitCode != 0 {
				v.IsError = true
			}
		case RoleBranchSummary, RoleCompactionSummary:
			v.Summary = m.Summary
		case RoleAssistant:
			if m.ErrorMessage != "" {
				v.Blocks = append(v.Blocks, ViewBlock{Type: BlockText, Text: m.ErrorMessage})
			}
		}
	case TypeCompaction, TypeBranchSummary:
		v.Summary = e.Summary
	case TypeCustomMessage:
		v.Blocks = appendViewBlocks(v.Blocks, e.Content, BlockText)
	case TypeCustom:
		if len(e.Data) > 0 {
			v.Blocks = append(v.Blocks, ViewBlock{Type: BlockText, Name: e.CustomType, Text: string(e.Data)})
		}
	case TypeLabel:
		v.Blocks = append(v.Blocks, ViewBlock{Type: BlockText, Text: e.Label})
	case TypeSessionInfo:
		v.Blocks = append(v.Blocks, ViewBlock{Type: BlockText, Text: e.Name})
	case TypeModelChange:
		v.Model = strings.TrimPrefix(e.Provider+"/"+e.ModelID, "/")
	case TypeThinkingLevelChange:
		v.Blocks = append(v.Blocks, ViewBlock{Type: BlockText, Text: "thinking level: " + e.ThinkingLevel})
	}
	return v
}

// appendViewBlocks adds content blocks; text blocks get type textType.
func appendViewBlocks(out []ViewBlock, blocks []Block, textType string) []ViewBlock {
	for _, b := range blocks {
		switch b.Type {
		case BlockText:
			out = append(out, ViewBlock{Type: textType, Text: b.Text})
		case BlockThinking:
			out = append(out, ViewBlock{Type: BlockThinking, Text: b.Thinking})
		case BlockToolCall:
			out = append(out, ViewBlock{Type: BlockToolCall, Name: b.Name, Arguments: string(b.Arguments)})
		case BlockImage:
			out = append(out, ViewBlock{Type: BlockImage, MimeType: b.MimeType, Data: b.Data})
		default:
			out = append(out, ViewBlock{Type: b.Type})
		}
	}
	return out
}
