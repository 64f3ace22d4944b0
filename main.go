// Command rhizome is the Rhizome desktop app and its command line (package
// cli): this file only embeds what the binary carries, the built frontend
// and the window's icon, and hands over to cli.Main.
package main

import (
	"embed"
	"io/fs"
	"os"

	"rhizome/cli"
)

//go:embed all:frontend/dist
var distFS embed.FS

//go:embed build/appicon.png
var appIcon []byte

func main() {
	frontend, err := fs.Sub(distFS, "frontend/dist")
	if err != nil {
		frontend = nil
	}
	os.Exit(cli.Main(cli.Assets{Frontend: frontend, Icon: appIcon}))
}
