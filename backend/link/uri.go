package link

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// Scheme is the URI scheme of every item in the library.
const Scheme = "rhizome"

// Kind is what an Item names.
type Kind string

// Item kinds. The first ten live in the library and have a rhizome: URI;
// KindURL and KindFile are external targets.
const (
	KindSession   Kind = "session"   // rhizome:session/<sessionId>
	KindNode      Kind = "node"      // rhizome:node/<nodeId> (a knowledge-graph node: one segment)
	KindEntry     Kind = "entry"     // rhizome:entry/<sessionId>/<entryId>
	KindLoomTree  Kind = "loom"      // rhizome:loom/<treeId>
	KindLoomNode  Kind = "loomNode"  // rhizome:loom/<treeId>/<nodeId>
	KindProject   Kind = "project"   // rhizome:project/<percent-encoded path>
	KindNote      Kind = "note"      // rhizome:note/<noteId>
	KindKnowledge Kind = "knowledge" // rhizome:knowledge/<id> (the consolidated knowledge nodes of a later issue)
	// KindReasoning is a MemoBrain reasoning graph: rhizome:reasoning/<graphId>.
	KindReasoning Kind = "reasoning"
	// KindReasoningNode is a node of a reasoning graph (its MemoBrain
	// node id): rhizome:reasoning/<graphId>/<nodeId>.
	KindReasoningNode Kind = "reasoningNode"
	KindURL           Kind = "url"  // https://… or http://…
	KindFile          Kind = "file" // an absolute file path
)

// Limits on what an Item may hold, in bytes.
const (
	MaxIDBytes   = 256  // an id (session, node, entry, tree, note, knowledge)
	MaxPathBytes = 4096 // a project or file path
	// MaxURIBytes bounds a whole URI, URL or path as written: room for the
	// longest path with every byte percent-encoded.
	MaxURIBytes = 3*MaxPathBytes + 64
)

// Item names one thing a link can join: a session, knowledge-graph node,
// session entry, loom tree or node, project, note or knowledge node of the
// library, or an external URL or file. Its String is its URI; it marshals to
// JSON as that string.
//
// The zero Item is invalid. Build items with the constructors (Session,
// Entry, LoomNode, …) or Parse, and check foreign ones with Validate.
type Item struct {
	Kind Kind // what the item is
	// ID is the item's own id: the session, node, entry, loom tree, loom node,
	// note, knowledge, reasoning graph or reasoning node id; the path of a
	// project or file; the URL of a URL.
	ID string
	// Within is the id of the item that holds this one: the session of an
	// entry, the tree of a loom node, the graph of a reasoning node; "" for
	// every other kind.
	Within string
}

// Session is the item of the session with id sessionID.
func Session(sessionID string) Item { return Item{Kind: KindSession, ID: sessionID} }

// Node is the item of the knowledge-graph node with id nodeID.
func Node(nodeID string) Item { return Item{Kind: KindNode, ID: nodeID} }

// Entry is the item of entry entryID of session sessionID.
func Entry(sessionID, entryID string) Item {
	return Item{Kind: KindEntry, ID: entryID, Within: sessionID}
}

// LoomTree is the item of the loom tree with id treeID.
func LoomTree(treeID string) Item { return Item{Kind: KindLoomTree, ID: treeID} }

// LoomNode is the item of node nodeID of loom tree treeID.
func LoomNode(treeID, nodeID string) Item {
	return Item{Kind: KindLoomNode, ID: nodeID, Within: treeID}
}

// Project is the item of the project whose directory is path (a session's cwd).
func Project(path string) Item { return Item{Kind: KindProject, ID: path} }

// Note is the item of the note with id noteID.
func Note(noteID string) Item { return Item{Kind: KindNote, ID: noteID} }

// Knowledge is the item of the knowledge node with id id.
func Knowledge(id string) Item { return Item{Kind: KindKnowledge, ID: id} }

