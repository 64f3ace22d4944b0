package llmtest

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// anPost sends body to the Anthropic server with the required headers
// (version "" leaves anthropic-version out).
func anPost(t *testing.T, url, version, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/v1/messages", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set("Anthropic-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		b.WriteString(sc.Text() + "\n")
	}
	return resp, b.String()
}

// The Anthropic stream of a forced tool call has the documented events in
// order, each "event: NAME" with data of the same "type".
func TestAnthropicToolStreamWire(t *testing.T) {
	srv := httptest.NewServer(NewAnthropicServer(9))
	defer srv.Close()
	resp, body := anPost(t, srv.URL, "2023-06-01", `{"model":"claude-test","max_tokens":100,"stream":true,
		"messages":[{"role":"user","content":"hi"}],
		"tools":[{"name":"pick","input_schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}}],
		"tool_choice":{"type":"tool","name":"pick"}}`)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var names []string
	var partial strings.Builder
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	for i := 0; i < len(lines); i += 3 {
		name, ok1 := strings.CutPrefix(lines[i], "event: ")
		data, ok2 := strings.CutPrefix(lines[i+1], "data: ")
		if !ok1 || !ok2 || lines[i+2] != "" {
			t.Fatalf("bad framing at line %d: %q", i+1, lines[i:i+3])
		}
		var ev struct {
			Type  string `json:"type"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil || ev.Type != name {
			t.Fatalf("event %q data %q: %v", name, data, err)
		}
		if ev.Delta.Type == "input_json_delta" {
			partial.WriteString(ev.Delta.PartialJSON)
		}
		if name == "message_delta" && ev.Delta.StopReason != "tool_use" {
			t.Errorf("stop_reason %q", ev.Delta.StopReason)
		}
		if len(names) == 0 || names[len(names)-1] != name {
			names = append(names, name)
		}
	}
	want := "message_start content_block_start ping content_block_delta content_block_stop message_delta message_stop"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	var input struct {
		N *int `json:"n"`
	}
	if err := json.Unmarshal([]byte(partial.String()), &input); err != nil || input.N == nil {
		t.Errorf("tool input %q: %v", partial.String(), err)
	}
}

// The Anthropic server refuses what the API refuses.
func TestAnthropicRequestChecks(t *testing.T) {
	s := NewAnthropicServer(1)
	s.ContextWindow = 4
	srv := httptest.NewServer(s)
	defer srv.Close()
	for _, tc := range []struct {
		version, body, want string
		status              int
	}{
		{"", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, "anthropic-version: header is required", 400},
		{"2023-06-01", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, "max_tokens: Field required", 400},
		{"2023-06-01", `{"model":"m","max_tokens":5,"messages":[]}`, "at least one message", 400},
		{"2023-06-01", `{"model":"m","max_tokens":5,"messages":[{"role":"system","content":"hi"}]}`, "messages.0.role", 400},
		{"2023-06-01", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"a","input_schema":{"type":"object"}}],"tool_choice":{"type":"tool","name":"b"}}`, `tool "b" not found`, 400},
		{"2023-06-01", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"one two three four five"}]}`, "prompt is too long: 6 tokens > 4 maximum", 400},
	} {
		resp, body := anPost(t, srv.URL, tc.version, tc.body)
		var e struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		err := json.Unmarshal([]byte(body), &e)
		if err != nil || resp.StatusCode != tc.status || e.Type != "error" || e.Error.Type != "invalid_request_error" || !strings.Contains(e.Error.Message, tc.want) {
			t.Errorf("%s: %d %s (%v)", tc.body, resp.StatusCode, body, err)
		}
	}
}

// OpenAI's structured output rules: the strict subset, json_object's
// "json" word, and scripted replies used only by accepted requests.
func TestOpenAIResponseFormatChecks(t *testing.T) {
	s := NewOpenAIServer(1)
	s.Script(Reply{Text: `{"ok":true}`})
	srv := httptest.NewServer(s)
	defer srv.Close()
	url := srv.URL + "/v1/chat/completions"
	resp, body := post(t, url, "", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}},"required":["a"],"additionalProperties":false}}}}`)
	if resp.StatusCode != 400 || !strings.Contains(body, `In context=('properties', 'a'), 'additionalProperties' is required to be supplied and to be false.`) {
		t.Errorf("nested object without additionalProperties: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, url, "", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "must contain the word 'json'") {
		t.Errorf("json_object without the word: %d %s", resp.StatusCode, body)
	}
	if s.Pending() != 1 {
		t.Fatalf("a refused request used the scripted reply")
	}
	resp, body = post(t, url, "", `{"model":"m","messages":[{"role":"user","content":"Answer in JSON."}],"response_format":{"type":"json_object"}}`)
	if resp.StatusCode != 200 || !strings.Contains(body, `"content":"{\"ok\":true}"`) || s.Pending() != 0 {
		t.Errorf("scripted json_object answer: %d %s", resp.StatusCode, body)
	}
	if n := len(s.Received()); n != 3 {
		t.Errorf("Received %d requests, want 3", n)
	}
}

// strictProblem accepts the strict subset and names the first fault.
func TestStrictProblem(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}`, ""},
		{`{"type":"object","properties":{"a":{"type":"string"}},"required":[],"additionalProperties":false}`, "Missing 'a'"},
		{`{"type":"object","properties":{"l":{"type":"array","items":{"$ref":"#/$defs/x"}}},"required":["l"],"additionalProperties":false,"$defs":{"x":{"type":"object","properties":{"y":{"type":["string","null"]}},"required":["y"]}}}`, "In context=('$defs', 'x'), 'additionalProperties'"},
	} {
		var v any
		if err := json.Unmarshal([]byte(tc.schema), &v); err != nil {
			t.Fatal(err)
		}
		got := strictProblem("s", v)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.schema, got, tc.want)
		}
	}
}

// Both servers listen on loopback only.
func TestAnthropicStartLoopbackOnly(t *testing.T) {
	s := NewAnthropicServer(1)
	if _, _, err := s.Start("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "not loopback") {
		t.Errorf("0.0.0.0: %v", err)
	}
	base, stop, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(t.Context())
	resp, _ := anPost(t, base, "2023-06-01", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != 200 || !strings.HasPrefix(base, "http://127.0.0.1:") {
		t.Errorf("%s: %d", base, resp.StatusCode)
	}
}
