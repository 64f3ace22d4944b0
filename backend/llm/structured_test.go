package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"rhizome/backend/llm/llmtest"
)

// weatherSchema is a small schema of OpenAI's strict subset.
var weatherSchema = &JSONSchema{
	Name:        "weather",
	Description: "the weather in one city",
	Strict:      true,
	Schema: json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"celsius": {"type": "number"},
			"sky": {"type": "string", "enum": ["clear", "cloudy", "rain"]},
			"alerts": {"type": "array", "items": {"type": "string"}}
		},
		"required": ["city", "celsius", "sky", "alerts"],
		"additionalProperties": false
	}`),
}

var weatherAsk = []Message{{Role: RoleSystem, Text: "You report the weather."}, {Role: RoleUser, Text: "Weather in Oslo?"}}

// startOpenAI serves an llmtest OpenAI server on loopback and returns a
// client of it (no retries, recorded sleeps).
func startOpenAI(t *testing.T, srv *llmtest.OpenAIServer, edit ...func(*Config)) *OpenAI {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, _ := newOpenAITest(t, hs.URL+"/v1", edit...)
	return c
}

func startAnthropic(t *testing.T, srv *llmtest.AnthropicServer, edit ...func(*Config)) *Anthropic {
	t.Helper()
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	c, _ := newAnthropicTest(t, hs.URL, edit...)
	return c
}

// body decodes a received request body.
func body(t *testing.T, r llmtest.Received) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("request body: %v", err)
	}
	return m
}

// checkWeather fails unless s is a JSON object with the schema's fields.
func checkWeather(t *testing.T, s string) {
	t.Helper()
	var w struct {
		City    *string  `json:"city"`
		Celsius *float64 `json:"celsius"`
		Sky     *string  `json:"sky"`
		Alerts  []string `json:"alerts"`
	}
	if err := json.Unmarshal([]byte(s), &w); err != nil || w.City == nil || w.Celsius == nil || w.Sky == nil {
		t.Fatalf("JSON %q is not a weather object: %v", s, err)
	}
}

// OpenAI: response_format json_schema is sent as documented, streamed and
// not, and the made-up instance comes back in Completion.JSON.
func TestStructuredOpenAIJSONSchema(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := llmtest.NewOpenAIServer(3)
		c := startOpenAI(t, srv, func(c *Config) { c.NoStream = noStream })
		got, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Structured != ModeJSONSchema || got[0].JSON != got[0].Text {
			t.Fatalf("noStream=%v: %+v", noStream, got)
		}
		checkWeather(t, got[0].JSON)
		reqs := srv.Received()
		if len(reqs) != 1 {
			t.Fatalf("%d requests, want 1", len(reqs))
		}
		b := body(t, reqs[0])
		rf, _ := b["response_format"].(map[string]any)
		js, _ := rf["json_schema"].(map[string]any)
		if rf["type"] != "json_schema" || js["name"] != "weather" || js["strict"] != true || js["description"] != "the weather in one city" {
			t.Errorf("response_format = %v", b["response_format"])
		}
		if schema, _ := js["schema"].(map[string]any); schema["type"] != "object" || schema["additionalProperties"] != false {
			t.Errorf("schema sent = %v", js["schema"])
		}
		// The schema is not repeated in the messages: the server enforces it.
		if strings.Contains(string(reqs[0].Body), "valid against this JSON Schema") {
			t.Errorf("json_schema mode put the instruction in the messages: %s", reqs[0].Body)
		}
	}
}

// OpenAI: a server that refuses json_schema (400) is asked with
// json_object, and one that refuses that too with the instruction alone;
// the client remembers the mode that worked.
func TestStructuredOpenAIFallback(t *testing.T) {
	t.Run("json_object", func(t *testing.T) {
		srv := llmtest.NewOpenAIServer(1)
		srv.NoJSONSchema = true
		srv.Script(llmtest.Reply{Text: `{"city":"Oslo","celsius":-3,"sky":"clear","alerts":[]}`},
			llmtest.Reply{Text: `{"city":"Oslo","celsius":-2,"sky":"cloudy","alerts":[]}`})
		c := startOpenAI(t, srv)
		got, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Structured != ModeJSONObject || c.StructuredMode() != ModeJSONObject {
			t.Errorf("mode %q, remembered %q; want json_object", got[0].Structured, c.StructuredMode())
		}
		checkWeather(t, got[0].JSON)
		reqs := srv.Received()
		if len(reqs) != 2 {
			t.Fatalf("%d requests, want 2 (json_schema refused, then json_object)", len(reqs))
		}
		second := body(t, reqs[1])
		if rf, _ := second["response_format"].(map[string]any); rf["type"] != "json_object" {
			t.Errorf("second request response_format = %v", second["response_format"])
		}
		msgs, _ := second["messages"].([]any)
		sys, _ := msgs[0].(map[string]any)
		if len(msgs) != 2 || !strings.HasPrefix(sys["content"].(string), "You report the weather.\n\nReply with one JSON object") ||
			!strings.Contains(sys["content"].(string), `"additionalProperties":false`) {
			t.Errorf("the instruction and schema are not in the system message: %v", msgs)
		}
		// Remembered: the next generation asks json_object at once.
		if _, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.Received()); n != 3 {
			t.Errorf("%d requests after the second generation, want 3", n)
		}
	})
	t.Run("prompt", func(t *testing.T) {
		srv := llmtest.NewOpenAIServer(1)
		srv.NoJSONSchema, srv.NoJSONObject = true, true
		srv.Script(llmtest.Reply{Text: "Here it is:\n```json\n{\"city\":\"Oslo\",\"celsius\":1,\"sky\":\"rain\",\"alerts\":[\"wind\"]}\n```\n"})
		c := startOpenAI(t, srv)
		got, err := c.Generate(context.Background(), Request{Messages: []Message{{Role: RoleUser, Text: "Weather in Oslo?"}}, JSONSchema: weatherSchema}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got[0].Structured != ModePrompt || got[0].JSON != `{"city":"Oslo","celsius":1,"sky":"rain","alerts":["wind"]}` {
			t.Errorf("mode %q, JSON %q", got[0].Structured, got[0].JSON)
		}
		reqs := srv.Received()
		if len(reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(reqs))
		}
		last := body(t, reqs[2])
		if _, has := last["response_format"]; has {
			t.Errorf("prompt mode still sends response_format: %v", last["response_format"])
		}
		msgs, _ := last["messages"].([]any)
		if sys, _ := msgs[0].(map[string]any); len(msgs) != 2 || sys["role"] != "system" {
			t.Errorf("with no system message, the instruction must come first in a new one: %v", msgs)
		}
	})
	t.Run("every mode refused", func(t *testing.T) {
		hs, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			jsonError(w, 400, `{"error":{"message":"Unrecognized request argument supplied: model2","type":"invalid_request_error","param":null,"code":null}}`)
		}))
		c, _ := newOpenAITest(t, hs.URL+"/v1")
		_, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
		if err == nil || !strings.Contains(err.Error(), "response_format json_schema refused") || !strings.Contains(err.Error(), "Unrecognized request argument") {
			t.Errorf("error %v", err)
		}
		if c.StructuredMode() != ModeJSONSchema {
			t.Errorf("a failure remembered mode %q", c.StructuredMode())
		}
	})
}