// Reasoning is the item of the reasoning graph with id graphID.
func Reasoning(graphID string) Item { return Item{Kind: KindReasoning, ID: graphID} }

// ReasoningNode is the item of node nodeID (MemoBrain's integer id, in
// decimal) of reasoning graph graphID.
func ReasoningNode(graphID, nodeID string) Item {
	return Item{Kind: KindReasoningNode, ID: nodeID, Within: graphID}
}

// URL is the item of an external http or https URL.
func URL(u string) Item { return Item{Kind: KindURL, ID: u} }

// File is the item of an external file at an absolute path.
func File(path string) Item { return Item{Kind: KindFile, ID: path} }

// InLibrary reports whether the item lives in the library (has a rhizome:
// URI), as opposed to an external URL or file.
func (it Item) InLibrary() bool { return it.Kind != KindURL && it.Kind != KindFile }

// String is the item's URI: rhizome:<kind>/<id> with every id percent-encoded
// (RFC 3986: all but letters, digits and "-._~"), the URL of a URL, the path
// of a file. An invalid item gives "" (see Validate).
func (it Item) String() string {
	if it.Validate() != nil {
		return ""
	}
	return it.format()
}

// format writes the URI of a valid item.
func (it Item) format() string {
	switch it.Kind {
	case KindURL, KindFile:
		return it.ID
	case KindEntry:
		return Scheme + ":entry/" + escape(it.Within) + "/" + escape(it.ID)
	case KindLoomNode:
		return Scheme + ":loom/" + escape(it.Within) + "/" + escape(it.ID)
	case KindReasoningNode:
		return Scheme + ":reasoning/" + escape(it.Within) + "/" + escape(it.ID)
	}
	return Scheme + ":" + string(it.Kind) + "/" + escape(it.ID)
}

// MarshalText writes the item's URI; an invalid item is an error.
func (it Item) MarshalText() ([]byte, error) {
	if err := it.Validate(); err != nil {
		return nil, err
	}
	return []byte(it.format()), nil
}

// UnmarshalText parses a URI (see Parse).
func (it *Item) UnmarshalText(b []byte) error {
	p, err := Parse(string(b))
	if err != nil {
		return err
	}
	*it = p
	return nil
}

// Validate reports what is wrong with an item built by hand: an unknown kind,
// an empty, overlong or non-UTF-8 id (see MaxIDBytes, MaxPathBytes), control
// characters, a Within on a kind that has none (or none on an entry or loom
// node), a URL that Parse would reject, or a file path that is not absolute.
func (it Item) Validate() error {
	switch it.Kind {
	case KindSession, KindNode, KindLoomTree, KindNote, KindKnowledge, KindReasoning:
		if it.Within != "" {
			return fmt.Errorf("link: %s item: field within must be empty, got %q", it.Kind, it.Within)
		}
		return checkID(it.Kind, "id", it.ID)
	case KindEntry, KindLoomNode, KindReasoningNode:
		within := "sessionId"
		switch it.Kind {
		case KindLoomNode:
			within = "treeId"
		case KindReasoningNode:
			within = "graphId"
		}
		if err := checkID(it.Kind, within, it.Within); err != nil {
			return err
		}
		return checkID(it.Kind, "id", it.ID)
	case KindProject:
		if it.Within != "" {
			return fmt.Errorf("link: project item: field within must be empty, got %q", it.Within)
		}
		return checkPath(it.Kind, it.ID)
	case KindURL:
		if it.Within != "" {
			return fmt.Errorf("link: url item: field within must be empty, got %q", it.Within)
		}
		p, err := parseURL(it.ID)
		if err != nil {
			return err
		}
		if p.ID != it.ID {
			return fmt.Errorf("link: url item %q: not in canonical form (want %q)", it.ID, p.ID)
		}
		return nil
	case KindFile:
		if it.Within != "" {
			return fmt.Errorf("link: file item: field within must be empty, got %q", it.Within)
		}
		if err := checkPath(it.Kind, it.ID); err != nil {
			return err
		}
		if !isAbsPath(it.ID) {
			return fmt.Errorf("link: file item %q: not an absolute path", it.ID)
		}
		return nil
	case "":
		return errors.New("link: item has no kind")
	}
	return fmt.Errorf("link: unknown item kind %q", it.Kind)
}

