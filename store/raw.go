package store

import (
	"bytes"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/klauspost/compress/zstd"
	"modernc.org/sqlite"
)

// An entry's raw object (entries.raw: its bytes exactly as in the file) is
// kept compressed (a Zstandard frame, RFC 8878, github.com/klauspost/
// compress/zstd at its fastest level) when it is long: on the pi and
// Claude Code + Codex bench corpora nearly all of the raw bytes are in
// objects of rawPackMin bytes and more, and they take about half (a
// library went from 1.8 to 1.3 times the sessions' bytes, issue 25). The
// standard library's deflate made as small a library but cost a third
// more CPU per import. A compressed object is a BLOB that starts with
// rawPackMagic (no JSON value starts with a NUL byte); a short one stays
// TEXT, as every object of a library written before was. Readers in Go go
// through unpackRaw; SQL reads the object through unpack_raw(raw).

// rawPackMin is the size from which an entry's object is kept compressed.
const rawPackMin = 512

// rawPackMagic starts a compressed object.
var rawPackMagic = []byte{0, 'Z'}

// rawEncoder and rawDecoder compress and decompress objects, whole
// (EncodeAll, DecodeAll: safe for concurrent use), with one goroutine and
// little memory each: the encoder's window (the history it keeps between
// objects, grown to the largest object up to the window) is 256 KB, so a
// multi-MB tool output does not leave MBs of it behind (a streamed 48 MB
// upload held 1-3 MB more heap with the default 8 MB); the objects are
// lines and documents whose repeats are near.
var (
	rawEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithLowerEncoderMem(true), zstd.WithEncoderCRC(false), zstd.WithWindowSize(256<<10))
	rawDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxMemory(1<<30))
)

// packRaw is what entries.raw holds for the object b: the object as TEXT
// when it is short (or does not shrink), else rawPackMagic and its
// compressed bytes as a BLOB, appended to arena (the returned arena holds
// them: the caller reuses it once they are written, so that a batch of
// entries allocates nothing for them).
func packRaw(arena, b []byte) (any, []byte) {
	if len(b) < rawPackMin {
		return bytesString(b), arena
	}
	start := len(arena)
	arena = rawEncoder.EncodeAll(b, append(arena, rawPackMagic...))
	if len(arena)-start >= len(b) {
		return bytesString(b), arena[:start]
	}
	return arena[start:len(arena):len(arena)], arena
}

// errRawPacked: a compressed object that does not decompress (a damaged
// library).
var errRawPacked = errors.New("store: an entry's compressed object does not decompress")

// unpackRaw is the object entries.raw holds as v (packRaw): v itself when
// it was kept as it is.
func unpackRaw(v []byte) ([]byte, error) {
	if !bytes.HasPrefix(v, rawPackMagic) {
		return v, nil
	}
	out, err := rawDecoder.DecodeAll(v[len(rawPackMagic):], nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errRawPacked, err)
	}
	return out, nil
}

// unpackRawString is unpackRaw of a column read as a string.
func unpackRawString(v string) ([]byte, error) {
	if !bytes.HasPrefix([]byte(v[:min(len(v), len(rawPackMagic))]), rawPackMagic) {
		return []byte(v), nil
	}
	return unpackRaw([]byte(v))
}

func init() {
	// unpack_raw(raw) is the object an entries.raw value holds, as TEXT,
	// for SQL that reads it (json_extract, instr); NULL stays NULL. It is
	// registered for every connection the driver opens.
	sqlite.MustRegisterDeterministicScalarFunction("unpack_raw", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		switch v := args[0].(type) {
		case nil:
			return nil, nil
		case string:
			return v, nil
		case []byte:
			b, err := unpackRaw(v)
			if err != nil {
				return nil, err
			}
			return string(b), nil
		default:
			return v, nil
		}
	})
}
