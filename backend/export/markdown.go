package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Note is one note of the Markdown export.
type Note struct {
	Name    string // the note's name: its file name without ".md", what [[links]] name
	NodeID  string // the node it is about
	Content string // YAML front matter, then markdown
}

// File is the note's file name.
func (n Note) File() string { return n.Name + ".md" }

// maxNameRunes bounds a note's name, before a " (2)" suffix.
const maxNameRunes = 80

// MarkdownNotes turns g into Obsidian-style notes, one per node:
//
//   - the name is the node's label made safe for a file and a link (no
//     [ ] # ^ | \ / : * " < > ?, no control characters, no leading dot,
//     no Windows device name, at most 80 runes), "kind id" when the label
//     is empty; names that repeat (ignoring case, as macOS and Windows do)
//     get " (2)", " (3)", …;
//   - YAML front matter between "---" lines at byte 0: id (the URI), kind,
//     time (YYYY-MM-DDTHH:mm:ss, UTC), tags ["rhizome/<kind>"], the node's
//     attributes, and one list property per relation named after it in
//     lower snake case (supersedes: ["[[Decision 12]]"]); strings are
//     JSON-quoted, which YAML reads as double-quoted scalars;
//   - the body: the label as a heading, the text, and a "Relations" list
//     with each edge's type, [[link]], confidence, maker and rationale.
//
// A directed edge is listed on its source's note (Obsidian shows the
// backlink on the target's), a symmetric one on both.
//
// See interchange-formats.md, "Obsidian-style Markdown export".
func MarkdownNotes(g Graph) ([]Note, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	names := make(map[string]string, len(g.Nodes)) // node id -> note name
	taken := map[string]bool{}
	for _, n := range g.Nodes {
		base := safeName(n.Label)
		if base == "" {
			base = safeName(n.Kind + " " + shortID(n.ID))
		}
		if base == "" {
			base = "Untitled"
		}
		name := base
		for i := 2; taken[strings.ToLower(name)]; i++ {
			name = fmt.Sprintf("%s (%d)", base, i)
		}
		taken[strings.ToLower(name)] = true
		names[n.ID] = name
	}
	type rel struct {
		typ, other string
		e          Edge
	}
	rels := map[string][]rel{}
	for _, e := range g.Edges {
		rels[e.Source] = append(rels[e.Source], rel{e.Type, e.Target, e})
		if !e.Directed {
			rels[e.Target] = append(rels[e.Target], rel{e.Type, e.Source, e})
		}
	}
	notes := make([]Note, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		var b strings.Builder
		b.WriteString("---\n")
		prop := func(key string, v any) {
			b.WriteString(key)
			b.WriteString(": ")
			b.WriteString(yamlValue(v))
			b.WriteString("\n")
		}
		prop("id", n.ID)
		prop("kind", n.Kind)
		if !n.Time.IsZero() {
			b.WriteString("time: " + n.Time.UTC().Format("2006-01-02T15:04:05") + "\n")
		}
		prop("tags", []string{"rhizome/" + tagPart(n.Kind)})
		if short := shortLabel(n.Label); short != names[n.ID] && n.Label != "" {
			prop("aliases", []string{inert(strings.Join(strings.Fields(n.Label), " "))})
		}
		byType := map[string][]string{}
		var types []string
		for _, r := range rels[n.ID] {
			key := propertyName(r.typ)
			if _, ok := byType[key]; !ok {
				types = append(types, key)
			}
			link := "[[" + names[r.other] + "]]"
			if !containsString(byType[key], link) {
				byType[key] = append(byType[key], link)
			}
		}
		sort.Strings(types)
		used := map[string]bool{"id": true, "kind": true, "time": true, "tags": true, "aliases": true, "cssclasses": true}
		for _, t := range types {
			used[t] = true
		}
		attrNames := make([]string, 0, len(n.Attrs))
		for k := range n.Attrs {
			attrNames = append(attrNames, k)
		}
		sort.Strings(attrNames)
		for _, k := range attrNames {
			key := k
			if used[key] {
				key = "attr_" + k
			}
			prop(key, n.Attrs[k])
		}
		for _, t := range types {
			prop(t, byType[t])
		}
		b.WriteString("---\n\n# ")
		heading := strings.ReplaceAll(inert(strings.Join(strings.Fields(n.Label), " ")), "#", `\#`)
		if heading == "" {
			heading = names[n.ID]
		}
		b.WriteString(heading)
		b.WriteString("\n")
		if t := strings.TrimSpace(inert(n.Text)); t != "" {
			b.WriteString("\n")
			b.WriteString(t)
			b.WriteString("\n")
		}
		if len(rels[n.ID]) > 0 {
			b.WriteString("\n## Relations\n\n")
			for _, r := range rels[n.ID] {
				fmt.Fprintf(&b, "- %s [[%s]] (confidence %s", r.typ, names[r.other], formatFloat(r.e.Confidence))
				if r.e.CreatedBy != "" {
					b.WriteString(", " + r.e.CreatedBy)
				}
				b.WriteString(")")
				if why := strings.Join(strings.Fields(inert(r.e.Rationale)), " "); why != "" {
					b.WriteString(": " + why)
				}
				b.WriteString("\n")
			}
		}
		notes = append(notes, Note{Name: names[n.ID], NodeID: n.ID, Content: b.String()})
	}
	return notes, nil
}