// checkID checks one id field of an item of kind k.
func checkID(k Kind, field, id string) error {
	switch {
	case id == "":
		return fmt.Errorf("link: %s item: field %s is empty", k, field)
	case len(id) > MaxIDBytes:
		return fmt.Errorf("link: %s item: field %s is %d bytes, the limit is %d", k, field, len(id), MaxIDBytes)
	}
	return checkText(k, field, id)
}

// checkPath checks a project or file path.
func checkPath(k Kind, p string) error {
	switch {
	case p == "":
		return fmt.Errorf("link: %s item: the path is empty", k)
	case len(p) > MaxPathBytes:
		return fmt.Errorf("link: %s item: the path is %d bytes, the limit is %d", k, len(p), MaxPathBytes)
	}
	return checkText(k, "path", p)
}

// checkText rejects invalid UTF-8 and control characters (C0, DEL, C1).
func checkText(k Kind, field, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("link: %s item: field %s is not valid UTF-8", k, field)
	}
	for i, r := range s {
		if r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return fmt.Errorf("link: %s item: field %s has control character %U at byte %d", k, field, r, i)
		}
	}
	return nil
}

// isAbsPath reports whether p is an absolute path on Unix ("/…") or Windows
// ("C:\…", "C:/…", or a UNC path "\\server\share").
func isAbsPath(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Parse reads a URI into an Item. It accepts, and nothing else:
//
//	rhizome:session/<sessionId>
//	rhizome:node/<nodeId>
//	rhizome:entry/<sessionId>/<entryId>
//	rhizome:loom/<treeId>
//	rhizome:loom/<treeId>/<nodeId>
//	rhizome:project/<path, percent-encoded, "/" as %2F>
//	rhizome:note/<noteId>
//	rhizome:knowledge/<id>
//	rhizome:reasoning/<graphId>
//	rhizome:reasoning/<graphId>/<nodeId>
//	https://host/… and http://host/… (no user name or password)
//	an absolute file path (/…, C:\…, C:/…, \\server\share\…), or a file:///… URL
//
// Ids are percent-decoded; the scheme and kind are lowercase. The error says
// what is wrong and where: an unknown scheme or kind, a missing or extra
// segment, an empty segment, a bad percent escape, a query or fragment on a
// rhizome: URI, an overlong or control-character id, a relative path.
//
// Parse(it.String()) gives it back for every valid Item (the round trip);
// Parse accepts some spellings String does not write (a file:// URL, an
// unneeded escape such as %61), so String(Parse(s)) is s's canonical form.
func Parse(s string) (Item, error) {
	if s == "" {
		return Item{}, errors.New("link: empty URI")
	}
	if len(s) > MaxURIBytes {
		return Item{}, fmt.Errorf("link: URI is %d bytes, the limit is %d", len(s), MaxURIBytes)
	}
	if isAbsPath(s) {
		it := File(s)
		if err := it.Validate(); err != nil {
			return Item{}, err
		}
		return it, nil
	}
	colon := strings.IndexByte(s, ':')
	if colon <= 0 {
		return Item{}, fmt.Errorf("link: %q: neither a URI (scheme:…) nor an absolute path", clip(s))
	}
	scheme := s[:colon]
	switch scheme {
	case Scheme:
		return parseRhizome(s)
	case "https", "http":
		return parseURL(s)
	case "file":
		return parseFileURL(s)
	}
	if strings.EqualFold(scheme, Scheme) || strings.EqualFold(scheme, "https") ||
		strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "file") {
		return Item{}, fmt.Errorf("link: %q: write the scheme in lowercase (%q)", clip(s), strings.ToLower(scheme)+":")
	}
	return Item{}, fmt.Errorf("link: %q: unsupported scheme %q (want rhizome:, https:, http: or an absolute path)", clip(s), scheme)
}

