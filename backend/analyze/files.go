package analyze

import (
	"path"
	"strings"
)

// fileKind is what a touched file is, for classification.
type fileKind uint8

const (
	kindOther  fileKind = iota
	kindCode            // source code (test files included; see isTestFile)
	kindDoc             // prose: .md, .rst, .txt, ...
	kindConfig          // configuration and build files
	kindData            // data sets and queries: .csv, .sql, .ipynb, ...
	kindMedia           // images and documents a person looks at
)

// extensions maps a lowercase file extension (with its dot) to its kind and,
// for code, its language. It is also the list of extensions that make a bash
// token look like a file (see bashFiles).
var extensions = map[string]struct {
	kind fileKind
	lang string
}{
	".go": {kindCode, "go"}, ".ts": {kindCode, "typescript"}, ".tsx": {kindCode, "typescript"},
	".mts": {kindCode, "typescript"}, ".cts": {kindCode, "typescript"}, ".js": {kindCode, "javascript"},
	".jsx": {kindCode, "javascript"}, ".mjs": {kindCode, "javascript"}, ".cjs": {kindCode, "javascript"},
	".py": {kindCode, "python"}, ".rs": {kindCode, "rust"}, ".java": {kindCode, "java"},
	".kt": {kindCode, "kotlin"}, ".kts": {kindCode, "kotlin"}, ".swift": {kindCode, "swift"},
	".c": {kindCode, "c"}, ".h": {kindCode, "c"}, ".cc": {kindCode, "c++"}, ".cpp": {kindCode, "c++"},
	".cxx": {kindCode, "c++"}, ".hpp": {kindCode, "c++"}, ".cs": {kindCode, "c#"}, ".rb": {kindCode, "ruby"},
	".php": {kindCode, "php"}, ".lua": {kindCode, "lua"}, ".zig": {kindCode, "zig"}, ".dart": {kindCode, "dart"},
	".scala": {kindCode, "scala"}, ".ex": {kindCode, "elixir"}, ".exs": {kindCode, "elixir"},
	".hs": {kindCode, "haskell"}, ".ml": {kindCode, "ocaml"}, ".clj": {kindCode, "clojure"},
	".r": {kindCode, "r"}, ".jl": {kindCode, "julia"}, ".sh": {kindCode, "shell"}, ".bash": {kindCode, "shell"},
	".zsh": {kindCode, "shell"}, ".fish": {kindCode, "shell"}, ".ps1": {kindCode, "powershell"},
	".html": {kindCode, "html"}, ".htm": {kindCode, "html"}, ".css": {kindCode, "css"},
	".scss": {kindCode, "css"}, ".sass": {kindCode, "css"}, ".less": {kindCode, "css"},
	// Component files: code, but their language (TS or JS) is not known.
	".svelte": {kindCode, ""}, ".vue": {kindCode, ""}, ".astro": {kindCode, ""},

	".md": {kindDoc, ""}, ".mdx": {kindDoc, ""}, ".markdown": {kindDoc, ""}, ".rst": {kindDoc, ""},
	".txt": {kindDoc, ""}, ".adoc": {kindDoc, ""}, ".org": {kindDoc, ""}, ".tex": {kindDoc, ""},

	".json": {kindConfig, ""}, ".jsonc": {kindConfig, ""}, ".json5": {kindConfig, ""},
	".yaml": {kindConfig, ""}, ".yml": {kindConfig, ""}, ".toml": {kindConfig, ""}, ".ini": {kindConfig, ""},
	".cfg": {kindConfig, ""}, ".conf": {kindConfig, ""}, ".env": {kindConfig, ""},
	".properties": {kindConfig, ""}, ".xml": {kindConfig, ""}, ".plist": {kindConfig, ""},
	".lock": {kindConfig, ""}, ".mod": {kindConfig, ""}, ".sum": {kindConfig, ""},
	".gradle": {kindConfig, ""}, ".service": {kindConfig, ""}, ".nix": {kindConfig, ""},

	".csv": {kindData, ""}, ".tsv": {kindData, ""}, ".sql": {kindData, ""}, ".parquet": {kindData, ""},
	".ipynb": {kindData, ""}, ".jsonl": {kindData, ""}, ".ndjson": {kindData, ""}, ".xlsx": {kindData, ""},
	".xls": {kindData, ""}, ".db": {kindData, ""}, ".sqlite": {kindData, ""}, ".sqlite3": {kindData, ""},
	".arrow": {kindData, ""}, ".feather": {kindData, ""},

	".png": {kindMedia, ""}, ".jpg": {kindMedia, ""}, ".jpeg": {kindMedia, ""}, ".gif": {kindMedia, ""},
	".webp": {kindMedia, ""}, ".svg": {kindMedia, ""}, ".ico": {kindMedia, ""}, ".pdf": {kindMedia, ""},
}

