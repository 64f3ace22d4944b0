package export

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"time"
)

// xmlWriter writes XML by hand, escaping every text and attribute value
// (encoding/xml.EscapeText also turns characters XML 1.0 forbids, such as
// the C0 controls session text carries, into U+FFFD). The first write
// error sticks.
type xmlWriter struct {
	w   *bufio.Writer
	err error
}

func newXMLWriter(w io.Writer) *xmlWriter {
	x := &xmlWriter{w: bufio.NewWriterSize(w, 64<<10)}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	return x
}

func (x *xmlWriter) raw(s string) {
	if x.err == nil {
		_, x.err = x.w.WriteString(s)
	}
}

func (x *xmlWriter) text(s string) {
	if x.err == nil {
		x.err = xml.EscapeText(x.w, []byte(s))
	}
}

// open writes <name a="v" …> (or <name …/> when empty is true); attrs are
// name, value pairs.
func (x *xmlWriter) open(indent int, name string, empty bool, attrs ...string) {
	x.raw(strings.Repeat("  ", indent))
	x.raw("<" + name)
	for i := 0; i+1 < len(attrs); i += 2 {
		x.raw(" " + attrs[i] + `="`)
		x.text(attrs[i+1])
		x.raw(`"`)
	}
	if empty {
		x.raw("/>\n")
	} else {
		x.raw(">")
	}
}

func (x *xmlWriter) close(indent int, name string) {
	if indent >= 0 {
		x.raw(strings.Repeat("  ", indent))
	}
	x.raw("</" + name + ">\n")
}

// element writes <name attrs…>text</name> on one line.
func (x *xmlWriter) element(indent int, name, text string, attrs ...string) {
	x.open(indent, name, false, attrs...)
	x.text(text)
	x.close(-1, name)
}

func (x *xmlWriter) flush() error {
	if x.err == nil {
		x.err = x.w.Flush()
	}
	return x.err
}

// nodeIDs numbers the nodes n0, n1, … for the XML formats, whose ids are
// NMTOKENs: a URI's "/" and "%" are not allowed there.
func nodeIDs(g Graph) map[string]string {
	ids := make(map[string]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[n.ID] = "n" + strconv.Itoa(i)
	}
	return ids
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
