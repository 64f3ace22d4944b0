package loom

import (
	"fmt"

	"rhizome/backend/authorship"
)

// Authorship returns who wrote which characters of node id's text: the
// plain text of every node along its edit chain (EditChain), from the
// model's original to id, diffed in turn. An unedited node is one run by its
// author. See ERRATA.md, "Editing a model node in dialogue mode".
func (t *Tree) Authorship(id string, view authorship.View) ([]authorship.Run, error) {
	chain := t.EditChain(id)
	if len(chain) == 0 {
		return nil, fmt.Errorf("loom: unable to compute authorship: node %s is not in tree %s", id, t.ID)
	}
	versions := make([]authorship.Version, len(chain))
	for i, n := range chain {
		a := authorship.Human
		if n.AuthorType == AuthorModel {
			a = authorship.Model
		}
		versions[i] = authorship.Version{Text: n.Content.PlainText(), Author: a}
	}
	return authorship.Attribute(versions, view), nil
}
