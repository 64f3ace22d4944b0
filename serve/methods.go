package serve

import (
	"encoding/json"

	"rhizome/app"
)

// method is one use case as `rhizome serve` serves it: the number of
// arguments it takes, and call, which decodes them (one JSON value each, as
// many as args) and runs it. call's error is an argError when an argument
// does not decode, else the use case's.
type method struct {
	args int
	call func(args []json.RawMessage) (any, error)
}

// useCases is every use case `rhizome serve` serves, by "Area.Method": an
// explicit list, each entry typed by the method it calls (no reflection).
// It is the set the window binds (app.App.Areas: every exported method of an
// area), TestServedMethodsAreTheBoundOnes holds it to that; the window-only
// ones are here too and answer 501 (app.ErrNoDialogs, app.ErrNoPaths).
func useCases(a *app.App) map[string]method {
	im, lib, g, lm, rs, st, sm := a.Import, a.Library, a.Graph, a.Loom, a.Reasoning, a.Settings, a.Summaries
	return map[string]method{
		"Import.ImportPaths":     call1(im.ImportPaths),
		"Import.ImportFiles":     call1(im.ImportFiles),
		"Import.ImportSamples":   call0(im.ImportSamples),
		"Import.ChooseAndImport": call0(im.ChooseAndImport),

		"Library.Projects":       call0(lib.Projects),
		"Library.Sessions":       call1(lib.Sessions),
		"Library.Timeline":       call1(lib.Timeline),
		"Library.SegmentEntries": call3(lib.SegmentEntries),
		"Library.ToolOutput":     call2(lib.ToolOutput),
		"Library.Stats":          call0(lib.Stats),

		"Graph.Graph":           call1(g.Graph),
		"Graph.Node":            call1(g.Node),
		"Graph.NodeVersions":    call1(g.NodeVersions),
		"Graph.NodeDiff":        call3(g.NodeDiff),
		"Graph.DeriveRelations": call1(g.DeriveRelations),

		"Analysis.Status":    call0(a.Analysis.Status),
		"Analysis.Estimate":  call1(a.Analysis.Estimate),
		"Analysis.Start":     call1(a.Analysis.Start),
		"Analysis.Pause":     call0(a.Analysis.Pause),
		"Analysis.Resume":    call0(a.Analysis.Resume),
		"Analysis.Cancel":    call0(a.Analysis.Cancel),
		"Analysis.SetBudget": call1(a.Analysis.SetBudget),

		"Search.Query":             call2(a.Search.Query),
		"Search.Items":             call3(a.Search.Items),
		"Search.Hybrid":            call1(a.Search.Hybrid),
		"Search.Connect":           call3(a.Search.Connect),
		"Search.SearchSettings":    call0(a.Search.SearchSettings),
		"Search.SetSearchSettings": call1(a.Search.SetSearchSettings),
		"Search.VectorStatus":      call0(func() (app.VectorStatus, error) { return a.Search.VectorStatus(), nil }),
		"Search.RefreshVectors":    call0(func() (app.VectorStatus, error) { return a.Search.RefreshVectors(), nil }),

		"Memory.Consolidate": call1(a.Memory.Consolidate),
		"Memory.Runs":        call1(a.Memory.Runs),
		"Memory.Undo":        call1(a.Memory.Undo),
		"Memory.Due":         call0(a.Memory.Due),

		"Patterns.Dashboard": call0(a.Patterns.Dashboard),

		"Knowledge.List":          call1(a.Knowledge.List),
		"Knowledge.Get":           call1(a.Knowledge.Get),
		"Knowledge.Record":        call1(a.Knowledge.Record),
		"Knowledge.Edit":          call3(a.Knowledge.Edit),
		"Knowledge.SetStatus":     call2(a.Knowledge.SetStatus),
		"Knowledge.Supersede":     call3(a.Knowledge.Supersede),
		"Knowledge.Decisions":     call1(a.Knowledge.Decisions),
		"Knowledge.Rules":         call1(a.Knowledge.Rules),
		"Knowledge.OpenQuestions": call1(a.Knowledge.OpenQuestions),
		"Knowledge.Projects":      call0(a.Knowledge.Projects),
		"Knowledge.Reextract":     call0(a.Knowledge.Reextract),

		"Loom.ListTrees":      call1(lm.ListTrees),
		"Loom.CreateTree":     call1(lm.CreateTree),
		"Loom.Tree":           call1(lm.Tree),
		"Loom.ActivePathView": call3(lm.ActivePathView),
		"Loom.SetActivePath": call2(func(treeID string, ap app.ActivePath) (any, error) {
			return nil, lm.SetActivePath(treeID, ap)
		}),
		"Loom.AddNode":     call3(lm.AddNode),
		"Loom.Edit":        call3(lm.Edit),
		"Loom.Generate":    call1(lm.Generate),
		"Loom.SetBookmark": call4(lm.SetBookmark),
		"Loom.SetPruned":   call3(lm.SetPruned),
		"Loom.SetExcluded": call3(lm.SetExcluded),
		"Loom.CancelGeneration": call1(func(requestID string) (bool, error) {
			return lm.CancelGeneration(requestID), nil
		}),
		"Loom.Bookmarks":       call1(lm.Bookmarks),
		"Loom.Versions":        call2(lm.Versions),
		"Loom.Diff":            call4(lm.Diff),
		"Loom.Authorship":      call3(lm.Authorship),
		"Loom.Export":          call1(lm.Export),
		"Loom.ExportToFile":    call1(lm.ExportToFile),
		"Loom.Import":          call2(lm.Import),
		"Loom.ImportCopy":      call2(lm.ImportCopy),
		"Loom.ImportPaths":     call1(lm.ImportPaths),
		"Loom.ImportCopyPaths": call1(lm.ImportCopyPaths),
		"Loom.Verify":          call1(lm.Verify),
		"Loom.Archive": call2(func(treeID string, archived bool) (any, error) {
			return nil, lm.Archive(treeID, archived)
		}),

		"Reasoning.List":               call0(rs.List),
		"Reasoning.Open":               call1(rs.Open),
		"Reasoning.At":                 call2(rs.At),
		"Reasoning.StepDiff":           call2(rs.StepDiff),
		"Reasoning.Turns":              call2(rs.Turns),
		"Reasoning.ApplyPatch":         call2(rs.ApplyPatch),
		"Reasoning.ApplyFlushAndFold":  call2(rs.ApplyFlushAndFold),
		"Reasoning.AttachConversation": call2(rs.AttachConversation),
		"Reasoning.Export":             call1(rs.Export),
		"Reasoning.ExportToFile":       call1(rs.ExportToFile),
		"Reasoning.Delete": call1(func(graphID string) (any, error) {
			return nil, rs.Delete(graphID)
		}),
		"Reasoning.RunOnSession": call1(rs.RunOnSession),
		"Reasoning.CancelRun": call1(func(requestID string) (bool, error) {
			return rs.CancelRun(requestID), nil
		}),

		"Settings.Get":     call0(st.Get),
		"Settings.SetLLM":  call1(st.SetLLM),
		"Settings.TestLLM": call0(st.TestLLM),

		"Loom.StartFrom":  call2(lm.StartFrom),
		"Links.Relations": call0(a.Links.Relations),
		"Links.Create":    call1(a.Links.Create),
		"Links.Update":    call3(a.Links.Update),
		"Links.Delete":    call1(func(id string) (any, error) { return nil, a.Links.Delete(id) }),
		"Links.Of":        call1(a.Links.Of),
		"Links.Resolve":   call1(a.Links.Resolve),
		"Notes.Get":       call1(a.Notes.Get),
		"Notes.Put":       call2(a.Notes.Put),
		"Notes.Delete":    call1(func(uri string) (any, error) { return nil, a.Notes.Delete(uri) }),
		"Marks.Set":       call3(a.Marks.Set),

		"Settings.SetSummaries": call1(st.SetSummaries),

		"Summaries.Get":         call1(sm.Get),
		"Summaries.Edit":        call3(sm.Edit),
		"Summaries.Revert":      call1(sm.Revert),
		"Summaries.Regenerate":  call1(sm.Regenerate),
		"Summaries.QueueStatus": call0(sm.QueueStatus),
		"Summaries.Cancel":      call0(sm.Cancel),

		"Watch.Folders":          call0(a.Watch.Folders),
		"Watch.SetFolderEnabled": call2(a.Watch.SetFolderEnabled),
		"Watch.AddFolder":        call1(a.Watch.AddFolder),
		"Watch.ChooseFolder":     call0(a.Watch.ChooseFolder),
		"Watch.RemoveFolder":     call1(a.Watch.RemoveFolder),
		"Watch.Status":           call0(a.Watch.Status),
		"Watch.Start": call0(func() (any, error) {
			return nil, a.Watch.Start()
		}),
		"Watch.Stop": call0(func() (any, error) {
			a.Watch.Stop()
			return nil, nil
		}),
	}
}

