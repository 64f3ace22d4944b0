package main

import (
	"os/exec"
	"strings"
	"testing"
)

// What users run holds no test server: the release binary (the Makefile's
// `go build -tags desktop,production`, and a plain `go build`) does not link
// the fake model (backend/llm/llmtest) nor any other test package. The fake
// model is a command of its own for the end-to-end tests (build/fakemodel).
func TestReleaseBinaryLinksNoTestServer(t *testing.T) {
	for _, tags := range []string{"desktop,production", ""} {
		out, err := exec.Command("go", "list", "-deps", "-tags", tags, ".").Output()
		if err != nil {
			t.Fatalf("go list -deps -tags %q .: %v", tags, err)
		}
		for _, pkg := range strings.Fields(string(out)) {
			if strings.HasPrefix(pkg, "rhizome/") && (strings.HasSuffix(pkg, "test") || strings.Contains(pkg, "/llmtest")) {
				t.Errorf("go list -deps -tags %q . lists %s: a test package in the release binary", tags, pkg)
			}
		}
	}
}
