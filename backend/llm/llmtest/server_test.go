package llmtest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// post sends body to path and returns the response and its body.
func post(t *testing.T, url, auth, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if auth != "" {
		req.Header.Set("Authorization", "Bearer "+auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// streamChunk is what the tests read back from a chunk.
type streamChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta *struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// parseStream checks the SSE framing strictly ("data: " lines, each
// followed by a blank line, [DONE] last) and decodes the chunks.
func parseStream(t *testing.T, body string) []streamChunk {
	t.Helper()
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("stream does not end with data: [DONE]: %q", body[max(0, len(body)-80):])
	}
	var chunks []streamChunk
	sc := bufio.NewScanner(strings.NewReader(strings.TrimSuffix(body, "data: [DONE]\n\n")))
	sc.Buffer(nil, 1<<20)
	expectBlank := false
	for sc.Scan() {
		line := sc.Text()
		if expectBlank {
			if line != "" {
				t.Fatalf("want a blank line after each event, got %q", line)
			}
			expectBlank = false
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("line %q is not a data line", line)
		}
		var c streamChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		chunks = append(chunks, c)
		expectBlank = true
	}
	return chunks
}

func TestChatStreamWire(t *testing.T) {
	srv := httptest.NewServer(NewOpenAIServer(42))
	defer srv.Close()
	resp, body := post(t, srv.URL+"/v1/chat/completions", "",
		`{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"n":3,"stream":true,"stream_options":{"include_usage":true},"max_tokens":6}`)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	chunks := parseStream(t, body)
	texts := map[int]string{}
	finished := map[int]string{}
	var order []int
	for i, c := range chunks {
		if c.ID != "chatcmpl-llmtest-1" || c.Created != 1700000001 || c.Model != "gpt-test" {
			t.Errorf("chunk %d header: %+v", i, c)
		}
		if c.Usage != nil {
			if i != len(chunks)-1 || len(c.Choices) != 0 || c.Usage.CompletionTokens == 0 || c.Usage.TotalTokens != c.Usage.PromptTokens+c.Usage.CompletionTokens {
				t.Errorf("usage chunk %d: %+v", i, c)
			}
			continue
		}
		if c.Object != "chat.completion.chunk" || len(c.Choices) != 1 || c.Choices[0].Delta == nil {
			t.Fatalf("chunk %d: %+v", i, c)
		}
		ch := c.Choices[0]
		if _, done := finished[ch.Index]; done {
			t.Errorf("choice %d has a chunk after its finish_reason", ch.Index)
		}
		if ch.FinishReason != nil {
			finished[ch.Index] = *ch.FinishReason
			continue
		}
		if ch.Delta.Content != nil {
			texts[ch.Index] += *ch.Delta.Content
			order = append(order, ch.Index)
		}
	}
	if len(texts) != 3 || len(finished) != 3 {
		t.Fatalf("texts %v finished %v, want 3 choices", texts, finished)
	}
	interleaved := false
	for i := 1; i < len(order); i++ {
		if order[i] < order[i-1] {
			interleaved = true
		}
	}
	if !interleaved {
		t.Errorf("choices not interleaved: %v", order)
	}
	for i, text := range texts {
		words := len(strings.Fields(text))
		if words > 6 || words == 0 || (finished[i] == "length") != (words == 6) {
			t.Errorf("choice %d: %q (%d words) finished %q with max_tokens 6", i, text, words, finished[i])
		}
	}
	if texts[0] == texts[1] || texts[1] == texts[2] {
		t.Errorf("choices repeat: %v", texts)
	}
}

func TestCompletionsStreamWire(t *testing.T) {
	srv := httptest.NewServer(NewOpenAIServer(42))
	defer srv.Close()
	_, body := post(t, srv.URL+"/completions", "", `{"model":"m","prompt":"The root","stream":true}`)
	chunks := parseStream(t, body)
	var text string
	for _, c := range chunks {
		if c.Object != "text_completion" || c.Usage != nil || len(c.Choices) != 1 || c.Choices[0].Text == nil || c.Choices[0].Delta != nil {
			t.Fatalf("chunk %+v", c)
		}
		text += *c.Choices[0].Text
	}
	last := chunks[len(chunks)-1].Choices[0]
	if last.FinishReason == nil || *last.FinishReason != "stop" || !strings.HasPrefix(text, " ") || !strings.HasSuffix(text, ".") {
		t.Errorf("text %q, last %+v", text, last)
	}
}

// Same seed, same requests: the same bytes. Same prompt again: new text.
func TestDeterministic(t *testing.T) {
	run := func() []string {
		srv := httptest.NewServer(NewOpenAIServer(9))
		defer srv.Close()
		var out []string
		for range 2 {
			_, b := post(t, srv.URL+"/v1/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"x"}],"n":2,"stream":true}`)
			out = append(out, b)
		}
		_, b := post(t, srv.URL+"/v1/completions", "", `{"model":"m","prompt":"x","stream":false}`)
		return append(out, b)
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("response %d differs between two servers with the same seed", i)
		}
	}
	if a[0] == a[1] {
		t.Error("asking again gave the same continuations")
	}
	other := httptest.NewServer(NewOpenAIServer(10))
	defer other.Close()
	if _, c := post(t, other.URL+"/v1/completions", "", `{"model":"m","prompt":"x","stream":false}`); c == a[2] {
		t.Error("another seed gave the same text")
	}
}

func TestIgnoreNAndWhole(t *testing.T) {
	s := NewOpenAIServer(1)
	s.IgnoreN = true
	s.Model = "fixed-model"
	srv := httptest.NewServer(s)
	defer srv.Close()
	_, body := post(t, srv.URL+"/v1/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],"n":4}`)
	var whole struct {
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage struct {
			CompletionTokens int `json:"completion_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &whole); err != nil {
		t.Fatal(err)
	}
	if whole.Object != "chat.completion" || whole.Model != "fixed-model" || len(whole.Choices) != 1 ||
		whole.Choices[0].Message.Role != "assistant" || whole.Choices[0].Message.Content == "" || whole.Usage.CompletionTokens == 0 {
		t.Errorf("response %s", body)
	}
	if s.Requests() != 1 {
		t.Errorf("Requests() = %d", s.Requests())
	}
}

func TestStopSequence(t *testing.T) {
	srv := httptest.NewServer(NewOpenAIServer(42))
	defer srv.Close()
	_, free := post(t, srv.URL+"/v1/completions", "", `{"model":"m","prompt":"p"}`)
	var r struct {
		Choices []struct {
			Text string `json:"text"`
		} `json:"choices"`
	}
	_ = json.Unmarshal([]byte(free), &r)
	words := strings.Fields(r.Choices[0].Text)
	if len(words) < 3 {
		t.Fatalf("too short to test: %q", r.Choices[0].Text)
	}
	stop := " " + words[2]
	srv2 := httptest.NewServer(NewOpenAIServer(42)) // same first sample
	defer srv2.Close()
	_, cut := post(t, srv2.URL+"/v1/completions", "", `{"model":"m","prompt":"p","stop":`+jsonString(stop)+`}`)
	var r2 struct {
		Choices []struct {
			Text         string `json:"text"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	_ = json.Unmarshal([]byte(cut), &r2)
	want := r.Choices[0].Text[:strings.Index(r.Choices[0].Text, stop)]
	if r2.Choices[0].Text != want || r2.Choices[0].FinishReason != "stop" {
		t.Errorf("with stop %q: %q (%s), want %q", stop, r2.Choices[0].Text, r2.Choices[0].FinishReason, want)
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

func TestErrors(t *testing.T) {
	s := NewOpenAIServer(1)
	s.APIKey = "sk-llmtest"
	srv := httptest.NewServer(s)
	defer srv.Close()
	cases := []struct {
		path, auth, body string
		status           int
		code             string
	}{
		{"/v1/chat/completions", "", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, 401, "invalid_api_key"},
		{"/v1/chat/completions", "wrong", `{"model":"m","messages":[{"role":"user","content":"x"}]}`, 401, "invalid_api_key"},
		{"/v1/chat/completions", "sk-llmtest", `{"messages":[{"role":"user","content":"x"}]}`, 400, ""},
		{"/v1/chat/completions", "sk-llmtest", `{"model":"m","messages":[]}`, 400, ""},
		{"/v1/completions", "sk-llmtest", `{"model":"m","prompt":["a","b"]}`, 400, ""},
		{"/v1/completions", "sk-llmtest", `{"model":"m","prompt":"a","n":0}`, 400, ""},
		{"/v1/completions", "sk-llmtest", `not json`, 400, ""},
		{"/v1/embeddings", "sk-llmtest", `{}`, 400, ""},
		{"/v1/embeddings", "sk-llmtest", `{"model":"m","input":[]}`, 400, ""},
		{"/v1/embeddings", "wrong", `{"model":"m","input":"x"}`, 401, "invalid_api_key"},
		{"/v1/images/generations", "sk-llmtest", `{}`, 404, "unknown_url"},
	}
	for _, tc := range cases {
		resp, body := post(t, srv.URL+tc.path, tc.auth, tc.body)
		var e struct {
			Error struct {
				Message string  `json:"message"`
				Type    string  `json:"type"`
				Code    *string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(body), &e); err != nil || resp.StatusCode != tc.status || e.Error.Message == "" || e.Error.Type == "" {
			t.Errorf("%s %s: status %d body %s", tc.path, tc.body, resp.StatusCode, body)
			continue
		}
		if tc.code != "" && (e.Error.Code == nil || *e.Error.Code != tc.code) {
			t.Errorf("%s: code %v, want %s", tc.path, e.Error.Code, tc.code)
		}
		if strings.Contains(body, "sk-llmtest") {
			t.Errorf("error body echoes the key: %s", body)
		}
	}
	resp, _ := post(t, srv.URL+"/v1/completions", "sk-llmtest", `{"model":"m","prompt":"ok"}`)
	if resp.StatusCode != 200 {
		t.Errorf("authorised request: %d", resp.StatusCode)
	}
}

func TestStartLoopbackOnly(t *testing.T) {
	s := NewOpenAIServer(1)
	if _, _, err := s.Start("0.0.0.0:0"); err == nil {
		t.Error("Start listened on a non-loopback address")
	}
	base, stop, err := s.Start("")
	if err != nil {
		t.Fatal(err)
	}
	defer stop(context.Background())
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Errorf("base URL %q", base)
	}
	resp, err := http.Get(base + "/models")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || list.Object != "list" || len(list.Data) != 1 {
		t.Errorf("models: %+v %v", list, err)
	}
}