// A context-length 400 is not taken for a refusal of response_format: one
// request, an ErrContextLength, and json_schema still the mode.
func TestStructuredContextLengthIsNotAFormatRefusal(t *testing.T) {
	srv := llmtest.NewOpenAIServer(1)
	srv.ContextWindow = 3
	c := startOpenAI(t, srv)
	_, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
	if !errors.Is(err, ErrContextLength) || errors.Is(err, ErrRateLimited) {
		t.Fatalf("error %v, want ErrContextLength", err)
	}
	if n := len(srv.Received()); n != 1 || c.StructuredMode() != ModeJSONSchema {
		t.Errorf("%d requests, mode %q", n, c.StructuredMode())
	}
}

// A schema outside OpenAI's strict subset is refused by the server (400,
// OpenAI's words) and the client falls back to json_object.
func TestStructuredStrictSchemaRefused(t *testing.T) {
	srv := llmtest.NewOpenAIServer(1)
	c := startOpenAI(t, srv)
	loose := &JSONSchema{Name: "loose", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"}},"required":[]}`)}
	got, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: loose}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Structured != ModeJSONObject {
		t.Errorf("mode %q", got[0].Structured)
	}
}

// Anthropic: a forced tool call, streamed (input_json_delta) and whole.
func TestStructuredAnthropicTool(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		srv := llmtest.NewAnthropicServer(5)
		c := startAnthropic(t, srv, func(c *Config) { c.NoStream = noStream })
		var deltas int
		got, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, func(Delta) { deltas++ })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Structured != ModeTool || got[0].FinishReason != "tool_use" || got[0].Text != "" || deltas != 0 {
			t.Fatalf("noStream=%v: %+v (deltas %d)", noStream, got, deltas)
		}
		checkWeather(t, got[0].JSON)
		b := body(t, srv.Received()[0])
		tools, _ := b["tools"].([]any)
		tool, _ := tools[0].(map[string]any)
		choice, _ := b["tool_choice"].(map[string]any)
		if len(tools) != 1 || tool["name"] != "weather" || tool["description"] != "the weather in one city" ||
			choice["type"] != "tool" || choice["name"] != "weather" || b["system"] != "You report the weather." {
			t.Errorf("request = %s", srv.Received()[0].Body)
		}
		if schema, _ := tool["input_schema"].(map[string]any); schema["type"] != "object" {
			t.Errorf("input_schema = %v", tool["input_schema"])
		}
	}
}