// configNames are extension-less (or oddly named) files that are
// configuration.
var configNames = map[string]bool{
	"makefile": true, "dockerfile": true, "containerfile": true, "justfile": true, "procfile": true,
	"gemfile": true, "rakefile": true, "vagrantfile": true, ".env": true, ".gitignore": true,
	".dockerignore": true, ".editorconfig": true, ".npmrc": true, ".prettierrc": true, ".eslintrc": true,
	".gitattributes": true, ".envrc": true, "caddyfile": true, "jenkinsfile": true,
	"requirements.txt": true, "cmakelists.txt": true, "go.work": true,
}

// docNames are extension-less prose files.
var docNames = map[string]bool{
	"readme": true, "license": true, "licence": true, "changelog": true, "contributing": true,
	"authors": true, "notice": true, "copying": true,
}

// classifyFile gives the kind and the language (code only) of a file path.
// A .env.local or docker-compose.yml file is configuration; a file under a
// docs/ directory that is not code is documentation.
func classifyFile(p string) (fileKind, string) {
	base := strings.ToLower(path.Base(p))
	if configNames[base] || strings.HasPrefix(base, ".env.") || strings.HasPrefix(base, "dockerfile.") {
		return kindConfig, ""
	}
	if docNames[base] {
		return kindDoc, ""
	}
	ext := path.Ext(base)
	if x, ok := extensions[ext]; ok {
		return x.kind, x.lang
	}
	if strings.HasPrefix(p, "docs/") || strings.Contains(p, "/docs/") {
		return kindDoc, ""
	}
	return kindOther, ""
}

// isTestFile reports whether a code file is a test: *_test.go, *.test.ts,
// *.spec.js, test_*.py, *_test.py, or a file under a test/, tests/,
// __tests__/ or spec/ directory.
func isTestFile(p string) bool {
	l := strings.ToLower(p)
	base := path.Base(l)
	if strings.Contains(base, "_test.") || strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") ||
		strings.HasPrefix(base, "test_") {
		return true
	}
	for _, d := range []string{"test/", "tests/", "__tests__/", "spec/"} {
		if strings.HasPrefix(l, d) || strings.Contains(l, "/"+d) {
			return true
		}
	}
	return false
}

// looksLikeFile reports whether a bash token names a file: it has a known
// extension (see extensions) or is a known extension-less file name
// (Makefile, Dockerfile, README, ...). Directories, URLs, globs, flags and
// version numbers do not look like files.
func looksLikeFile(tok string) bool {
	if tok == "" || len(tok) > 512 || tok[0] == '-' ||
		strings.ContainsAny(tok, "*?$`{}[]<>|;&=\\@:,'\"()!") {
		return false
	}
	base := strings.ToLower(path.Base(tok))
	if configNames[base] || docNames[base] {
		return true
	}
	ext := path.Ext(base)
	if ext == "" || ext == base {
		return false
	}
	_, ok := extensions[ext]
	return ok
}

// cleanPath normalises a path from a tool argument or a bash command:
// surrounding quotes and a leading "./" go, "a/../b" is resolved, a trailing
// ":LINE" is dropped. It returns "" for something that is not a path.
func cleanPath(p string) string {
	p = strings.TrimSpace(strings.Trim(p, "'\""))
	if p == "" || strings.Contains(p, "://") || strings.ContainsAny(p, "\n\x00") {
		return ""
	}
	if i := strings.LastIndexByte(p, ':'); i > 0 && isDigits(p[i+1:]) {
		p = p[:i]
	}
	p = path.Clean(p)
	if p == "." || p == "/" || p == ".." {
		return ""
	}
	return p
}

