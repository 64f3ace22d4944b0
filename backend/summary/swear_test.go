package summary

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"rhizome/backend/pisession/pitest"
)

// swearCases are sentences at the edges of the swearing prefilter: every
// case, letters that fold to ASCII ones (the Kelvin sign, the long s), and
// words split or run together.
var swearCases = []string{"FUCK this", "What the Fucking hell", "DaMn it", "bloody", "BLOODY hell", "fkn slow",
	"the freaking build", "friggin", "goddamn", "oh sHiT", "shitty", "stupid", "IDIOT", "wtf", "OMFG", "Jesus",
	"crap", "dumb", "moron", "fuc k", "da mn", "fuc\u212A", "\u017Fhit", "dam\u00f1", "cafe\u0301 damn", "plain text", ""}

// TestSwearWordsPrefilter holds mayContain to the expressions it spares:
// whenever it says a sentence holds none of the words, the expression does
// not match it, on every line and sentence of the real sessions and on the
// edge cases.
func TestSwearWordsPrefilter(t *testing.T) {
	var texts []string
	texts = append(texts, swearCases...)
	for _, dir := range []string{pitest.SamplesDir(), "../claudecode/testdata", "../codex/testdata"} {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, line := range strings.Split(string(data), "\n") {
				texts = append(texts, line)
				texts = append(texts, Sentences(line)...)
			}
			return nil
		})
	}
	spared := 0
	for _, s := range texts {
		if !checkSwearPrefilter(t, s) {
			spared++
		}
	}
	if len(texts) < 1000 || spared < len(texts)/2 {
		t.Fatalf("%d texts, %d spared the expressions", len(texts), spared)
	}
}

// checkSwearPrefilter fails when mayContain rules out a match an
// expression finds in s; it reports whether any expression ran.
func checkSwearPrefilter(t *testing.T, s string) bool {
	t.Helper()
	ran := false
	for _, c := range []struct {
		re    *regexp.Regexp
		words []string
	}{{swearAny, swearAnyWords}, {swearIntens, swearIntensWords}, {swearNoun, swearNounWords}} {
		may := mayContain(s, c.words)
		if !may && c.re.MatchString(s) {
			t.Fatalf("%q: %v matches, mayContain says it cannot", s, c.re)
		}
		ran = ran || may
	}
	return ran
}

// FuzzSwearWordsPrefilter checks the prefilter on arbitrary text.
func FuzzSwearWordsPrefilter(f *testing.F) {
	for _, s := range swearCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkSwearPrefilter(t, s) })
}