// argError is an argument of a call that does not decode into its
// parameter's type: n counts from 1.
type argError struct {
	n   int
	err error
}

func (e argError) Error() string { return e.err.Error() }

// decode decodes args into dst, one pointer per argument, in order; JSON
// null leaves a zero value. Its error is an argError naming the argument.
func decode(args []json.RawMessage, dst ...any) error {
	for i, d := range dst {
		if err := json.Unmarshal(args[i], d); err != nil {
			return argError{i + 1, err}
		}
	}
	return nil
}

// calling calls f once its arguments decoded (err nil).
func calling[R any](err error, f func() (R, error)) (any, error) {
	if err != nil {
		return nil, err
	}
	return f()
}

func call0[R any](f func() (R, error)) method {
	return method{0, func([]json.RawMessage) (any, error) { return f() }}
}

func call1[A, R any](f func(A) (R, error)) method {
	return method{1, func(args []json.RawMessage) (any, error) {
		a := new(A)
		return calling(decode(args, a), func() (R, error) { return f(*a) })
	}}
}

func call2[A, B, R any](f func(A, B) (R, error)) method {
	return method{2, func(args []json.RawMessage) (any, error) {
		a, b := new(A), new(B)
		return calling(decode(args, a, b), func() (R, error) { return f(*a, *b) })
	}}
}

func call3[A, B, C, R any](f func(A, B, C) (R, error)) method {
	return method{3, func(args []json.RawMessage) (any, error) {
		a, b, c := new(A), new(B), new(C)
		return calling(decode(args, a, b, c), func() (R, error) { return f(*a, *b, *c) })
	}}
}

func call4[A, B, C, D, R any](f func(A, B, C, D) (R, error)) method {
	return method{4, func(args []json.RawMessage) (any, error) {
		a, b, c, d := new(A), new(B), new(C), new(D)
		return calling(decode(args, a, b, c, d), func() (R, error) { return f(*a, *b, *c, *d) })
	}}
}
