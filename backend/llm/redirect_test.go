package llm

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"rhizome/backend/llm/llmtest"
)

// A provider that redirects to another host does not get the API key sent
// there: Go's client drops only Authorization, and only for another host
// name (not another port), so x-api-key and, on the same name, Authorization
// would follow. Both clients refuse the redirect, and the other host sees no
// request at all. A redirect on the same host is still followed.
func TestRedirectToAnotherHostKeepsTheKey(t *testing.T) {
	target, targetRec := serve(t, llmtest.NewOpenAIServer(1))
	targetURL, _ := url.Parse(target.URL)
	// The same loopback address on another port, and the same port under
	// another name: both are other hosts.
	others := map[string]string{
		"another port": target.URL,
		"another name": "http://localhost:" + targetURL.Port(),
	}
	clients := map[string]func(base string) Provider{
		"openai": func(base string) Provider {
			c, _ := newOpenAITest(t, base+"/v1")
			return c
		},
		"anthropic": func(base string) Provider {
			c, _ := newAnthropicTest(t, base+"/v1")
			return c
		},
	}
	for cname, newClient := range clients {
		for oname, other := range others {
			t.Run(cname+"/"+oname, func(t *testing.T) {
				before := len(targetRec.requests())
				redirector, _ := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, other+r.URL.Path, http.StatusTemporaryRedirect)
				}))
				_, err := newClient(redirector.URL).Generate(context.Background(), Request{Messages: dialogue}, nil)
				if err == nil || !strings.Contains(err.Error(), "redirect") {
					t.Errorf("error %v, want the cross-host redirect refused", err)
				}
				if err != nil {
					checkNoKey(t, "error", err.Error())
				}
				for _, r := range targetRec.requests()[before:] {
					t.Errorf("the other host got %s %s with x-api-key %q, Authorization %q",
						r.Method, r.Path, r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"))
				}
			})
		}
	}
}

// A redirect within the same host (a moved path) is followed.
func TestRedirectOnTheSameHostIsFollowed(t *testing.T) {
	fake := llmtest.NewOpenAIServer(1)
	srv, rec := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/old/") {
			http.Redirect(w, r, "/v1/"+strings.TrimPrefix(r.URL.Path, "/old/"), http.StatusPermanentRedirect)
			return
		}
		fake.ServeHTTP(w, r)
	}))
	c, _ := newOpenAITest(t, srv.URL+"/old")
	got, err := c.Generate(context.Background(), Request{Prompt: "Once upon a time"}, nil)
	if err != nil {
		t.Fatalf("same-host redirect: %v", err)
	}
	checkIndices(t, got, 1)
	reqs := rec.requests()
	if len(reqs) != 2 || reqs[1].Path != "/v1/completions" || reqs[1].Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("requests %+v: want the redirected one at /v1/completions with the key", reqs)
	}
}
