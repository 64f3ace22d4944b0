package memobrain

import (
	"encoding/json"
	"math"
	"testing"
)

// The expected values below are what CPython 3.11 gives (int(), re.findall,
// repr(), str(), json.dumps()) for the same inputs.

func TestPyInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"3", 3, true}, {" 3\n", 3, true}, {"+3", 3, true}, {"0_3", 3, true}, {"٣", 3, true}, {"𝟗", 9, true},
		{"-0", 0, true}, {"\u00a07\u3000", 7, true}, {"\u20287\u2028", 7, true}, {"-12", -12, true},
		{"1__2", 0, false}, {"_1", 0, false}, {"1_", 0, false}, {"3.0", 0, false}, {"", 0, false}, {" ", 0, false},
		{"\x1c7\x1f", 0, false}, {"\ufeff7", 0, false}, {"+", 0, false}, {"0x10", 0, false},
		{"99999999999999999999999", math.MaxInt64, true},
	} {
		got, ok := pyInt(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("int(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestFirstInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"node 3", 3, true}, {"n3.5", 3, true}, {"tmp12x4", 12, true}, {"x", 0, false}, {"٣٤ and 5", 34, true},
		{"abc𝟗𝟖", 98, true}, {"", 0, false},
	} {
		got, ok := firstInt(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("re.findall(r'\\d+', %q)[0] = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPyFloatRepr(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{3.0, "3.0"}, {3.9, "3.9"}, {1e16, "1e+16"}, {1.5e16, "1.5e+16"}, {1e-5, "1e-05"}, {0.0001, "0.0001"},
		{123.0, "123.0"}, {1e15, "1000000000000000.0"}, {math.Copysign(0, -1), "-0.0"}, {2.5e-7, "2.5e-07"},
		{0.1, "0.1"}, {1.0 / 3, "0.3333333333333333"}, {5e-324, "5e-324"}, {math.MaxFloat64, "1.7976931348623157e+308"},
		{math.Inf(1), "inf"}, {math.NaN(), "nan"},
	} {
		if got := pyFloatRepr(tc.f); got != tc.want {
			t.Errorf("repr(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestPyFormat(t *testing.T) {
	for _, tc := range []struct {
		in                     string
		repr, dumps, dumpsUTF8 string
	}{
		{`{"role": "assistant", "content": "it's \"quoted\" \\ tab\t nl\n caf\u00e9 \u2028 \u00a0 \u0007 \u007f \ud83d\ude00 \u200b"}`,
			"{'role': 'assistant', 'content': 'it\\'s \"quoted\" \\\\ tab\\t nl\\n caf\u00e9 \\u2028 \\xa0 \\x07 \\x7f \U0001F600 \\u200b'}",
			"{\"role\": \"assistant\", \"content\": \"it's \\\"quoted\\\" \\\\ tab\\t nl\\n caf\\u00e9 \\u2028 \\u00a0 \\u0007 \\u007f \\ud83d\\ude00 \\u200b\"}",
			"{\"role\": \"assistant\", \"content\": \"it's \\\"quoted\\\" \\\\ tab\\t nl\\n caf\u00e9 \u2028 \u00a0 \\u0007 \u007f \U0001F600 \u200b\"}"},
		{`[1, -0, 1.50, 1e3, 1e16, 1.5e16, 1e-5, 0.0001, 123456789012345678901234567890, true, false, null, {"a": {"b": []}}, 1e400, -0.0, 2.5e-7]`,
			"[1, 0, 1.5, 1000.0, 1e+16, 1.5e+16, 1e-05, 0.0001, 123456789012345678901234567890, True, False, None, {'a': {'b': []}}, inf, -0.0, 2.5e-07]",
			"[1, 0, 1.5, 1000.0, 1e+16, 1.5e+16, 1e-05, 0.0001, 123456789012345678901234567890, true, false, null, {\"a\": {\"b\": []}}, Infinity, -0.0, 2.5e-07]",
			"[1, 0, 1.5, 1000.0, 1e+16, 1.5e+16, 1e-05, 0.0001, 123456789012345678901234567890, true, false, null, {\"a\": {\"b\": []}}, Infinity, -0.0, 2.5e-07]"},
		{`"only 'single'"`, `"only 'single'"`, `"only 'single'"`, `"only 'single'"`},
		{`"both ' and \""`, `'both \' and "'`, `"both ' and \""`, `"both ' and \""`},
		{`{"k": 1, "k": 2, "j": 3}`, "{'k': 2, 'j': 3}", `{"k": 2, "j": 3}`, `{"k": 2, "j": 3}`},
	} {
		raw := json.RawMessage(tc.in)
		if got := string(pyFormat(nil, raw, styleRepr)); got != tc.repr {
			t.Errorf("repr(%s)\n got %s\nwant %s", tc.in, got, tc.repr)
		}
		if got := pyDumps(raw, true); got != tc.dumps {
			t.Errorf("json.dumps(%s)\n got %s\nwant %s", tc.in, got, tc.dumps)
		}
		if got := pyDumps(raw, false); got != tc.dumpsUTF8 {
			t.Errorf("json.dumps(%s, ensure_ascii=False)\n got %s\nwant %s", tc.in, got, tc.dumpsUTF8)
		}
	}
	if got := pyStr(json.RawMessage(`"only 'single'"`)); got != "only 'single'" {
		t.Errorf("str() of a string is the string, got %q", got)
	}
}