// parseRhizome parses a rhizome: URI.
func parseRhizome(s string) (Item, error) {
	rest := s[len(Scheme)+1:]
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		return Item{}, fmt.Errorf("link: %q: a rhizome URI has no query or fragment (%q at byte %d)", clip(s), rest[i], len(Scheme)+1+i)
	}
	if strings.HasPrefix(rest, "/") {
		return Item{}, fmt.Errorf("link: %q: no slashes after %q: write %s:<kind>/<id>", clip(s), Scheme+":", Scheme)
	}
	parts := strings.Split(rest, "/")
	kind := Kind(parts[0])
	var want int
	switch kind {
	case KindSession, KindNode, KindNote, KindKnowledge, KindProject:
		want = 2
	case KindEntry:
		want = 3
	case KindLoomTree:
		want = len(parts) // 2 for a tree, 3 for a node
		if want < 2 || want > 3 {
			return Item{}, fmt.Errorf("link: %q: want rhizome:loom/<treeId> or rhizome:loom/<treeId>/<nodeId>", clip(s))
		}
	case KindReasoning:
		want = len(parts) // 2 for a graph, 3 for a node
		if want < 2 || want > 3 {
			return Item{}, fmt.Errorf("link: %q: want rhizome:reasoning/<graphId> or rhizome:reasoning/<graphId>/<nodeId>", clip(s))
		}
	case "":
		return Item{}, fmt.Errorf("link: %q: no kind after %q", clip(s), Scheme+":")
	default:
		return Item{}, fmt.Errorf("link: %q: unknown kind %q (want session, node, entry, loom, project, note, knowledge or reasoning)", clip(s), parts[0])
	}
	if len(parts) != want {
		return Item{}, fmt.Errorf("link: %q: %s URI has %d segments after the kind, want %d (%s)", clip(s), kind, len(parts)-1, want-1, grammar[kind])
	}
	ids := make([]string, len(parts)-1)
	for i, p := range parts[1:] {
		if p == "" {
			return Item{}, fmt.Errorf("link: %q: segment %d is empty (%s)", clip(s), i+1, grammar[kind])
		}
		id, err := unescape(p)
		if err != nil {
			return Item{}, fmt.Errorf("link: %q: segment %d: %w", clip(s), i+1, err)
		}
		ids[i] = id
	}
	var it Item
	switch {
	case kind == KindEntry:
		it = Entry(ids[0], ids[1])
	case kind == KindLoomTree && len(ids) == 2:
		it = LoomNode(ids[0], ids[1])
	case kind == KindReasoning && len(ids) == 2:
		it = ReasoningNode(ids[0], ids[1])
	default:
		it = Item{Kind: kind, ID: ids[0]}
	}
	if err := it.Validate(); err != nil {
		return Item{}, fmt.Errorf("%w (in %q)", err, clip(s))
	}
	return it, nil
}

// grammar is the form of each rhizome kind's URI, for error messages.
var grammar = map[Kind]string{
	KindSession:   "rhizome:session/<sessionId>",
	KindNode:      "rhizome:node/<nodeId>",
	KindEntry:     "rhizome:entry/<sessionId>/<entryId>",
	KindLoomTree:  "rhizome:loom/<treeId>[/<nodeId>]",
	KindProject:   "rhizome:project/<percent-encoded path>",
	KindNote:      "rhizome:note/<noteId>",
	KindKnowledge: "rhizome:knowledge/<id>",
	KindReasoning: "rhizome:reasoning/<graphId>[/<nodeId>]",
}

