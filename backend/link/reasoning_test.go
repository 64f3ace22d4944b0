package link

import (
	"strings"
	"testing"
)

// A reasoning graph's id is a ULID; its nodes are MemoBrain's integer ids.
const (
	graphID       = "01JH8Z6Q9B2C3D4E5F6G7H8J9K"
	reasoningNode = "7"
)

// Reasoning graphs (issue 12) and their nodes have rhizome: URIs like loom
// trees and loom nodes: rhizome:reasoning/<graphId>[/<nodeId>].
func TestReasoningURIs(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want Item
	}{
		{"rhizome:reasoning/" + graphID, Reasoning(graphID)},
		{"rhizome:reasoning/" + graphID + "/" + reasoningNode, ReasoningNode(graphID, reasoningNode)},
	} {
		got, err := Parse(tc.uri)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.uri, err)
		}
		if got != tc.want {
			t.Errorf("Parse(%q) = %#v, want %#v", tc.uri, got, tc.want)
		}
		if s := tc.want.String(); s != tc.uri {
			t.Errorf("%#v.String() = %q, want %q", tc.want, s, tc.uri)
		}
		if !got.InLibrary() {
			t.Errorf("%q is not in the library", tc.uri)
		}
	}
	if it := ReasoningNode(graphID, reasoningNode); it.Kind != KindReasoningNode || it.Within != graphID || it.ID != reasoningNode {
		t.Errorf("ReasoningNode = %#v", it)
	}
}

func TestReasoningURIErrors(t *testing.T) {
	for _, tc := range []struct{ uri, want string }{
		{"rhizome:reasoning", "rhizome:reasoning/<graphId> or rhizome:reasoning/<graphId>/<nodeId>"},
		{"rhizome:reasoning/a/b/c", "rhizome:reasoning/<graphId> or rhizome:reasoning/<graphId>/<nodeId>"},
		{"rhizome:reasoning//7", "segment 1 is empty"},
		{"rhizome:reasoning/" + graphID + "/", "segment 2 is empty"},
	} {
		_, err := Parse(tc.uri)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.uri, err, tc.want)
		}
	}
	for _, tc := range []struct {
		it   Item
		want string
	}{
		{ReasoningNode("", reasoningNode), "field graphId is empty"},
		{ReasoningNode(graphID, ""), "field id is empty"},
		{Item{Kind: KindReasoning, ID: graphID, Within: "x"}, "field within must be empty"},
	} {
		if err := tc.it.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%#v.Validate() = %v, want an error containing %q", tc.it, err, tc.want)
		}
	}
}