// WriteMarkdown writes the notes of g (see MarkdownNotes) into dir, which is
// created when missing and must otherwise be empty: an export never
// overwrites a person's notes. Files are written 0644, the folder 0755. On
// a write error the notes written so far are removed.
func WriteMarkdown(dir string, g Graph) error {
	notes, err := MarkdownNotes(g)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: unable to create %s: %w", dir, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("export: unable to read %s: %w", dir, err)
	}
	if len(entries) > 0 {
		return fmt.Errorf("export: %s is not empty (%d entries); choose an empty or new folder", dir, len(entries))
	}
	var written []string
	for _, n := range notes {
		p := filepath.Join(dir, n.File())
		if err := os.WriteFile(p, []byte(n.Content), 0o644); err != nil {
			for _, w := range written {
				os.Remove(w)
			}
			return fmt.Errorf("export: unable to write note %s: %w", p, err)
		}
		written = append(written, p)
	}
	return nil
}

// yamlValue writes a front matter value: JSON, which YAML reads (strings as
// double-quoted scalars, lists as flow sequences).
func yamlValue(v any) string {
	switch x := v.(type) {
	case string:
		v = clean(x)
	case []string:
		c := make([]string, len(x))
		for i, s := range x {
			c[i] = clean(s)
		}
		v = c
	case float64:
		return formatFloat(x)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return `""`
	}
	return strings.TrimSpace(buf.String())
}

// inert cleans text from a session or a model for a note: control
// characters dropped (see clean) and wiki-link brackets escaped, so that
// "[[x]]" in the text is shown, not followed (and not a dangling link).
func inert(s string) string {
	return strings.NewReplacer("[[", `\[\[`, "]]", `\]\]`).Replace(clean(s))
}

// clean drops control characters but tab and newline, and invalid UTF-8.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return r
		}
		if r == utf8.RuneError || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// safeName makes a label a file and link name (see MarkdownNotes).
func safeName(label string) string {
	s := strings.Map(func(r rune) rune {
		if strings.ContainsRune(`[]#^|\/:*"<>?`, r) || unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, label)
	s = strings.Join(strings.Fields(s), " ")
	s = strings.TrimLeft(s, ". ")
	if r := []rune(s); len(r) > maxNameRunes {
		cut := string(r[:maxNameRunes])
		if i := strings.LastIndexByte(cut, ' '); i > maxNameRunes/2 {
			cut = cut[:i]
		}
		s = cut
	}
	s = strings.TrimRight(s, ". ")
	base, _, _ := strings.Cut(strings.ToUpper(s), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		s += " (note)"
	}
	return s
}

// shortID is the last part of a URI, at most 12 characters.
func shortID(id string) string {
	if i := strings.LastIndexAny(id, "/:"); i >= 0 {
		id = id[i+1:]
	}
	if len(id) > 12 {
		id = id[:12]
	}
	return id
}

// propertyName is a relation as a front matter key: "RELATES_TO" ->
// "relates_to", "tree_jump" -> "tree_jump".
func propertyName(typ string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(typ) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	s := strings.TrimRight(b.String(), "_")
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		s = "rel_" + s
	}
	return s
}

// tagPart makes a kind a tag part: no spaces, not purely numeric.
func tagPart(kind string) string {
	p := propertyName(kind)
	return strings.ReplaceAll(p, "_", "-")
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
