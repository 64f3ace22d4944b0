package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return out.String(), errb.String(), code
}

// `rhizome link` links two items of a library holding the real sessions and
// `rhizome links --json` lists them from both ends ({"item", "outgoing",
// "backlinks"}), broken ones marked; bad input exits non-zero naming what is
// wrong, and writes nothing. Issue 8, "Command line".
func TestLinkCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lib.db")
	if _, code := importJSON(t, db, "../app/samples"); code != 0 {
		t.Fatalf("import exit status %d", code)
	}
	out, errs, code := runCLI(t, "search", "--db", db, "--json", "--limit", "50", "compaction")
	if code != 0 {
		t.Fatalf("search: %d %s", code, errs)
	}
	var res struct {
		Hits []struct{ Kind, NodeID, URI string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	hits := res.Hits
	var nodes []string
	var entry string
	for _, h := range hits {
		if h.NodeID != "" && !strings.Contains(strings.Join(nodes, " "), h.NodeID) {
			nodes = append(nodes, h.NodeID)
		}
		if h.Kind == "entry" && entry == "" {
			entry = h.URI
		}
	}
	if len(nodes) < 2 || entry == "" {
		t.Fatalf("need hits in two nodes and an entry hit: %+v", hits)
	}
	from, to := "rhizome:node/"+nodes[0], "rhizome:node/"+nodes[1]

	out, errs, code = runCLI(t, "link", "--db", db, "--type", "leads to", "--note", "the fix came next", from, to)
	if code != 0 || !strings.Contains(out, from+" led to "+to) {
		t.Fatalf("link: %d %q %q", code, out, errs)
	}
	if _, errs, code = runCLI(t, "link", "--db", db, "--json", from, entry); code != 0 {
		t.Fatalf("link to an entry: %d %s", code, errs)
	}

	out, errs, code = runCLI(t, "links", "--db", db, "--json", from)
	if code != 0 {
		t.Fatalf("links: %d %s", code, errs)
	}
	var v struct {
		Item     struct{ URI string }
		Outgoing []struct {
			Type, Target, Note, Label string
			Broken                    bool
		}
		Backlinks []any
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != 3 || raw["item"] == nil || raw["outgoing"] == nil || raw["backlinks"] == nil {
		t.Fatalf("links --json keys: %s", out)
	}
	json.Unmarshal([]byte(out), &v)
	if v.Item.URI != from || len(v.Outgoing) != 2 || len(v.Backlinks) != 0 {
		t.Fatalf("links of %s: %s", from, out)
	}
	// Grouped by type in the vocabulary's order: RELATES_TO first.
	if o := v.Outgoing[1]; o.Type != "LEADS_TO" || o.Target != to || o.Note != "the fix came next" || o.Broken {
		t.Fatalf("first link %+v", o)
	}
	out, _, _ = runCLI(t, "links", "--db", db, to)
	if !strings.Contains(out, "backlinks: 1") || !strings.Contains(out, "came from") || !strings.Contains(out, "the fix came next") {
		t.Fatalf("links of %s as text:\n%s", to, out)
	}

	// Bad input: the message names what is wrong; nothing is written.
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"link", "--db", db, from}, 2, "give two items"},
		{[]string{"link", "--db", db, "--type", "likes", from, to}, 1, "unknown relation"},
		{[]string{"link", "--db", db, from, "rhizome:node/0000000000000000"}, 1, "not in the library"},
		{[]string{"link", "--db", db, from, "ftp://x"}, 1, "unsupported scheme"},
		{[]string{"links", "--db", db, "node/abc"}, 1, "neither a URI"},
	} {
		_, errs, code := runCLI(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	out, _, _ = runCLI(t, "links", "--db", db, "--json", from)
	json.Unmarshal([]byte(out), &v)
	if len(v.Outgoing) != 2 {
		t.Fatalf("bad input wrote links: %s", out)
	}
	if out, _, code := runCLI(t, "links", "--types"); code != 0 || !strings.Contains(out, "SUPERSEDES") {
		t.Fatalf("links --types: %d %s", code, out)
	}
}
