//go:build !bindings

// Command contract writes the TypeScript side of the contract between Go and
// the frontend; it runs Wails' binding generator, which is compiled in only
// with the bindings build tag (see main.go): go run -tags bindings
// ./build/contract.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "contract: build with the bindings tag: go run -tags bindings ./build/contract (make generate)")
	os.Exit(2)
}
