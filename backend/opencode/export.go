package opencode

// Export: one session's rows as one JSON document (see the package comment,
// "The document").

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"
)

// DocumentFormat is the value of a document's "format" member: what tells
// an OpenCode session document by its content.
const DocumentFormat = "opencode-session"

// DocumentSchema is the version of the document's layout Export writes
// ("schema"); ParseDocument reads it and warns about a later one.
const DocumentSchema = 1

// MaxFileBytes bounds a referenced file Export embeds in a document (16
// MiB); a larger one is named with its size, not embedded.
const MaxFileBytes = 16 << 20

// jsonColumns are the text columns, per table, that OpenCode fills with
// JSON text: Export writes their values as JSON, not as strings.
var jsonColumns = map[string]map[string]bool{
	"message": {"data": true},
	"part":    {"data": true},
	"session": {"model": true, "permission": true, "summary_diffs": true, "metadata": true, "revert": true},
	"project": {"sandboxes": true, "commands": true},
}

// Export returns the session id's rows as OpenCode stored them, as one
// JSON document (see the package comment, "The document"): the session
// row, its project's row, its message rows (time_created, then id: the
// order OpenCode reads them in) each with its part rows (by id) and the
// tool-output files its parts name, its todo rows (by position), and,
// for a fork, the session it was forked from. Columns are written in
// table order with their values as stored (integers, reals, text; JSON
// text columns as the JSON they hold; NULL as null); the same database
// state gives the same bytes. All rows are read in one read transaction
// (one consistent snapshot, no lock held afterwards).
//
// A referenced file that cannot be read is named in the document as
// missing (ParseDocument reports it), not an error. The error matches
// ErrNotFound for an id the database does not hold; other errors name the
// database and what failed.
func (d *DB) Export(ctx context.Context, id string) ([]byte, error) {
	var sess row
	var project, msgs, todos []row
	var parts map[string][]row
	var fork *ForkOf
	var have map[string]bool
	err := d.read(ctx, "unable to export session "+id, func(tx *sql.Tx) error {
		var err error
		if have, err = tables(ctx, tx); err != nil {
			return d.errorf("unable to export session "+id, err)
		}
		if !have["session"] {
			return fmt.Errorf("opencode: %s has no session table: not an OpenCode database", d.path)
		}
		ss, err := readRows(ctx, tx, `SELECT * FROM session WHERE id = ?`, id)
		if err != nil {
			return d.errorf("unable to read session "+id, err)
		}
		if len(ss) == 0 {
			return fmt.Errorf("opencode: %s: session %s: %w", d.path, id, ErrNotFound)
		}
		sess = ss[0]
		project, msgs, todos, parts = nil, nil, nil, map[string][]row{}
		if have["project"] {
			if project, err = readRows(ctx, tx, `SELECT * FROM project WHERE id = ?`, sess.text("project_id")); err != nil {
				return d.errorf("unable to read the project of session "+id, err)
			}
		}
		if have["message"] {
			if msgs, err = readRows(ctx, tx, `SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id`, id); err != nil {
				return d.errorf("unable to read the messages of session "+id, err)
			}
		}
		if have["part"] && have["message"] {
			// By message, through part's (message_id, id) index: part has no
			// index on session_id.
			rows, err := readRows(ctx, tx, `SELECT * FROM part WHERE message_id IN (SELECT id FROM message WHERE session_id = ?) ORDER BY message_id, id`, id)
			if err != nil {
				return d.errorf("unable to read the parts of session "+id, err)
			}
			for _, r := range rows {
				m := r.text("message_id")
				parts[m] = append(parts[m], r)
			}
		}
		if have["todo"] {
			if todos, err = readRows(ctx, tx, `SELECT * FROM todo WHERE session_id = ? ORDER BY position`, id); err != nil {
				return d.errorf("unable to read the todos of session "+id, err)
			}
		}
		if fork, err = findForkOf(ctx, tx, sess, msgs); err != nil {
			return d.errorf("unable to look for the session "+id+" was forked from", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	w := newDocWriter()
	w.raw(`{"format":`)
	w.str(DocumentFormat)
	w.raw(`,"schema":` + strconv.Itoa(DocumentSchema) + ",\n")
	w.raw(`"session":`)
	w.row("session", sess, true)
	if len(project) > 0 {
		w.raw(",\n\"project\":")
		w.row("project", project[0], true)
	}
	w.raw(",\n\"messages\":[")
	for i, m := range msgs {
		w.sep(i)
		w.row("message", m, false)
		ps := parts[m.text("id")]
		w.raw(`,"parts":[`)
		var files []fileRef
		for j, p := range ps {
			w.sep(j)
			w.row("part", p, true)
			if f, ok := referencedFile(p); ok {
				files = append(files, f)
			}
		}
		w.raw("]")
		if len(files) > 0 {
			w.raw(`,"files":[`)
			for j, f := range files {
				w.sep(j)
				w.file(d.dir, f)
			}
			w.raw("]")
		}
		w.raw("}")
	}
	w.raw("]")
	if have["todo"] {
		w.raw(",\n\"todos\":[")
		for i, t := range todos {
			w.sep(i)
			w.row("todo", t, true)
		}
		w.raw("]")
	}
	if fork != nil {
		w.raw(",\n\"fork_of\":")
		b, _ := json.Marshal(fork)
		w.buf.Write(b)
	}
	w.raw("}\n")
	return w.buf.Bytes(), nil
}

// docWriter writes a document: JSON without HTML escaping (tool outputs
// are full of '<').
type docWriter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newDocWriter() *docWriter {
	w := &docWriter{}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	return w
}

func (w *docWriter) raw(s string) { w.buf.WriteString(s) }

// sep starts element i of a list on a line of its own.
func (w *docWriter) sep(i int) {
	if i > 0 {
		w.raw(",")
	}
	w.raw("\n")
}

// str writes s as a JSON string (invalid UTF-8 would become U+FFFD:
// column text that is not UTF-8 goes through text instead).
func (w *docWriter) str(s string) {
	_ = w.enc.Encode(s) // a string always encodes
	w.buf.Truncate(w.buf.Len() - 1)
}

// row writes r as an object of its columns in table order; close ends it.
func (w *docWriter) row(table string, r row, close bool) {
	w.raw("{")
	for i, c := range r.cols {
		if i > 0 {
			w.raw(",")
		}
		w.str(c)
		w.raw(":")
		w.value(r.vals[i], jsonColumns[table][c])
	}
	if close {
		w.raw("}")
	}
}

// value writes a column value as stored: null, a number, a string (text
// with invalid UTF-8, and blobs, as {"base64": ...} so that no byte is
// lost), or for a JSON text column the JSON it holds (a string when it is
// not valid JSON).
func (w *docWriter) value(v any, isJSON bool) {
	switch v := v.(type) {
	case nil:
		w.raw("null")
	case int64:
		w.buf.WriteString(strconv.FormatInt(v, 10))
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			w.str(strconv.FormatFloat(v, 'g', -1, 64)) // JSON has no infinity
			return
		}
		b, _ := json.Marshal(v)
		w.buf.Write(b)
	case bool:
		w.raw(strconv.FormatBool(v))
	case string:
		w.text([]byte(v), isJSON)
	case []byte:
		w.text(v, isJSON)
	case time.Time:
		w.str(v.UTC().Format(time.RFC3339Nano))
	default:
		w.str(fmt.Sprint(v))
	}
}

func (w *docWriter) text(b []byte, isJSON bool) {
	switch {
	case isJSON && json.Valid(b):
		w.buf.Write(b)
	case utf8.Valid(b):
		w.str(string(b))
	default:
		w.raw(`{"base64":`)
		w.str(base64.StdEncoding.EncodeToString(b))
		w.raw("}")
	}
}

// fileRef is a file a part names: a truncated tool output's full text
// (state.metadata.outputPath, or "Full output saved to: <path>" in the
// output), kept by OpenCode in tool-output/ beside the database.
type fileRef struct {
	Part string // the part's id
	Path string // the path as OpenCode stored it
}

var savedTo = regexp.MustCompile(`Full output saved to: (\S+)`)

// referencedFile returns the file a tool part names, if any.
func referencedFile(p row) (fileRef, bool) {
	data := p.text("data")
	if !bytes.Contains([]byte(data), []byte("tool-output")) {
		return fileRef{}, false
	}
	var v struct {
		Type  string `json:"type"`
		State struct {
			Output   any `json:"output"`
			Metadata struct {
				OutputPath any `json:"outputPath"`
			} `json:"metadata"`
		} `json:"state"`
	}
	if json.Unmarshal([]byte(data), &v) != nil || v.Type != "tool" {
		return fileRef{}, false
	}
	path, _ := v.State.Metadata.OutputPath.(string)
	if path == "" {
		if out, ok := v.State.Output.(string); ok {
			if m := savedTo.FindStringSubmatch(out); m != nil {
				path = m[1]
			}
		}
	}
	if path == "" {
		return fileRef{}, false
	}
	return fileRef{Part: p.text("id"), Path: path}, true
}

// file writes a referenced file's object: {"part", "name"
// ("tool-output/<file>"), "path" (as stored), "size" and "text" (or
// "base64", for bytes that are not UTF-8)}, or "missing": true with
// "error", or "omitted" for a file over MaxFileBytes. Only a file of that
// name in tool-output/ beside the database is read: a path stored in the
// database is not followed elsewhere.
func (w *docWriter) file(dir string, f fileRef) {
	base := filepath.Base(f.Path)
	name := "tool-output/" + base
	w.raw(`{"part":`)
	w.str(f.Part)
	w.raw(`,"name":`)
	w.str(name)
	w.raw(`,"path":`)
	w.str(f.Path)
	defer w.raw("}")
	missing := func(why string) {
		w.raw(`,"missing":true,"error":`)
		w.str(why)
	}
	if base == "." || base == ".." || base == "/" || !safeName.MatchString(base) {
		missing("not a file name OpenCode gives a tool output")
		return
	}
	local := filepath.Join(dir, "tool-output", base)
	st, err := os.Stat(local)
	if err != nil {
		missing(err.Error())
		return
	}
	w.raw(`,"size":` + strconv.FormatInt(st.Size(), 10))
	if st.Size() > MaxFileBytes {
		w.raw(`,"omitted":`)
		w.str(fmt.Sprintf("over the %d-byte limit", MaxFileBytes))
		return
	}
	b, err := os.ReadFile(local)
	if err != nil {
		missing(err.Error())
		return
	}
	if utf8.Valid(b) {
		w.raw(`,"text":`)
		w.str(string(b))
	} else {
		w.raw(`,"base64":`)
		w.str(base64.StdEncoding.EncodeToString(b))
	}
}

var safeName = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ForkOf is what Export found a fork to be copied from: OpenCode's fork
// leaves no link (parent_id stays NULL), but copies the messages with new
// ids and their original time_created, all before the fork's own
// time_created. The session holding messages of those times (and roles),
// in order, is the one forked; Messages pairs each copy with its
// original, [copy id, original id], in order.
type ForkOf struct {
	Session  string      `json:"session"`
	Messages [][2]string `json:"messages"`
}

// forkCandidates bounds the sessions Export checks for a fork's original.
const forkCandidates = 64

var forkSuffix = regexp.MustCompile(` \(fork #\d+\)$`)

// findForkOf finds the session sess (with its messages msgs) was forked
// from, nil when it is no fork or the original is gone.
func findForkOf(ctx context.Context, q querier, sess row, msgs []row) (*ForkOf, error) {
	if sess.text("parent_id") != "" {
		return nil, nil // a sub-agent
	}
	created := sess.integer("time_created")
	var copied []row
	for _, m := range msgs {
		if m.integer("time_created") >= created {
			break
		}
		copied = append(copied, m)
	}
	if len(copied) == 0 {
		return nil, nil
	}
	first, last := copied[0].integer("time_created"), copied[len(copied)-1].integer("time_created")
	title := forkSuffix.ReplaceAllString(sess.text("title"), "")
	cands, err := readRows(ctx, q, `SELECT id FROM session WHERE id != ? AND project_id = ? AND time_created <= ?
		ORDER BY title = ? DESC, time_created DESC LIMIT `+strconv.Itoa(forkCandidates),
		sess.text("id"), sess.text("project_id"), first, title)
	if err != nil {
		return nil, err
	}
	for _, c := range cands {
		orig, err := readRows(ctx, q, `SELECT id, time_created, data FROM message WHERE session_id = ? AND time_created BETWEEN ? AND ? ORDER BY time_created, id`,
			c.text("id"), first, last)
		if err != nil {
			return nil, err
		}
		if pairs, ok := matchCopies(copied, orig); ok {
			return &ForkOf{Session: c.text("id"), Messages: pairs}, nil
		}
	}
	return nil, nil
}

// matchCopies pairs each copied message with the next original of the
// same time_created and role, in order; ok when every copy has one.
func matchCopies(copied, orig []row) ([][2]string, bool) {
	role := func(r row) string {
		var v struct {
			Role string `json:"role"`
		}
		_ = json.Unmarshal([]byte(r.text("data")), &v)
		return v.Role
	}
	pairs := make([][2]string, 0, len(copied))
	j := 0
	for _, c := range copied {
		t, rc := c.integer("time_created"), role(c)
		for j < len(orig) && (orig[j].integer("time_created") != t || role(orig[j]) != rc) {
			j++
		}
		if j == len(orig) {
			return nil, false
		}
		pairs = append(pairs, [2]string{c.text("id"), orig[j].text("id")})
		j++
	}
	return pairs, true
}