// Anthropic: malformed tool input arrives as written (the caller's
// validator rejects it); streamed it is the concatenated partial_json.
func TestStructuredAnthropicMalformedInput(t *testing.T) {
	srv := llmtest.NewAnthropicServer(5)
	srv.Script(llmtest.Reply{Text: `{"city": "Oslo", "celsius": `, Finish: "max_tokens"})
	c := startAnthropic(t, srv)
	got, err := c.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].JSON != `{"city": "Oslo", "celsius": ` || got[0].FinishReason != "length" {
		t.Errorf("JSON %q finish %q", got[0].JSON, got[0].FinishReason)
	}
}

// Refusals of structured requests are typed errors, for both providers and
// both transports; without a schema an Anthropic refusal stays a
// completion, as before.
func TestStructuredRefusal(t *testing.T) {
	for _, noStream := range []bool{false, true} {
		oa := llmtest.NewOpenAIServer(1)
		oa.Script(llmtest.Reply{Refusal: "I'm sorry, I can't help with that."})
		_, err := startOpenAI(t, oa, func(c *Config) { c.NoStream = noStream }).
			Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
		var re *RefusalError
		if !errors.Is(err, ErrRefusal) || !errors.As(err, &re) || re.Message != "I'm sorry, I can't help with that." || re.Provider != "openai" {
			t.Errorf("openai noStream=%v: %v", noStream, err)
		}

		an := llmtest.NewAnthropicServer(1)
		an.Script(llmtest.Reply{Refusal: "I won't analyse this."})
		_, err = startAnthropic(t, an, func(c *Config) { c.NoStream = noStream }).
			Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
		if !errors.Is(err, ErrRefusal) || !errors.As(err, &re) || re.Message != "I won't analyse this." || re.StopReason != "refusal" {
			t.Errorf("anthropic noStream=%v: %v", noStream, err)
		}
	}
	an := llmtest.NewAnthropicServer(1)
	an.Script(llmtest.Reply{Refusal: "No."})
	got, err := startAnthropic(t, an).Generate(context.Background(), Request{Messages: weatherAsk}, nil)
	if err != nil || got[0].FinishReason != "refusal" || got[0].Text != "No." {
		t.Errorf("unstructured refusal: %+v, %v", got, err)
	}
}

// The failures a caller branches on, in each provider's real words.
func TestTypedErrors(t *testing.T) {
	cases := []struct {
		fail   llmtest.Failure
		want   error
		status int
	}{
		{llmtest.FailRateLimit, ErrRateLimited, 429},
		{llmtest.FailContextLength, ErrContextLength, 400},
		{llmtest.FailServer, ErrServerError, 500},
		{llmtest.FailOverloaded, ErrServerError, 0},
	}
	all := []error{ErrRateLimited, ErrContextLength, ErrServerError, ErrRefusal}
	for _, tc := range cases {
		for _, provider := range []string{ProviderOpenAI, ProviderAnthropic} {
			reply := llmtest.Reply{Fail: tc.fail, RetryAfter: 30 * time.Second}
			var p Provider
			if provider == ProviderOpenAI {
				srv := llmtest.NewOpenAIServer(1)
				srv.Script(reply)
				p = startOpenAI(t, srv)
			} else {
				srv := llmtest.NewAnthropicServer(1)
				srv.Script(reply)
				p = startAnthropic(t, srv)
			}
			_, err := p.Generate(context.Background(), Request{Messages: weatherAsk, JSONSchema: weatherSchema}, nil)
			for _, kind := range all {
				if errors.Is(err, kind) != (kind == tc.want) {
					t.Errorf("%s %s: errors.Is(%v, %v) = %v", provider, tc.fail, err, kind, errors.Is(err, kind))
				}
			}
			var ae *APIError
			if !errors.As(err, &ae) || (tc.status != 0 && ae.StatusCode != tc.status) {
				t.Errorf("%s %s: %v", provider, tc.fail, err)
			}
			if tc.fail == llmtest.FailRateLimit && ae != nil && ae.RetryAfter != 30*time.Second {
				t.Errorf("%s: RetryAfter %s, want 30s", provider, ae.RetryAfter)
			}
		}
	}
}

