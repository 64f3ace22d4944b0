package loom

import (
	"errors"
	"reflect"
	"testing"
)

// What a model is asked to continue. Dialogue: chat turns, system context
// first, a node's turn its original author's (an edited model reply stays
// the assistant's), excluded nodes and annotations left out. Buffer: the
// system context, a blank line, the path's text.
func TestPrompt(t *testing.T) {
	d, root, a, b, c1, _ := dialogueTree(t)
	d.SystemContext = "Be brief."
	a2 := mustEdit(t, d, a, "Moths use the moon.")
	b2 := mustAdd(t, d, a2, "And lamps?", human)
	if _, err := d.Annotate(a2.ID, Text("a note"), human); err != nil {
		t.Fatal(err)
	}
	got, err := d.Prompt(ActivePath{NodeID: b2.ID})
	want := Prompt{Turns: []Turn{{TurnSystem, "Be brief."}, {TurnUser, root.Content.Text},
		{TurnAssistant, "Moths use the moon."}, {TurnUser, "And lamps?"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("dialogue Prompt = %+v, %v\nwant %+v", got, err, want)
	}
	_ = d.SetExcluded(b.ID, true)
	d.SystemContext = ""
	got, err = d.Prompt(ActivePath{NodeID: c1.ID})
	want = Prompt{Turns: []Turn{{TurnUser, root.Content.Text}, {TurnAssistant, a.Content.Text}, {TurnAssistant, c1.Content.Text}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("dialogue Prompt with b excluded = %+v, %v\nwant %+v", got, err, want)
	}
	if _, err := d.Prompt(ActivePath{NodeID: "nope"}); err == nil {
		t.Error("Prompt of an unknown node succeeded")
	}

	tr, n := bufferTree(t)
	got, err = tr.Prompt(ActivePath{NodeID: n["6"].ID})
	if want := "Chapter one. Paragraph 4. Paragraph five, fixed twice. Paragraph 6. "; err != nil || got.Text != want || got.Turns != nil {
		t.Errorf("buffer Prompt = %+v, %v; want %q", got, err, want)
	}
	tr.SystemContext = "A story."
	got, _ = tr.Prompt(ActivePath{NodeID: n["4"].ID})
	if want := "A story.\n\nChapter one. Paragraph 4. "; got.Text != want {
		t.Errorf("buffer Prompt with system context = %q, want %q", got.Text, want)
	}

	empty := newTestTree(t, ModeBuffer, "x")
	_ = empty.SetExcluded(empty.RootNodeID, true)
	if _, err := empty.Prompt(ActivePath{NodeID: empty.RootNodeID}); !errors.Is(err, ErrNothingToContinue) {
		t.Errorf("buffer Prompt with nothing = %v", err)
	}
	dempty := newTestTree(t, ModeDialogue, "x")
	_ = dempty.SetExcluded(dempty.RootNodeID, true)
	if _, err := dempty.Prompt(ActivePath{NodeID: dempty.RootNodeID}); !errors.Is(err, ErrNothingToContinue) ||
		err.Error() != "loom: the active path has no text to continue" {
		t.Errorf("dialogue Prompt with nothing = %v", err)
	}
}
