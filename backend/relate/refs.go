package relate

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"rhizome/backend/link"
)

// MaxRefs bounds the references Refs returns for one text.
const MaxRefs = 32

var (
	urlRE    = regexp.MustCompile(`https?://[^\s<>"'\x60\])}]+`)
	githubRE = regexp.MustCompile(`^(?i:https?://(?:www\.)?github\.com)/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(issues|pull|pulls)/(\d{1,7})(?:[/?#].*)?$`)
	// A bare "#123" (1 to 5 digits, not a hex colour such as #b5bd68 or
	// #283228) or "issue 123" / "PR #123".
	bareRE = regexp.MustCompile(`(?i)(?:^|[\s(\[,;:])(?:(?:issue|pr|pull request|bug)\s*#?|#)(\d{1,5})(?:$|[^0-9a-zA-Z_])`)
)

// Refs extracts the issue, pull request and URL references of a text, in
// order of first appearance, each once, at most MaxRefs:
//
//   - a GitHub issue or pull request URL becomes
//     "https://github.com/<owner>/<repo>/issues/<n>" (or "/pull/<n>"),
//     owner and repo lowercased, anything after the number dropped;
//   - another http(s) URL is kept in link's canonical form, its fragment
//     and trailing punctuation dropped;
//   - a bare "#123", "issue 123" or "PR #123" becomes "#123": a number of
//     the project's own tracker, related only within the project.
//
// Hex colours ("#b5bd68", "#283228") are not references.
func Refs(text string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(r string) {
		if r != "" && !seen[r] && len(out) < MaxRefs {
			seen[r] = true
			out = append(out, r)
		}
	}
	type hit struct {
		at  int
		ref string
	}
	var hits []hit
	for _, loc := range urlRE.FindAllStringIndex(text, -1) {
		hits = append(hits, hit{loc[0], canonicalURL(text[loc[0]:loc[1]])})
	}
	urlSpans := urlRE.FindAllStringIndex(text, -1)
	for _, m := range bareRE.FindAllStringSubmatchIndex(text, -1) {
		inURL := false
		for _, sp := range urlSpans {
			if m[2] >= sp[0] && m[2] < sp[1] {
				inURL = true
			}
		}
		if !inURL {
			hits = append(hits, hit{m[2], "#" + strings.TrimLeft(text[m[2]:m[3]], "0")})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
	for _, h := range hits {
		if h.ref != "#" {
			add(h.ref)
		}
	}
	return out
}

// canonicalURL normalises one URL found in text; "" when it is not one.
func canonicalURL(u string) string {
	u = strings.TrimRight(u, ".,;:!?")
	if m := githubRE.FindStringSubmatch(u); m != nil {
		kind := m[3]
		if kind == "pulls" {
			kind = "pull"
		}
		return fmt.Sprintf("https://github.com/%s/%s/%s/%s", strings.ToLower(m[1]), strings.ToLower(m[2]), kind, strings.TrimLeft(m[4], "0"))
	}
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return ""
	}
	p.Fragment, p.RawFragment = "", ""
	it, err := link.Parse(p.String())
	if err != nil || it.Kind != link.KindURL {
		return ""
	}
	return it.ID
}

// refKey names a reference across the corpus: a bare number is the
// project's; a GitHub issue and pull request of one number are one thread.
func refKey(project, ref string) string {
	if strings.HasPrefix(ref, "#") {
		return project + "\x00" + ref
	}
	if m := githubRE.FindStringSubmatch(ref); m != nil {
		return "github.com/" + strings.ToLower(m[1]+"/"+m[2]) + "#" + strings.TrimLeft(m[4], "0")
	}
	return ref
}

// isIssue reports whether a reference is an issue or pull request (a
// GitHub one or a bare number) rather than another URL.
func isIssue(ref string) bool {
	return strings.HasPrefix(ref, "#") || githubRE.MatchString(ref)
}

// sharedRefs: a segment REFERENCES the GitHub issue or pull request URL its
// text names (confidence 0.9: the text says it); segments of different
// sessions that name the same issue, pull request or URL RELATES_TO each
// other (0.6 for an issue or PR, 0.45 for a bare number within the
// project, 0.5 for another URL). References named by more than
// MaxRefPostings segments relate nothing.
func (c *corpus) sharedRefs(opts Options) []Edge {
	index := map[string][]int32{}
	display := map[string]string{}
	var keys []string
	var edges []Edge
	for i, s := range c.segs {
		seen := map[string]bool{}
		for _, r := range s.Refs {
			k := refKey(s.Project, r)
			if r == "" || seen[k] {
				continue
			}
			seen[k] = true
			if _, ok := index[k]; !ok {
				keys = append(keys, k)
				display[k] = r
			}
			index[k] = append(index[k], int32(i))
			if githubRE.MatchString(r) {
				if target, err := link.Parse(r); err == nil && target.Kind == link.KindURL {
					edges = append(edges, Edge{Source: link.Node(s.ID), Target: target, Relation: link.References,
						Confidence: 0.9, CreatedBy: link.ByOffline,
						Rationale: "the segment's text names " + r})
				}
			}
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		post := index[k]
		if len(post) < 2 || len(post) > opts.MaxRefPostings {
			continue
		}
		ref := display[k]
		conf, what := 0.5, "the URL "+ref
		switch {
		case strings.HasPrefix(ref, "#"):
			conf, what = 0.45, "issue "+ref+" of the project"
		case isIssue(ref):
			conf, what = 0.6, ref
		}
		for x := 0; x < len(post); x++ {
			for y := x + 1; y < len(post); y++ {
				a, b := int(post[x]), int(post[y])
				if c.segs[a].SessionID == c.segs[b].SessionID && c.segs[a].Project == c.segs[b].Project {
					continue
				}
				src, dst := c.earlierFirst(a, b)
				edges = append(edges, Edge{Source: link.Node(c.segs[src].ID), Target: link.Node(c.segs[dst].ID),
					Relation: link.RelatesTo, Confidence: conf, CreatedBy: link.ByOffline,
					Rationale: fmt.Sprintf("both name %s (named by %d segments)", what, len(post))})
			}
		}
	}
	return edges
}
