package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"rhizome/app"
	"rhizome/store"
)

// call is one run of a command: its flags (--db, which every command takes,
// and those the command adds before parse), its output, and what the binary
// embeds. It is the preamble the commands share.
type call struct {
	*flag.FlagSet
	cmd            *command
	args           []string
	stdout, stderr io.Writer
	assets         Assets
	// db is --db: the library file, defaultDBPath unless given.
	db *string
	// st is the library that open opened (nil until then), closed by Run
	// once the command returns.
	st *store.Store
}

// newCall is a run of cmd on args (the words after its name), with --db.
func newCall(cmd *command, args []string, stdout, stderr io.Writer, assets Assets) *call {
	fl := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fl.SetOutput(stderr)
	c := &call{FlagSet: fl, cmd: cmd, args: args, stdout: stdout, stderr: stderr, assets: assets}
	c.db = fl.String("db", defaultDBPath(), "library file")
	fl.Usage = func() {} // parse prints it, where it belongs
	return c
}

// parse parses the command's arguments, flags before and after the
// positional ones (reorder). It returns false with the exit status when the
// command should not run: 0 for --help (its usage and flags printed on
// stdout), 2 for a flag that does not parse (said on stderr, with the
// usage).
func (c *call) parse() (status int, ok bool) {
	var valueFlags []string
	c.VisitAll(func(f *flag.Flag) {
		if b, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool || !b.IsBoolFlag() {
			valueFlags = append(valueFlags, f.Name)
		}
	})
	err := c.Parse(reorder(c.args, valueFlags...))
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.printUsage(c.stdout)
		return 0, false
	case err != nil:
		c.printUsage(c.stderr)
		return 2, false
	}
	return 0, true
}

// printUsage prints the command's lines of `rhizome --help` and its flags.
func (c *call) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage:\n%s\nFlags:\n", c.cmd.usage)
	c.SetOutput(w)
	c.PrintDefaults()
	c.SetOutput(c.stderr)
}

// anyArgs is start's nargs for a command that lets positional arguments be.
const anyArgs = -1

// start is the preamble of a command that takes nargs positional
// arguments (or anyArgs): parse, then, when the count is not nargs, why on
// stderr ("rhizome NAME: why") and status 2, then open under ctx.
func (c *call) start(ctx context.Context, nargs int, why string) (*app.App, int) {
	if status, ok := c.parse(); !ok {
		return nil, status
	}
	if nargs != anyArgs && c.NArg() != nargs {
		fmt.Fprintf(c.stderr, "rhizome %s: %s\n", c.cmd.name, why)
		return nil, 2
	}
	return c.open(ctx)
}

// open opens the library at --db and the app over it, under ctx: the app's
// use cases run under ctx too. The library is closed once the command
// returns (close). When it cannot, it says why on stderr and returns a nil
// app and the exit status: interruptedStatus when ctx ended, else 1.
func (c *call) open(ctx context.Context) (*app.App, int) {
	st, err := store.OpenContext(ctx, *c.db)
	if err != nil {
		fmt.Fprintf(c.stderr, "rhizome: %v\n", err)
		if ctx.Err() != nil {
			return nil, interruptedStatus(ctx)
		}
		return nil, 1
	}
	c.st = st
	a := app.New(st, *c.db)
	a.SetContext(ctx)
	return a, 0
}

// printJSON prints v on w as indented JSON, a command's --json output.
func printJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// close closes the library open opened, if it did.
func (c *call) close() {
	if c.st != nil {
		c.st.Close()
	}
}

// modelFlags are the flags of a command that uses a model: the model for
// this run, laid over the RHIZOME_LLM_* variables, which are laid over the
// library's settings (App.SetModelOverride). The API key comes from
// RHIZOME_LLM_API_KEY only (a flag would show it to every user of ps), else
// from the keys the library keeps per provider and base URL. Every command
// that uses a model (the window, serve, summarize) reads the model through
// this one piece.
type modelFlags struct {
	provider, baseURL, model *string
}

// modelFlags adds --provider, --base-url and --model to the command's flags.
func (c *call) modelFlags() *modelFlags {
	fl := c.FlagSet
	return &modelFlags{
		provider: fl.String("provider", "", "model provider for this run: openai (any OpenAI-compatible server) or anthropic (else $"+app.EnvLLMProvider+")"),
		baseURL:  fl.String("base-url", "", "model server base URL for this run (else $"+app.EnvLLMBaseURL+")"),
		model:    fl.String("model", "", "model name for this run (else $"+app.EnvLLMModel+"); the API key is $"+app.EnvLLMAPIKey),
	}
}

// override is the model the flags and the environment give for this run.
func (m *modelFlags) override() app.ModelOverride {
	o := app.ModelOverrideFromEnv()
	if m == nil {
		return o
	}
	for _, f := range []struct{ flag, dst *string }{{m.provider, &o.Provider}, {m.baseURL, &o.BaseURL}, {m.model, &o.Model}} {
		if v := strings.TrimSpace(*f.flag); v != "" {
			*f.dst = v
		}
	}
	return o
}

// useModel sets the run's model on a and reports whether one was given.
// The error says which flag or variable cannot work.
func useModel(a *app.App, o app.ModelOverride) (bool, error) {
	if err := a.SetModelOverride(o); err != nil {
		return false, err
	}
	return o.BaseURL != "" || o.Model != "" || o.Provider != "", nil
}

// reorder moves flags after positional arguments to the front, so that both
// `import --json a.jsonl` and `import a.jsonl --json` work. valueFlags are
// the flags that take a value (see call.parse).
func reorder(args []string, valueFlags ...string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			for _, v := range valueFlags {
				if name == v && i+1 < len(args) {
					flags = append(flags, args[i+1])
					i++
				}
			}
			continue
		}
		rest = append(rest, a)
	}
	return append(append(flags, "--"), rest...)
}