// Context-length and rate-limit wording of other servers, and OpenAI's
// insufficient_quota, which is no rate limit.
func TestAPIErrorKinds(t *testing.T) {
	cases := []struct {
		e    APIError
		want error
	}{
		{APIError{StatusCode: 400, Type: "exceed_context_size_error", Message: "the request exceeds the available context size, try increasing it"}, ErrContextLength},                                   // llama.cpp
		{APIError{StatusCode: 400, Message: "This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion)."}, ErrContextLength}, // vLLM
		{APIError{StatusCode: 413, Type: "request_too_large", Message: "Request exceeds the maximum allowed number of bytes."}, ErrContextLength},                                                        // Anthropic
		{APIError{StatusCode: 400, Message: "Unrecognized request argument supplied: foo"}, nil},
		{APIError{StatusCode: 429, Type: "insufficient_quota", Code: "insufficient_quota", Message: "You exceeded your current quota"}, nil},
		{APIError{StatusCode: 200, InStream: true, Type: "rate_limit_error", Message: "slow down"}, ErrRateLimited},
		{APIError{StatusCode: 200, InStream: true, Type: "overloaded_error", Message: "Overloaded"}, ErrServerError},
		{APIError{StatusCode: 529, Type: "overloaded_error"}, ErrServerError},
	}
	for _, tc := range cases {
		for _, kind := range []error{ErrRateLimited, ErrContextLength, ErrServerError} {
			if got := errors.Is(&tc.e, kind); got != (kind == tc.want) {
				t.Errorf("%+v: Is(%v) = %v", tc.e, kind, got)
			}
		}
	}
}

// A schema is checked before any request.
func TestStructuredRequestValidation(t *testing.T) {
	c, _ := newOpenAITest(t, "http://127.0.0.1:1/v1")
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Messages: weatherAsk, JSONSchema: &JSONSchema{Name: "bad name", Schema: weatherSchema.Schema}}, "jsonSchema.name"},
		{Request{Messages: weatherAsk, JSONSchema: &JSONSchema{Name: "x", Schema: json.RawMessage(`{"type":"array"}`)}}, `top-level type array`},
		{Request{Messages: weatherAsk, JSONSchema: &JSONSchema{Name: "x"}}, "jsonSchema.schema: empty"},
		{Request{Prompt: "Once", JSONSchema: weatherSchema}, "needs dialogue mode"},
	} {
		if _, err := c.Generate(context.Background(), tc.req, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func TestExtractJSON(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:                               `{"a":1}`,
		"  \n{\"a\":1}\n ":                      `{"a":1}`,
		"```json\n{\"a\":1}\n```":               `{"a":1}`,
		"```\n{\"a\":1}\n```\n":                 `{"a":1}`,
		"Sure! {\"a\":{\"b\":2}} Hope it helps": `{"a":{"b":2}}`,
		"{\"a\": {\"b\": 1}, \"c\"":             "{\"a\": {\"b\": 1}, \"c\"", // cut off: kept whole
		"{\"a\":1}\nThat is all.":               "{\"a\":1}",
		"Here: {\"a\": {\"b\"":                  "{\"a\": {\"b\"",
		"no json here":                          "no json here",
		"{\"a\": ":                              "{\"a\":",
	} {
		if got := ExtractJSON(in); got != want {
			t.Errorf("ExtractJSON(%q) = %q, want %q", in, got, want)
		}
	}
}

// OpenAI's reasoning models refuse max_tokens (400 unsupported_parameter):
// the request is made again with max_completion_tokens, and the client
// remembers it. Structured requests are not taken for a format refusal.
func TestOpenAIMaxCompletionTokens(t *testing.T) {
	srv := llmtest.NewOpenAIServer(1)
	srv.NoMaxTokens = true
	c := startOpenAI(t, srv, func(c *Config) { c.MaxTokens = 64 })
	for i, req := range []Request{{Messages: weatherAsk, JSONSchema: weatherSchema}, {Messages: weatherAsk}} {
		if _, err := c.Generate(context.Background(), req, nil); err != nil {
			t.Fatalf("generation %d: %v", i, err)
		}
	}
	reqs := srv.Received()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (refused, retried, then remembered)", len(reqs))
	}
	for i, want := range []string{"max_tokens", "max_completion_tokens", "max_completion_tokens"} {
		b := body(t, reqs[i])
		other := map[string]string{"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}[want]
		if b[want] != 64.0 || b[other] != nil {
			t.Errorf("request %d: %s=%v %s=%v", i, want, b[want], other, b[other])
		}
		if rf, _ := b["response_format"].(map[string]any); i < 2 && rf["type"] != "json_schema" {
			t.Errorf("request %d: response_format %v", i, b["response_format"])
		}
	}
	if c.StructuredMode() != ModeJSONSchema {
		t.Errorf("mode %q", c.StructuredMode())
	}
}
