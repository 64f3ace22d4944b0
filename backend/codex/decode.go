package codex

import (
	"bytes"
	"encoding/json"
	"errors"

	"rhizome/backend/sessionlog"
)

// Decoding a line: nearly every line of a rollout is an envelope
// {timestamp, type, payload} whose payload is an object. decodeWire decodes
// such a line in one pass (the envelope and its payload together, the
// payload's bytes validated and scanned once); any other line, and any line
// that gives an error, is decoded as the reference does it
// (decodeWireTwoPass: the envelope with the payload kept raw, then the
// payload), so that what the reader makes of a line, its warnings included,
// does not depend on the path (TestOnePassDecodeAsTwoPass).

// wire is a line decoded: the envelope (its Payload is not kept), the
// payload's fields, and whether the line is enveloped (a payload object
// under a RolloutItem type).
type wire struct {
	ln        wireLine
	p         wirePayload
	enveloped bool
}

// wireEnvelope is an enveloped line with its payload decoded in place.
type wireEnvelope struct {
	Timestamp  string       `json:"timestamp"`
	Type       string       `json:"type"`
	Payload    *wirePayload `json:"payload"`
	ID         string       `json:"id"`
	RecordType string       `json:"record_type"`
}

// decodeWire decodes obj into w. It returns the warnings for fields of the
// wrong type (left empty), and false when obj is not one valid JSON value.
func decodeWire(obj []byte, w *wire) (warns []string, ok bool) {
	var env wireEnvelope
	if json.Unmarshal(obj, &env) == nil && env.Payload != nil && rolloutTypes[env.Type] && onePayloadKey(obj) {
		// A payload object under a RolloutItem type, and no second
		// payload key (encoding/json would merge the two objects).
		*w = wire{ln: wireLine{Timestamp: env.Timestamp, Type: env.Type, ID: env.ID, RecordType: env.RecordType},
			p: *env.Payload, enveloped: true}
		return nil, true
	}
	*w = wire{}
	return decodeWireTwoPass(obj, w)
}

// payloadKey is the payload key as a JSON string; encoding/json matches it
// without regard to case.
const payloadKey = `"payload"`

// onePayloadKey reports whether obj holds the quoted word "payload", in
// any case, at most once, and no escaped ASCII letter (\u0041 to \u007a)
// with which a key could spell it otherwise: then the line has at most one
// key encoding/json matches to the payload field.
func onePayloadKey(obj []byte) bool {
	if first := indexFold(obj, 0); first >= 0 && indexFold(obj, first+1) >= 0 {
		return false
	}
	for i := 0; ; {
		j := bytes.Index(obj[i:], []byte(`\u00`))
		if j < 0 {
			return true
		}
		i += j + 4
		if i < len(obj) && obj[i] >= '4' && obj[i] <= '7' {
			return false
		}
	}
}

// indexFold returns the index of the first `"payload"` of obj at or after
// from, in any case, or -1.
func indexFold(obj []byte, from int) int {
	for i := from; i+len(payloadKey) <= len(obj); {
		j := bytes.IndexByte(obj[i:], '"')
		if j < 0 {
			return -1
		}
		i += j
		if i+len(payloadKey) <= len(obj) && bytes.EqualFold(obj[i:i+len(payloadKey)], []byte(payloadKey)) {
			return i
		}
		i++
	}
	return -1
}

// decodeWireTwoPass is the reference decoding of a line: the envelope with
// its payload raw, then the payload (or, on a bare-era line, the line
// itself) into the payload's fields.
func decodeWireTwoPass(obj []byte, w *wire) (warns []string, ok bool) {
	ln := &w.ln
	if err := json.Unmarshal(obj, ln); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, false
		}
		warns = append(warns, sessionlog.FieldWarning(err))
	}
	payload := ln.Payload
	w.enveloped = len(payload) > 0 && payload[0] == '{' && rolloutTypes[ln.Type]
	if !w.enveloped && (bareItems[ln.Type] || ln.Type == "" && ln.ID != "" && ln.Timestamp != "" || ln.RecordType != "") {
		payload = obj // bare era: the line is the payload
	}
	if len(payload) > 0 && payload[0] == '{' {
		if err := json.Unmarshal(payload, &w.p); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				return nil, false
			}
			warns = append(warns, "payload: "+sessionlog.FieldWarning(err))
		}
	}
	ln.Payload = nil
	return warns, true
}
