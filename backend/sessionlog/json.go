package sessionlog

// Scanning JSON without decoding it: where a value ends, for the readers
// that cut a record or a document into the spans of its members and
// elements (the Gemini CLI reader's records, sessiondoc's documents) and
// decode only the ones they need.

// SkipSpace returns the index of the first byte at or after i of b that is
// not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// SkipString returns the end of the JSON string starting at b[i] ('"'), -1
// when it does not end.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

// SkipValue returns the end of the JSON value starting at b[i], -1 when it
// does not end.
func SkipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := SkipString(b, i)
				if e < 0 {
					return -1
				}
				i = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	s := i
scan:
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			break scan
		}
	}
	if i == s {
		return -1
	}
	return i
}
