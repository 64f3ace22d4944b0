package link

import (
	"strings"
	"testing"
)

func TestMentions(t *testing.T) {
	type m struct {
		span, target, alias string
		item                Item
		err                 string
	}
	for _, tc := range []struct {
		name, text string
		want       []m
	}{
		{"none", "plain text [with] brackets ] and [ alone", nil},
		{"query", "see [[login rate limit]] later", []m{{span: "[[login rate limit]]", target: "login rate limit"}}},
		{"uri with alias", "from [[rhizome:session/" + sessionID + " | the docs review]].",
			[]m{{span: "[[rhizome:session/" + sessionID + " | the docs review]]", target: "rhizome:session/" + sessionID,
				alias: "the docs review", item: Session(sessionID)}}},
		{"entry and loom", "[[rhizome:entry/s/e]] and [[rhizome:loom/t/n]]", []m{
			{span: "[[rhizome:entry/s/e]]", target: "rhizome:entry/s/e", item: Entry("s", "e")},
			{span: "[[rhizome:loom/t/n]]", target: "rhizome:loom/t/n", item: LoomNode("t", "n")},
		}},
		{"url and path", "[[https://github.com/badlogic/pi-mono/issues/288]] [[/srv/app/main.go|main]]", []m{
			{span: "[[https://github.com/badlogic/pi-mono/issues/288]]", target: "https://github.com/badlogic/pi-mono/issues/288",
				item: URL("https://github.com/badlogic/pi-mono/issues/288")},
			{span: "[[/srv/app/main.go|main]]", target: "/srv/app/main.go", alias: "main", item: File("/srv/app/main.go")},
		}},
		{"broken uri", "[[rhizome:nodes/x]]", []m{{span: "[[rhizome:nodes/x]]", target: "rhizome:nodes/x", err: `unknown kind "nodes"`}}},
		{"unsafe scheme is a query", "[[javascript:alert(1)]]", []m{{span: "[[javascript:alert(1)]]", target: "javascript:alert(1)"}}},
		{"empty", "[[]] [[ ]] [[|alias]]", nil},
		{"unclosed", "[[never closed", nil},
		{"newline", "[[across\nlines]]", nil},
		{"restart at inner", "[[outer [[inner]]", []m{{span: "[[inner]]", target: "inner"}}},
		{"triple bracket", "[[[x]]]", []m{{span: "[[x]]", target: "x"}}},
		{"escaped", `\[[not a mention]] but [[this]]`, []m{{span: "[[this]]", target: "this"}}},
		{"inline code", "`[[code]]` and ``x [[code]] y`` then [[real]]", []m{{span: "[[real]]", target: "real"}}},
		{"fenced code", "```go\nx := a[[0]]\n```\n~~~\n[[no]]\n~~~\nafter [[yes]]", []m{{span: "[[yes]]", target: "yes"}}},
		{"unclosed fence hides the rest", "```\n[[no]]", nil},
		{"non-ASCII offsets", "Zürich → [[Straße]] ✓", []m{{span: "[[Straße]]", target: "Straße"}}},
		{"too long", "[[" + strings.Repeat("x", MaxMentionBytes+1) + "]]", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Mentions(tc.text)
			if len(got) != len(tc.want) {
				t.Fatalf("Mentions(%q) = %+v, want %d mentions", tc.text, got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if span := tc.text[g.Start:g.End]; span != w.span {
					t.Errorf("mention %d spans %q, want %q", i, span, w.span)
				}
				if g.Target != w.target || g.Alias != w.alias || g.Item != w.item {
					t.Errorf("mention %d = %+v, want target %q alias %q item %#v", i, g, w.target, w.alias, w.item)
				}
				switch {
				case w.err == "" && g.Err != nil:
					t.Errorf("mention %d: unexpected error %v", i, g.Err)
				case w.err != "" && (g.Err == nil || !strings.Contains(g.Err.Error(), w.err)):
					t.Errorf("mention %d: error %v, want one containing %q", i, g.Err, w.err)
				}
				if wantQuery := w.item.Kind == "" && w.err == ""; g.IsQuery() != wantQuery {
					t.Errorf("mention %d: IsQuery() = %v, want %v", i, g.IsQuery(), wantQuery)
				}
			}
		})
	}
}

// A mention reads as its chip: the alias, else the target; code keeps its brackets.
func TestReadable(t *testing.T) {
	for in, want := range map[string]string{
		"And then, as in [[rhizome:node/6e5e069b2e7aece1|Write a little poem]], moss again.": "And then, as in Write a little poem, moss again.",
		"See [[login rate limit]] and [[https://example.com/a]].":                            "See login rate limit and https://example.com/a.",
		"No mention here.":                 "No mention here.",
		"In code: `[[not|a mention]]` ok.": "In code: `[[not|a mention]]` ok.",
		"[[a|b]][[c]]":                     "bc",
	} {
		if got := Readable(in); got != want {
			t.Errorf("Readable(%q) = %q, want %q", in, got, want)
		}
	}
}