// isDigits reports whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// relativeTo makes p relative to the project directory cwd when it is inside
// it ("/home/u/p/src/a.go" in "/home/u/p" is "src/a.go"); other paths are
// returned as they are.
func relativeTo(p, cwd string) string {
	if cwd == "" || !strings.HasPrefix(p, "/") {
		return p
	}
	cwd = strings.TrimSuffix(path.Clean(cwd), "/")
	if strings.HasPrefix(p, cwd+"/") {
		return p[len(cwd)+1:]
	}
	return p
}

// frameworkFiles maps a lowercase file name (or, with a leading ".", an
// extension) to the framework its presence shows.
var frameworkFiles = map[string]string{
	".svelte": "svelte", ".vue": "vue", ".tsx": "react", ".jsx": "react", ".astro": "astro",
	"svelte.config.js": "sveltekit", "svelte.config.ts": "sveltekit", "next.config.js": "next.js",
	"next.config.mjs": "next.js", "next.config.ts": "next.js", "nuxt.config.ts": "nuxt",
	"nuxt.config.js": "nuxt", "vite.config.ts": "vite", "vite.config.js": "vite", "vite.config.mjs": "vite",
	"tailwind.config.js": "tailwind", "tailwind.config.ts": "tailwind", "tailwind.config.cjs": "tailwind",
	"angular.json": "angular", "astro.config.mjs": "astro", "manage.py": "django", "wails.json": "wails",
	"pubspec.yaml": "flutter", "remix.config.js": "remix", "gatsby-config.js": "gatsby",
}

// fileFramework is the framework a touched file shows, or "".
func fileFramework(p string) string {
	base := strings.ToLower(path.Base(p))
	if f, ok := frameworkFiles[base]; ok {
		return f
	}
	return frameworkFiles[path.Ext(base)]
}

// manifestNames are dependency manifests whose text (read or written) names
// the packages a project uses.
var manifestNames = map[string]bool{
	"package.json": true, "go.mod": true, "cargo.toml": true, "pyproject.toml": true,
	"requirements.txt": true, "gemfile": true, "composer.json": true, "pubspec.yaml": true,
	"deno.json": true,
}

// isManifest reports whether p is a dependency manifest.
func isManifest(p string) bool {
	return manifestNames[strings.ToLower(path.Base(p))]
}

// frameworkMarkers are substrings whose presence in a manifest's text or in
// code the model wrote (an edit or write tool call's arguments, raw JSON, so
// quotes appear escaped) is evidence of a framework.
var frameworkMarkers = []struct{ marker, framework string }{
	{`"react":`, "react"}, {`\"react\":`, "react"}, {`from \"react\"`, "react"}, {`from 'react'`, "react"},
	{`"svelte":`, "svelte"}, {`\"svelte\":`, "svelte"}, {`from \"svelte`, "svelte"}, {`from 'svelte`, "svelte"},
	{`"@sveltejs/kit":`, "sveltekit"}, {`\"@sveltejs/kit\":`, "sveltekit"}, {`from \"@sveltejs/kit`, "sveltekit"},
	{`"vue":`, "vue"}, {`\"vue\":`, "vue"}, {`from \"vue\"`, "vue"}, {`from 'vue'`, "vue"},
	{`"next":`, "next.js"}, {`\"next\":`, "next.js"}, {`"@angular/core":`, "angular"},
	{`\"@angular/core\":`, "angular"}, {`"express":`, "express"}, {`\"express\":`, "express"},
	{`from \"express\"`, "express"}, {`require(\"express\")`, "express"}, {`"fastify":`, "fastify"},
	{`\"fastify\":`, "fastify"}, {`"tailwindcss":`, "tailwind"}, {`\"tailwindcss\":`, "tailwind"},
	{`"electron":`, "electron"}, {`\"electron\":`, "electron"},
	{`github.com/wailsapp/wails`, "wails"}, {`github.com/gin-gonic/gin`, "gin"},
	{`github.com/labstack/echo`, "echo"}, {`github.com/gofiber/fiber`, "fiber"},
	{`github.com/spf13/cobra`, "cobra"}, {`from flask import`, "flask"}, {`from django`, "django"},
	{`from fastapi import`, "fastapi"}, {`use axum`, "axum"}, {`use actix_web`, "actix-web"},
}
