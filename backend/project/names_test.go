package project

import (
	"maps"
	"testing"
)

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		name  string
		paths []string
		want  map[string]string
	}{
		{"one project: its directory", []string{"/home/dana/src/acme-api"}, map[string]string{"/home/dana/src/acme-api": "acme-api"}},
		{"different directories: the last element",
			[]string{"/Users/badlogic/workspaces/pi-mono", "/home/dana/ledger"},
			map[string]string{"/Users/badlogic/workspaces/pi-mono": "pi-mono", "/home/dana/ledger": "ledger"}},
		{"five checkouts called workspace, POSIX and Windows",
			[]string{"/home/dana/src/acme/workspace", "/home/dana/src/ledger/workspace", "/srv/ci/workspace", `C:\Users\dana\beta\workspace`, "/home/kim/workspace", "/home/kim/notes"},
			map[string]string{"/home/dana/src/acme/workspace": "acme/workspace", "/home/dana/src/ledger/workspace": "ledger/workspace",
				"/srv/ci/workspace": "ci/workspace", `C:\Users\dana\beta\workspace`: `beta\workspace`, "/home/kim/workspace": "kim/workspace", "/home/kim/notes": "notes"}},
		{"a tie two elements up: three elements, or the whole path when it takes all",
			[]string{"/home/a/x/src/app", "/home/b/x/src/app", "/home/c/y/src/app", "/a/x/src/app"},
			map[string]string{"/home/a/x/src/app": "/home/a/x/src/app", "/home/b/x/src/app": "b/x/src/app", "/home/c/y/src/app": "y/src/app", "/a/x/src/app": "/a/x/src/app"}},
		{"a path that ends another is named in full",
			[]string{"/workspace", "/srv/workspace", "/home/workspace"},
			map[string]string{"/workspace": "/workspace", "/srv/workspace": "/srv/workspace", "/home/workspace": "/home/workspace"}},
		{"one project written two ways: one name",
			[]string{`C:\src\app`, "C:/src/app/", `D:\src\app`},
			map[string]string{`C:\src\app`: `C:\src\app`, "C:/src/app/": "C:/src/app", `D:\src\app`: `D:\src\app`}},
		{"Windows drives apart", []string{`C:\work\api`, `D:\work\api`, `E:\other`},
			map[string]string{`C:\work\api`: `C:\work\api`, `D:\work\api`: `D:\work\api`, `E:\other`: "other"}},
		{"no project and a root", []string{"", "/", "/srv/app"}, map[string]string{"": "", "/": "/", "/srv/app": "app"}},
		{"trailing separators", []string{"/srv/x/app/", "/home/app//"}, map[string]string{"/srv/x/app/": "x/app", "/home/app//": "/home/app"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Names(tc.paths); !maps.Equal(got, tc.want) {
				t.Errorf("Names(%q)\n got %q\nwant %q", tc.paths, got, tc.want)
			}
		})
	}
}

func TestNameAmongOthers(t *testing.T) {
	lib := []string{"/home/dana/src/acme/workspace", "/srv/ci/workspace"}
	if got := Name("/srv/ci/workspace", lib); got != "ci/workspace" {
		t.Errorf("a project of the library: %q, want ci/workspace", got)
	}
	if got := Name("/home/kim/workspace", lib); got != "kim/workspace" {
		t.Errorf("a project not in the library: %q, want kim/workspace", got)
	}
	if got := Name("/home/kim/workspace", nil); got != "workspace" {
		t.Errorf("alone: %q, want workspace", got)
	}
}
