// Package clinetest builds Cline conversations for tests and benchmarks
// from the real ones the real program wrote (../testdata/cline-home).
package clinetest

import (
	"bytes"
	"errors"
	"fmt"

	"rhizome/backend/sessiondoc"
)

// Growing is a Cline conversation (a <id>.messages.json document) made of
// a real one's messages again and again, each copy under ids of its own
// ("r<n>-" before the original id), as long as a test needs it.
type Growing struct {
	full       []byte
	msgs       []sessiondoc.Span
	head, tail []byte
	body       bytes.Buffer
	n          int
}

// NewGrowing starts a conversation from the real document real, with no
// message yet. The error says what real lacks (a "messages" list with at
// least one message).
func NewGrowing(real []byte) (*Growing, error) {
	top, ok := sessiondoc.Members(real, sessiondoc.Span{Start: 0, End: len(real)})
	if !ok {
		return nil, errors.New("clinetest: the conversation is no JSON object")
	}
	list, ok := sessiondoc.Find(top, "messages")
	if !ok {
		return nil, errors.New(`clinetest: the conversation has no "messages"`)
	}
	msgs, _ := sessiondoc.Elements(real, list)
	if len(msgs) == 0 {
		return nil, errors.New("clinetest: the conversation has no message")
	}
	return &Growing{full: real, msgs: msgs, head: real[:msgs[0].Start], tail: real[msgs[len(msgs)-1].End:]}, nil
}

// Add appends the next message: the real ones in turn, each under new ids.
func (g *Growing) Add() {
	m := g.msgs[g.n%len(g.msgs)]
	if g.n > 0 {
		g.body.WriteString(",\n    ")
	}
	g.body.Write(bytes.Replace(g.full[m.Start:m.End], []byte(`"id": "`), []byte(fmt.Sprintf(`"id": "r%d-`, g.n)), 1))
	g.n++
}

// Grow adds messages until the document holds at least size bytes.
func (g *Growing) Grow(size int) {
	for g.Len() < size {
		g.Add()
	}
}

// Len is the document's size in bytes.
func (g *Growing) Len() int { return len(g.head) + g.body.Len() + len(g.tail) }

// Bytes is the document as it stands (a new slice).
func (g *Growing) Bytes() []byte {
	return append(append(append(make([]byte, 0, g.Len()), g.head...), g.body.Bytes()...), g.tail...)
}
