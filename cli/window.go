package cli

import (
	"context"
	"fmt"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	wruntime "github.com/wailsapp/wails/v2/pkg/runtime"
)

// runWindow is `rhizome` (or `rhizome window [--db PATH] [--provider P
// --base-url URL --model NAME]`): the desktop window on the library. It
// needs a build with `-tags desktop,production` (see the Makefile); other
// builds report that wails cannot run.
func runWindow(_ context.Context, c *call) int {
	stderr := c.stderr
	model := c.modelFlags()
	a, status := c.start(context.Background(), anyArgs, "")
	if a == nil {
		return status
	}
	// Before the library closes: the watcher's import under way ends.
	defer a.Watch.Stop()
	if _, err := useModel(a, model.override()); err != nil {
		fmt.Fprintf(stderr, "rhizome: %v\n", err)
		return 2
	}
	var bind []any
	for _, area := range a.Areas() {
		bind = append(bind, area.Impl)
	}
	err := wails.Run(&options.App{
		Title:            "Rhizome",
		Width:            1280,
		Height:           860,
		MinWidth:         800,
		MinHeight:        560,
		BackgroundColour: &options.RGBA{R: 24, G: 26, B: 31, A: 255},
		AssetServer:      &assetserver.Options{Assets: c.assets.Frontend},
		DragAndDrop:      &options.DragAndDrop{EnableFileDrop: true, DisableWebViewDrop: true},
		OnStartup: func(ctx context.Context) {
			a.SetContext(ctx)
			a.SetEmitter(func(event string, data any) { wruntime.EventsEmit(ctx, event, data) })
			a.SetDialogs(windowDialogs{})
			a.StartSummaries(ctx)
			a.StartBackground(true)
			// The watched folders (Settings): what the agents wrote since the
			// last run is imported, and what they write now shows up live
			// (issue 11 §2). Walking the folders is not the window's wait.
			go func() {
				if err := a.Watch.Start(); err != nil {
					fmt.Fprintf(stderr, "rhizome: the watched folders are not watched: %v\n", err)
				}
			}()
		},
		Bind:  bind,
		Linux: &linux.Options{ProgramName: "rhizome", Icon: c.assets.Icon, WebviewGpuPolicy: linux.WebviewGpuPolicyOnDemand},
	})
	if err != nil {
		fmt.Fprintf(stderr, "rhizome: unable to open the window: %v\n", err)
		return 1
	}
	return 0
}

// windowDialogs are the native file dialogs of the window.
type windowDialogs struct{}

func (windowDialogs) OpenFiles(ctx context.Context, title string) ([]string, error) {
	return wruntime.OpenMultipleFilesDialog(ctx, wruntime.OpenDialogOptions{
		Title:   title,
		Filters: []wruntime.FileFilter{{DisplayName: "Sessions of pi, Claude Code, Gemini CLI, Qwen Code, Copilot CLI, Codex (*.jsonl), Cline (*.messages.json), OpenCode (opencode.db)", Pattern: "*.jsonl;*.messages.json;*.db"}},
	})
}

func (windowDialogs) OpenFolder(ctx context.Context, title string) (string, error) {
	return wruntime.OpenDirectoryDialog(ctx, wruntime.OpenDialogOptions{Title: title})
}

// SaveFile asks where to save a file; "" when cancelled.
func (windowDialogs) SaveFile(ctx context.Context, title, defaultName string) (string, error) {
	return wruntime.SaveFileDialog(ctx, wruntime.SaveDialogOptions{
		Title:           title,
		DefaultFilename: defaultName,
		Filters:         []wruntime.FileFilter{{DisplayName: "Loom trees (*.json)", Pattern: "*.json"}},
	})
}
