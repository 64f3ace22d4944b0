package segment

import (
	"rhizome/backend/session"
)

// ForkPoint finds where a forked session left its parent: the last entry of
// child, in file order, whose id is also an entry id of the parent session
// (parentIDs). pi's createBranchedSession copies the path from the root to
// the fork leaf into the new file with the entries' ids (labels are
// re-created with new ids), so that entry is the fork leaf. ok is false when
// no child entry is in the parent. Entries without an id are skipped.
//
// Forks cross sessions, so the importer makes the fork edge (from the parent
// segment holding entryID to the child's first segment); this only finds the
// entry. See pi-brain-node-model.md, "Fork Edges", corrected by ERRATA.md.
func ForkPoint(child []session.Entry, parentIDs map[string]bool) (entryID string, ok bool) {
	for i := len(child) - 1; i >= 0; i-- {
		if id := child[i].ID; id != "" && parentIDs[id] {
			return id, true
		}
	}
	return "", false
}
