package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/help.txt from `rhizome --help`")

// `rhizome --help` (and -h, help) prints the usage made from the command
// table, exactly as README.md's "Command line" documents the commands
// (testdata/help.txt, reviewed in the diff when -update rewrites it), and
// exits 0.
func TestHelp(t *testing.T) {
	t.Setenv("RHIZOME_DB", "/library/for/the/help/test.db")
	want, err := os.ReadFile("testdata/help.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"--help", "-h", "help"} {
		var out, errb bytes.Buffer
		code := run(context.Background(), []string{arg}, &out, &errb)
		if *update && arg == "--help" {
			if err := os.WriteFile("testdata/help.txt", out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			want = out.Bytes()
		}
		if code != 0 || out.String() != string(want) || errb.Len() != 0 {
			t.Errorf("rhizome %s: exit %d, stderr %q, stdout\n%s\nwant exit 0 and\n%s", arg, code, errb.String(), out.String(), want)
		}
	}
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"no-such-command"}, &out, &errb); code != 2 ||
		!strings.HasPrefix(errb.String(), `rhizome: unknown command "no-such-command"`) || !strings.Contains(errb.String(), string(want)) {
		t.Errorf("an unknown command: exit %d, stderr %q; want 2, its name and the usage", code, errb.String())
	}
}

// Every command of the table answers --help (and -h) with its lines of
// `rhizome --help` and its flags, --db among them, on stdout, and exit
// status 0, before it opens any library or window.
func TestEveryCommandsHelp(t *testing.T) {
	t.Setenv("RHIZOME_DB", "/nonexistent/for/the/help/test.db")
	for _, c := range commands {
		for _, arg := range []string{"--help", "-h"} {
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{c.name, arg}, &out, &errb)
			if code != 0 || !strings.Contains(out.String(), c.usage) || !strings.Contains(out.String(), "-db string") || errb.Len() != 0 {
				t.Errorf("rhizome %s %s: exit %d, stderr %q, stdout\n%s\nwant exit 0 and the usage\n%s", c.name, arg, code, errb.String(), out.String(), c.usage)
			}
		}
	}
	// A flag that does not parse is a wrong command line: status 2, said
	// on stderr with the usage.
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"import", "--no-such-flag"}, &out, &errb); code != 2 ||
		!strings.Contains(errb.String(), "no-such-flag") || !strings.Contains(errb.String(), "rhizome import [--db PATH]") {
		t.Errorf("import --no-such-flag: exit %d, stderr %q; want 2, the flag and the usage", code, errb.String())
	}
}
