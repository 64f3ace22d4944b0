package store

import "fmt"

// SessionCounts are the totals an import reports for one session, as the
// library keeps them (table session_counts, migration 0090): kept by
// triggers in the transaction that writes the rows they count, so that an
// append reads them in one indexed lookup instead of counting the whole
// session again.
type SessionCounts struct {
	Segments   int            // segments of the session
	Boundaries map[string]int // boundaries that start them, by boundary type
	Edges      map[string]int // structural edges into or out of its nodes, by edge type
}

// SessionCounts returns the stored totals of the session sessionPK; types
// whose count is 0 are left out of the maps.
func (t *Tx) SessionCounts(sessionPK int64) (SessionCounts, error) {
	out := SessionCounts{Boundaries: map[string]int{}, Edges: map[string]int{}}
	rows, err := t.query(`SELECT kind, type, n FROM session_counts WHERE session_pk = ? AND n <> 0`, sessionPK)
	if err != nil {
		return out, fmt.Errorf("store: unable to read the totals of session %d: %w", sessionPK, err)
	}
	defer rows.Close()
	for rows.Next() {
		var kind, typ string
		var n int
		if err := rows.Scan(&kind, &typ, &n); err != nil {
			return out, fmt.Errorf("store: unable to read the totals of session %d: %w", sessionPK, err)
		}
		switch kind {
		case "segment":
			out.Segments = n
		case "boundary":
			out.Boundaries[typ] = n
		case "edge":
			out.Edges[typ] = n
		default:
			return out, fmt.Errorf("store: unable to read the totals of session %d: unknown kind %q", sessionPK, kind)
		}
	}
	if err := rows.Err(); err != nil {
		return out, fmt.Errorf("store: unable to read the totals of session %d: %w", sessionPK, err)
	}
	return out, nil
}

// CountSession counts the same totals as SessionCounts from the rows
// themselves (every segment and structural edge of the session): what the
// stored totals must equal. Its cost grows with the session; the import
// reads SessionCounts.
func (t *Tx) CountSession(sessionPK int64) (SessionCounts, error) {
	segments, boundaries, err := t.SegmentCounts(sessionPK)
	if err != nil {
		return SessionCounts{}, err
	}
	edges, err := t.SessionEdgeCounts(sessionPK)
	if err != nil {
		return SessionCounts{}, err
	}
	return SessionCounts{Segments: segments, Boundaries: boundaries, Edges: edges}, nil
}
