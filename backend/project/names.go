// Package project names projects for people. A project is the working
// directory its sessions ran in, kept as the full path the agent recorded
// (POSIX or Windows); its name is the shortest end of that path that no
// other project of the library shares, so that five checkouts all called
// "workspace" read as "acme/workspace", "ledger/workspace", and so on.
package project

import "strings"

// Names gives each path of paths its display name: the fewest trailing
// elements of the path (joined by the separator the path uses) that end no
// other path of paths. Paths are compared with backslashes read as slashes
// and trailing separators dropped, so "C:\src\x" and "C:/src/x/" are one
// project with one name. A path that is the end of another ("/workspace"
// and "/srv/workspace") has no shorter end of its own and is named in full.
// "" maps to "" (sessions that name no project) and a root to itself. The
// map holds every path of paths as given.
func Names(paths []string) map[string]string {
	elems := map[string][]string{} // by the path as compared
	for _, p := range paths {
		if k := key(p); k != "" {
			elems[k] = split(k)
		}
	}
	out := make(map[string]string, len(paths))
	for _, p := range paths {
		k := key(p)
		if k == "" {
			out[p] = strings.TrimSpace(p)
			continue
		}
		own := elems[k]
		n := 1
		for ; n < len(own); n++ {
			if !sharedEnd(own, n, k, elems) {
				break
			}
		}
		out[p] = join(own[len(own)-n:], p, n == len(own))
	}
	return out
}

// Name is the name of path p among the projects paths (p need not be one
// of them): Names of paths and p.
func Name(p string, paths []string) string {
	return Names(append(append([]string(nil), paths...), p))[p]
}

// key is p as paths are compared: slashes for backslashes, no trailing
// separator (a root keeps its own).
func key(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	if t := strings.TrimRight(p, "/"); t != "" {
		return t
	}
	return p
}

// split is the elements of a key, empty ones left out; a root is its own
// element.
func split(k string) []string {
	var out []string
	for _, e := range strings.Split(k, "/") {
		if e != "" {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		return []string{k}
	}
	return out
}

// sharedEnd says whether the last n elements of own (the path k's) end any
// other path of elems.
func sharedEnd(own []string, n int, k string, elems map[string][]string) bool {
	for other, e := range elems {
		if other == k || len(e) < n {
			continue
		}
		if equal(own[len(own)-n:], e[len(e)-n:]) {
			return true
		}
	}
	return false
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// join writes elements of p with the separator p uses (a backslash for a
// Windows path); whole says they are all of p, which is then given as
// written, trailing separators dropped.
func join(e []string, p string, whole bool) string {
	if whole {
		if t := strings.TrimRight(strings.TrimSpace(p), `/\`); t != "" {
			return t
		}
		return strings.TrimSpace(p)
	}
	sep := "/"
	if strings.Contains(p, `\`) && !strings.Contains(p, "/") {
		sep = `\`
	}
	return strings.Join(e, sep)
}