// parseURL parses an http or https URL into its canonical form (net/url's
// String): it needs a host and may not carry a user name or password (a
// classic disguise: https://bank.com@evil.example/).
func parseURL(s string) (Item, error) {
	if len(s) > MaxURIBytes {
		return Item{}, fmt.Errorf("link: URL is %d bytes, the limit is %d", len(s), MaxURIBytes)
	}
	if err := checkText(KindURL, "url", s); err != nil {
		return Item{}, err
	}
	if strings.ContainsAny(s, " \t") {
		return Item{}, fmt.Errorf("link: URL %q has a space; percent-encode it as %%20", clip(s))
	}
	u, err := url.Parse(s)
	if err != nil {
		return Item{}, fmt.Errorf("link: URL %q: %w", clip(s), unwrapURLError(err))
	}
	switch {
	case u.Scheme != "https" && u.Scheme != "http":
		return Item{}, fmt.Errorf("link: URL %q: scheme %q, want https or http", clip(s), u.Scheme)
	case u.Opaque != "" || u.Host == "":
		return Item{}, fmt.Errorf("link: URL %q has no host (want %s://host/…)", clip(s), u.Scheme)
	case u.User != nil:
		return Item{}, fmt.Errorf("link: URL %q carries a user name or password before the host; links may not", clip(s))
	}
	return URL(u.String()), nil
}

// parseFileURL reads a file:///path URL as the File item of its path.
func parseFileURL(s string) (Item, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Item{}, fmt.Errorf("link: file URL %q: %w", clip(s), unwrapURLError(err))
	}
	if u.Opaque != "" {
		return Item{}, fmt.Errorf("link: file URL %q: not an absolute path (want file:///path)", clip(s))
	}
	if u.Host != "" && u.Host != "localhost" {
		return Item{}, fmt.Errorf("link: file URL %q names host %q; only local files (file:///path) are links", clip(s), u.Host)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Item{}, fmt.Errorf("link: file URL %q has a query or fragment", clip(s))
	}
	p := u.Path
	// file:///C:/dir: the Windows drive comes after the slash.
	if len(p) >= 4 && p[0] == '/' && isLetter(p[1]) && p[2] == ':' && p[3] == '/' {
		p = p[1:]
	}
	it := File(p)
	if err := it.Validate(); err != nil {
		return Item{}, err
	}
	return it, nil
}

// unwrapURLError drops net/url's repetition of the input from its error.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// escape percent-encodes every byte of s but the unreserved characters of
// RFC 3986 (letters, digits, "-", ".", "_", "~"), in uppercase hex.
func escape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if unreserved(c) {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	return string(b)
}

func unreserved(c byte) bool {
	return isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// unescape decodes the percent escapes of one segment. It rejects a "%" not
// followed by two hex digits, and characters that must be escaped but are
// not (anything outside the unreserved set and RFC 3986's sub-delims, ":"
// and "@"), so that a URI pasted with a raw space or quote is reported.
func unescape(seg string) (string, error) {
	var b []byte
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch {
		case c == '%':
			if i+2 >= len(seg) || !isHex(seg[i+1]) || !isHex(seg[i+2]) {
				return "", fmt.Errorf("bad percent escape %q at byte %d", seg[i:min(i+3, len(seg))], i)
			}
			if b == nil {
				b = append(make([]byte, 0, len(seg)), seg[:i]...)
			}
			b = append(b, unhex(seg[i+1])<<4|unhex(seg[i+2]))
			i += 2
			continue
		case unreserved(c) || strings.IndexByte("!$&'()*+,;=:@", c) >= 0:
		default:
			return "", fmt.Errorf("character %q at byte %d must be percent-encoded", rune(c), i)
		}
		if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return seg, nil
	}
	return string(b), nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// clip shortens s for an error message: at most 120 bytes, cut at a rune.
func clip(s string) string {
	const n = 120
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
