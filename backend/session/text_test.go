package session

import (
	"strings"
	"testing"
)

// TestAppendScalars: a tool call's argument values in document order,
// strings unescaped as encoding/json does, keys and null left out.
func TestAppendScalars(t *testing.T) {
	cases := []struct{ raw, want string }{
		{`{"path":"a.go","n":12,"ok":true,"x":null}`, "a.go|12|true"},
		{`{"edits":[{"old":"x\ty","new":"\"q\""},{"keep":false}]}`, "x\ty|\"q\"|false"},
		{`{ "k" : "v" , "list" : [ 1.5e3 , -2 , "s" ] }`, "v|1.5e3|-2|s"},
		{`{"u":"\u00e9\ud83d\ude00","lone":"\ud800","bad":"` + "\xff" + `"}`, "é😀|\ufffd|\ufffd"},
		{`{"colon":"a:b","brace":"}{","key":"x"}`, "a:b|}{|x"},
		{`"just a string"`, "just a string"},
		{`{"empty":"","k":"v"}`, "|v"},
		{`{"truncated":`, ""},
		{``, ""},
	}
	for _, c := range cases {
		var got []string
		appendScalars([]byte(c.raw), func(s string) { got = append(got, s) })
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("appendScalars(%s) = %q, want %q", c.raw, g, c.want)
		}
	}
}
