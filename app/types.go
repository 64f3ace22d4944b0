package app

// These are the shapes the window and `rhizome serve` exchange with the
// frontend. JSON names are the contract; Go names follow them. The
// frontend's types are generated from them (`make generate` writes
// frontend/src/lib/generated/models.ts; build/contract): a ts_type tag gives
// a field the TypeScript type to write instead of its Go type's, the string
// values it takes (TestTSUnionsAreTheGoValues holds them to the Go
// constants).
//
// They are kept by area, beside the use cases: types_<area>.go holds the
// shapes of <area>.go (types_import.go the import report, types_loom.go the
// loom's, types_knowledge.go the knowledge area's, types_links.go those of
// links, notes and marks, ...). Every list in a result is sent as [], never
// null (TestContractResultListsNeverNull, TestContractListsNotOmitted).
