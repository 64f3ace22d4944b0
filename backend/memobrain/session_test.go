package memobrain

import (
	"strings"
	"testing"
	"unicode/utf8"

	"rhizome/backend/pisession"
	"rhizome/backend/pisession/pitest"
	"rhizome/backend/session"
)

// A real pi session as MemoBrain's conversation: the session, the first
// request, then the agent's steps and what answered them, alternating, so
// that MemoBrain's pairs are messages 2k+2 and 2k+3 and each message names
// the entries it came from.
func TestSessionConversation(t *testing.T) {
	for _, name := range pitest.SampleNames {
		t.Run(name, func(t *testing.T) {
			s, err := pisession.ReadFile(pitest.Sample(name))
			if err != nil {
				t.Fatal(err)
			}
			entries := make([]*session.Entry, len(s.Entries))
			byID := map[string]*session.Entry{}
			var firstUser string
			for i := range s.Entries {
				e := &s.Entries[i]
				entries[i] = e
				byID[e.ID] = e
				if firstUser == "" && e.Message != nil && e.Message.Role == session.RoleUser {
					firstUser = e.ID
				}
			}
			c, err := SessionConversation(s.Header, entries)
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Messages) != len(c.Entries) || len(c.Messages) < 4 {
				t.Fatalf("%d messages, %d entry lists", len(c.Messages), len(c.Entries))
			}
			if m := c.Messages[0]; m.Role != "system" || !strings.Contains(m.Content, s.Header.ID) || len(c.Entries[0]) != 0 {
				t.Errorf("message 0 names the session: %+v %v", m, c.Entries[0])
			}
			if m := c.Messages[1]; m.Role != "user" || c.Entries[1][0] != firstUser || c.Task == "" || !strings.HasPrefix(m.Content, c.Task[:min(len(c.Task), 40)]) {
				t.Errorf("message 1 is the first request %s: %+v (task %q)", firstUser, c.Entries[1], c.Task)
			}
			for i := 2; i < len(c.Messages); i++ {
				want := "assistant"
				if i%2 == 1 {
					want = "user"
				}
				m := c.Messages[i]
				if m.Role != want {
					t.Fatalf("message %d is %s, want %s: the conversation alternates", i, m.Role, want)
				}
				if len(m.Content) > MaxMessageBytes || !utf8.ValidString(m.Content) || strings.TrimSpace(m.Content) == "" {
					t.Errorf("message %d: %d bytes, valid UTF-8 %v", i, len(m.Content), utf8.ValidString(m.Content))
				}
				if len(c.Entries[i]) == 0 {
					t.Errorf("message %d names no entry", i)
				}
				for _, id := range c.Entries[i] {
					e := byID[id]
					if e == nil || e.Message == nil {
						t.Fatalf("message %d names %q, not a message entry of the session", i, id)
					}
					if (e.Message.Role == session.RoleAssistant) != (want == "assistant") {
						t.Errorf("message %d (%s) is made of a %s entry", i, want, e.Message.Role)
					}
				}
			}
			pairs := Pairs(c.Messages, 2)
			if len(pairs) != (len(c.Messages)-2)/2 {
				t.Errorf("%d pairs of %d messages", len(pairs), len(c.Messages))
			}
			for k, p := range pairs {
				if p[0].Content != c.Messages[2+2*k].Content || p[1].Content != c.Messages[3+2*k].Content {
					t.Fatalf("pair %d is not messages %d and %d", k, 2+2*k, 3+2*k)
				}
			}
			// Tool calls are written as MemoBrain's agent writes them.
			if !strings.Contains(c.Messages[2].Content+c.Messages[4].Content, "<tool_call>{\"name\":") {
				t.Errorf("no tool call in the first steps: %.300s", c.Messages[2].Content)
			}
		})
	}
}

func TestSessionConversationWithoutRequest(t *testing.T) {
	_, err := SessionConversation(session.Header{ID: "s"}, []*session.Entry{
		{Type: session.TypeMessage, ID: "a", Message: &session.Message{Role: session.RoleAssistant, Content: []session.Block{{Type: "text", Text: "hi"}}}},
	})
	if err != ErrNoRequest {
		t.Errorf("err = %v, want ErrNoRequest", err)
	}
}

func TestClipBytes(t *testing.T) {
	s := strings.Repeat("é", 5000) // 10,000 bytes
	got := clipBytes(s, 1000)
	if len(got) > 1000 || !utf8.ValidString(got) || !strings.Contains(got, " … ") {
		t.Errorf("clipBytes: %d bytes, valid %v", len(got), utf8.ValidString(got))
	}
	if clipBytes("short", 10) != "short" {
		t.Error("a short text is kept")
	}
}
