package mcp

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestMCPFramesLongLine: a line past the limit is answered with a parse
// error and skipped without being held whole; the next line is read.
func TestMCPFramesLongLine(t *testing.T) {
	in := strings.Repeat("x", 5000) + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	var out bytes.Buffer
	f := newFrames(io.NopCloser(strings.NewReader(in)), &out)
	f.maxLine = 1000
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n" {
		t.Fatalf("passed on %q", got)
	}
	if !strings.Contains(out.String(), `"code":-32700`) || !strings.Contains(out.String(), "line 1 is longer than 1000 bytes") {
		t.Fatalf("reply %q", out.String())
	}
}
