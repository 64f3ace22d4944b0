package codex

import (
	"bytes"
	"os"
	"reflect"
	"testing"

	"rhizome/backend/sessionlog"
)

// decodeCases are lines that take decodeWire off its one-pass path, or
// nearly: no payload, a payload null, not an object, two payload keys (in
// other cases, spelled with escapes), a nested payload key, fields of the
// wrong type in the envelope and in the payload, a payload under a type
// that is not a RolloutItem, bare-era lines, invalid UTF-8.
var decodeCases = []string{
	`{"timestamp":"2025-01-01T00:00:00Z","type":"event_msg"}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"event_msg","payload":null}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"event_msg","payload":[1]}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"event_msg","payload":"x"}`,
	`{"type":"event_msg","payload":{"type":"token_count","turn_id":"a"},"payload":{"type":"agent_message"}}`,
	`{"type":"event_msg","payload":{"type":"token_count","turn_id":"a"},"PayLoad":{"type":"agent_message"}}`,
	`{"type":"event_msg","payload":{"type":"token_count","turn_id":"a"},"p\u0061yload":{"type":"agent_message"}}`,
	`{"type":"event_msg","payload":{"type":"token_count","turn_id":"a"},"payload":null}`,
	`{"type":"event_msg","payload":{"type":"item_completed","item":{"payload":{"x":1}}}}`,
	`{"type":"event_msg","x":{"payload":{"type":"agent_message"}}}`,
	`{"type":"event_msg","payload":{"type":"agent_message"},"note":"payload"}`,
	`{"timestamp":5,"type":"event_msg","payload":{"type":"agent_message","message":"hi"}}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"event_msg","payload":{"type":"token_count","num_turns":"two"}}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"response_item","payload":{"type":"message","role":7,"content":[]}}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"something_new","payload":{"type":"agent_message"}}`,
	`{"timestamp":"2025-01-01T00:00:00Z","type":"turn_context","payload":{"model":"gpt-5","turn_id":"t"}}`,
	`{"id":"s","timestamp":"2025-01-01T00:00:00Z","instructions":"x"}`,
	`{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}`,
	`{"record_type":"state"}`,
	`{"type":"function_call","name":"shell","arguments":"{}","call_id":"c","payload":{"type":"x"}}`,
	"{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"\xff\xfe\"}}",
	`{"type":"event_msg","payload":{"type":"agent_message","message":"a \u00e9 \u0041"}}`,
	`{"type":"event_msg","payload":{"type":"agent_message"}`,
	`{"type":"event_msg","payload":{"type":"agent_message"}} {}`,
	`{"type":"event_msg","PAYLOAD":{"type":"agent_message"}}`,
	`{"Type":"EVENT_MSG","payload":{"TYPE":"agent_message"}}`,
}

// TestOnePassDecodeAsTwoPass holds decodeWire, which decodes most lines in
// one pass, to the two-pass reference: the same envelope, payload,
// warnings and validity for every object of the real and hand-made files,
// of the fuzz seeds, and for the lines that leave the one-pass path.
func TestOnePassDecodeAsTwoPass(t *testing.T) {
	var objects [][]byte
	fast := 0
	for _, s := range decodeCases {
		objects = append(objects, []byte(s))
	}
	files := append(realFiles(t), "testdata/handmade/bare-era.jsonl", "testdata/handmade/wrapped-legacy.jsonl", "testdata/handmade/fork-replay.jsonl")
	var inputs [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, data)
	}
	inputs = append(inputs, fuzzSeeds(t)...)
	for _, data := range inputs {
		for _, line := range bytes.Split(data, []byte("\n")) {
			objects = append(objects, line)
			spans, _ := sessionlog.Split(line)
			for _, sp := range spans {
				objects = append(objects, line[sp.Start:sp.End])
			}
		}
	}
	for _, obj := range objects {
		if sameDecode(t, obj) {
			fast++
		}
	}
	if fast < len(objects)/2 {
		t.Errorf("only %d of %d objects took the one-pass path", fast, len(objects))
	}
}

// sameDecode checks decodeWire against decodeWireTwoPass on obj and reports
// whether the line was enveloped (the one-pass path's lines).
func sameDecode(t *testing.T, obj []byte) bool {
	t.Helper()
	var got, want wire
	gw, gok := decodeWire(obj, &got)
	ww, wok := decodeWireTwoPass(obj, &want)
	if gok != wok || !reflect.DeepEqual(gw, ww) || wok && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q:\none pass %v %q %+v\ntwo pass %v %q %+v", obj, gok, gw, got, wok, ww, want)
	}
	return want.enveloped
}

// FuzzOnePassDecode checks decodeWire against the two-pass reference on
// arbitrary objects.
func FuzzOnePassDecode(f *testing.F) {
	for _, s := range decodeCases {
		f.Add([]byte(s))
	}
	for _, s := range fuzzSeeds(f) {
		for _, line := range bytes.Split(s, []byte("\n")) {
			f.Add(line)
		}
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		sameDecode(t, obj)
	})
}
