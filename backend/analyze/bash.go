package analyze

import (
	"path"
	"strings"
)

// shellScanner splits bash command lines into simple commands (see scan).
// It keeps its buffers between commands, so that scanning allocates only for
// quoted words; the zero value is ready to use.
type shellScanner struct {
	words    []string
	redirect []bool
	heredoc  []string
	cur      []byte
}

// scanShell scans cmd with a new shellScanner (see shellScanner.scan).
func scanShell(cmd string, fn func(words []string, redirect []bool)) {
	var sh shellScanner
	sh.scan(cmd, fn)
}

// scan splits a bash command line into simple commands and calls fn with the
// words of each (quotes removed, a quoted string one word) and, per word,
// whether it is the target of a redirection (> file, < file, >> file). It is
// deliberately small, not a shell parser:
//   - ; && || | & newline ( ) ` and $( separate commands;
//   - a here-document (<< DELIM) is skipped up to its closing line, so file
//     contents written with cat <<EOF are not read as commands;
//   - variables, globs and escapes are kept as written (words holding them
//     never look like files).
//
// The slices passed to fn are reused: fn must not keep them.
func (sh *shellScanner) scan(cmd string, fn func(words []string, redirect []bool)) {
	sh.words, sh.redirect, sh.heredoc, sh.cur = sh.words[:0], sh.redirect[:0], sh.heredoc[:0], sh.cur[:0]
	var (
		start     = -1 // start in cmd of the current word while it is a plain slice of cmd
		inWord    bool // a word is being read
		copied    bool // the word is in sh.cur (it had quotes or escapes)
		nextRedir bool // the next word is a redirection target
		wantDelim bool // the next word is a here-document delimiter
	)
	// toCur moves the plain part of the word read so far (cmd[start:end])
	// into sh.cur, before quoted or escaped text is added.
	toCur := func(end int) {
		if !copied {
			sh.cur = sh.cur[:0]
			if start >= 0 {
				sh.cur = append(sh.cur, cmd[start:end]...)
			}
			copied = true
		}
	}
	flushWord := func(end int) {
		if !inWord {
			return
		}
		var w string
		if copied {
			w = string(sh.cur)
		} else {
			w = cmd[start:end]
		}
		inWord, copied, start = false, false, -1
		if wantDelim {
			wantDelim = false
			sh.heredoc = append(sh.heredoc, w)
			return
		}
		sh.words = append(sh.words, w)
		sh.redirect = append(sh.redirect, nextRedir)
		nextRedir = false
	}
	flushCmd := func(end int) {
		flushWord(end)
		if len(sh.words) > 0 {
			fn(sh.words, sh.redirect)
		}
		sh.words, sh.redirect = sh.words[:0], sh.redirect[:0]
		nextRedir = false
	}
	plain := func(i int) {
		if !inWord {
			inWord, start = true, i
		}
		if copied {
			sh.cur = append(sh.cur, cmd[i])
		}
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch c {
		case '\'':
			toCur(i)
			inWord = true
			j := strings.IndexByte(cmd[i+1:], '\'')
			if j < 0 {
				j = len(cmd) - i - 1
			}
			sh.cur = append(sh.cur, cmd[i+1:i+1+j]...)
			i += j + 1
		case '"':
			toCur(i)
			inWord = true
			j := i + 1
			for j < len(cmd) && cmd[j] != '"' {
				if cmd[j] == '\\' && j+1 < len(cmd) {
					j++
				}
				j++
			}
			sh.cur = append(sh.cur, cmd[i+1:min(j, len(cmd))]...)
			i = j
		case '\\':
			if i+1 < len(cmd) && cmd[i+1] == '\n' {
				flushWord(i)
				i++ // line continuation
				continue
			}
			toCur(i)
			inWord = true
			sh.cur = append(sh.cur, c)
			if i+1 < len(cmd) {
				i++
				sh.cur = append(sh.cur, cmd[i])
			}
		case ' ', '\t', '\r':
			flushWord(i)
		case '\n':
			flushCmd(i)
			if len(sh.heredoc) > 0 {
				i = skipHeredocs(cmd, i+1, sh.heredoc) - 1
				sh.heredoc = sh.heredoc[:0]
			}
		case ';', '|', '&', '(', ')', '`':
			flushCmd(i)
		case '$':
			if i+1 < len(cmd) && cmd[i+1] == '(' {
				flushCmd(i)
				i++
				continue
			}
			plain(i)
		case '<', '>':
			flushWord(i)
			if c == '<' && i+1 < len(cmd) && cmd[i+1] == '<' {
				i++
				if i+1 < len(cmd) && cmd[i+1] == '<' { // here-string <<<
					i++
					continue
				}
				if i+1 < len(cmd) && cmd[i+1] == '-' {
					i++
				}
				wantDelim = true
				continue
			}
			for i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&') {
				i++
			}
			nextRedir = true
		default:
			plain(i)
		}
	}
	flushCmd(len(cmd))
}

// skipHeredocs returns the index in cmd just past the here-documents that
// start at index i: for each delimiter in turn, the lines up to and including
// the line that is the delimiter (leading tabs allowed, for <<-).
func skipHeredocs(cmd string, i int, delims []string) int {
	for _, d := range delims {
		for i < len(cmd) {
			end := strings.IndexByte(cmd[i:], '\n')
			line := cmd[i:]
			if end >= 0 {
				line = cmd[i : i+end]
				i += end + 1
			} else {
				i = len(cmd)
			}
			if strings.TrimLeft(line, "\t") == d {
				break
			}
		}
	}
	return i
}

// Bash command facts the classifier uses (see classify).
var (
	// sysadminCommands administer a machine: packages, services, remote
	// hosts, containers.
	sysadminCommands = map[string]bool{
		"apt": true, "apt-get": true, "aptitude": true, "dpkg": true, "yum": true, "dnf": true,
		"pacman": true, "apk": true, "brew": true, "snap": true, "systemctl": true, "service": true,
		"journalctl": true, "ssh": true, "scp": true, "rsync": true, "docker": true, "docker-compose": true,
		"podman": true, "kubectl": true, "helm": true, "useradd": true, "usermod": true, "crontab": true,
		"ufw": true, "iptables": true, "mount": true, "umount": true, "chown": true, "launchctl": true,
		"certbot": true, "terraform": true, "ansible": true, "ansible-playbook": true, "nginx": true,
		"sudo": true, "doas": true, "lsof": true, "netstat": true, "ss": true,
	}
	// readCommands only look at files or the repository.
	readCommands = map[string]bool{
		"cat": true, "less": true, "more": true, "head": true, "tail": true, "grep": true, "rg": true,
		"ag": true, "ack": true, "find": true, "fd": true, "ls": true, "tree": true, "wc": true, "file": true,
		"stat": true, "diff": true, "which": true, "pwd": true, "jq": true, "bat": true,
	}
	// webCommands fetch from the network.
	webCommands = map[string]bool{"curl": true, "wget": true, "http": true, "xh": true}
	// dataCommands query databases or tabular data.
	dataCommands = map[string]bool{
		"sqlite3": true, "psql": true, "mysql": true, "duckdb": true, "csvlook": true, "csvstat": true,
		"csvsql": true, "mongosh": true, "mongo": true, "clickhouse": true, "redis-cli": true,
	}
	// testRunners are test commands by themselves.
	testRunners = map[string]bool{
		"pytest": true, "vitest": true, "jest": true, "mocha": true, "rspec": true, "phpunit": true,
		"ctest": true, "tox": true, "playwright": true, "cypress": true, "ava": true, "tap": true,
	}
	// testSubcommands run tests as "<tool> test" (go test, cargo test, npm
	// test, make test, ...).
	testSubcommands = map[string]bool{
		"go": true, "cargo": true, "npm": true, "pnpm": true, "yarn": true, "bun": true, "deno": true,
		"make": true, "mvn": true, "gradle": true, "./gradlew": true, "dotnet": true, "mix": true,
		"zig": true, "swift": true, "just": true,
	}
	// wrappers run the command that follows them.
	wrappers = map[string]bool{
		"sudo": true, "doas": true, "time": true, "nohup": true, "env": true, "command": true, "exec": true,
		"npx": true, "bunx": true, "pnpx": true, "xargs": true, "timeout": true, "nice": true, "watch": true,
	}
	// valueFlags take a free-text value that is never a file.
	valueFlags = map[string]bool{"-m": true, "--message": true, "--body": true, "--title": true, "-c": true,
		"-e": true, "--eval": true, "--grep": true, "--author": true, "--format": true, "--pretty": true}
	// patternFirst commands take a pattern or script as first argument.
	patternFirst = map[string]bool{"grep": true, "rg": true, "ag": true, "ack": true, "sed": true,
		"awk": true, "egrep": true, "fgrep": true}
	// textArgs commands print their arguments: they name no files.
	textArgs = map[string]bool{"echo": true, "printf": true}
)

// commandStart returns the index of the program in the words of a simple
// command, past leading assignments (FOO=1), wrappers (sudo, npx, time,
// timeout 30, env) and the wrappers' flags and durations, and whether a
// wrapper ran it with privileges (sudo, doas).
func commandStart(words []string) (int, bool) {
	i, privileged := 0, false
	for i < len(words) {
		w := words[i]
		if eq := strings.IndexByte(w, '='); eq > 0 && !strings.ContainsAny(w[:eq], "/.-") {
			i++
			continue
		}
		if !wrappers[w] {
			break
		}
		privileged = privileged || w == "sudo" || w == "doas"
		i++
		for i < len(words) && (strings.HasPrefix(words[i], "-") || isDuration(words[i])) {
			i++
		}
	}
	return i, privileged
}

// isDuration reports whether w is a number of seconds or a duration such as
// "30", "1.5", "10s" or "2m" (timeout's and sleep's argument).
func isDuration(w string) bool {
	w = strings.TrimRight(w, "smhd")
	return isDigits(strings.Replace(w, ".", "", 1))
}

// bashFacts are what one bash command tells the classifier.
type bashFacts struct {
	testRuns, sysadmin, reads, web, data, commands int
}

// inspectBash looks at one bash command (capped): it counts the kinds of
// commands (bashFacts) and calls file for every word that looks like a file
// (looksLikeFile), redirection targets included.
func inspectBash(sh *shellScanner, cmd string, facts *bashFacts, file func(p string)) {
	sh.scan(capBytes(cmd, maxInspectBytes), func(words []string, redirect []bool) {
		i, privileged := commandStart(words)
		if privileged {
			facts.sysadmin++
		}
		if i >= len(words) {
			return
		}
		name := path.Base(words[i])
		args, argRedirect := words[i+1:], redirect[i+1:]
		facts.commands++
		switch {
		case sysadminCommands[name]:
			facts.sysadmin++
		case readCommands[name]:
			facts.reads++
		case webCommands[name]:
			facts.web++
		case dataCommands[name]:
			facts.data++
		case testRunners[name]:
			facts.testRuns++
		case testSubcommands[name] || testSubcommands[words[i]]:
			if isTestInvocation(args) {
				facts.testRuns++
			}
		case name == "git":
			if len(args) > 0 && gitReadSubcommands[args[0]] {
				facts.reads++
			}
		case name == "gh":
			if len(args) > 1 && (args[1] == "view" || args[1] == "list" || args[1] == "diff") {
				facts.web++
			}
		}
		if redirect[i] && looksLikeFile(words[i]) {
			file(words[i])
		}
		skipPattern := patternFirst[name]
		skipAll := textArgs[name]
		for j := 0; j < len(args); j++ {
			w := args[j]
			if argRedirect[j] {
				if looksLikeFile(w) {
					file(w)
				}
				continue
			}
			if skipAll {
				continue
			}
			if strings.HasPrefix(w, "-") {
				if valueFlags[w] {
					j++
					if name == "grep" || name == "rg" {
						skipPattern = false // -e gave the pattern
					}
					continue
				}
				if eq := strings.IndexByte(w, '='); eq > 0 && strings.HasPrefix(w, "--") {
					if v := w[eq+1:]; looksLikeFile(v) && !valueFlags[w[:eq]] {
						file(v)
					}
				}
				continue
			}
			if skipPattern {
				skipPattern = false
				continue
			}
			if looksLikeFile(w) {
				file(w)
			}
		}
	})
}

// gitReadSubcommands only look at a repository.
var gitReadSubcommands = map[string]bool{
	"log": true, "diff": true, "show": true, "status": true, "blame": true, "grep": true,
	"ls-files": true, "branch": true, "remote": true, "rev-parse": true, "describe": true, "shortlog": true,
}

// isTestInvocation reports whether the arguments of go, cargo, npm, make, ...
// run tests: "test" (go test, cargo test, npm test, make test) or "run test",
// "run test:*", "run test-*" (npm run test:unit). "check" (lint and type
// checks) is not a test run.
func isTestInvocation(args []string) bool {
	if len(args) == 0 {
		return false
	}
	if args[0] == "test" {
		return true
	}
	if args[0] == "run" && len(args) > 1 {
		for _, a := range args[1:] {
			if strings.HasPrefix(a, "-") {
				continue
			}
			return a == "test" || strings.HasPrefix(a, "test:") || strings.HasPrefix(a, "test-")
		}
	}
	return false
}

// multiCommandTools take a subcommand as their first argument (git push, npm
// run build, go test): a bash error is keyed by tool and subcommand.
var multiCommandTools = map[string]bool{
	"git": true, "go": true, "cargo": true, "npm": true, "pnpm": true, "yarn": true, "bun": true,
	"deno": true, "docker": true, "docker-compose": true, "kubectl": true, "gh": true, "make": true,
	"just": true, "dotnet": true, "mvn": true, "gradle": true, "pip": true, "uv": true, "poetry": true,
	"npx": true, "brew": true, "apt": true, "apt-get": true, "systemctl": true, "node": true, "tsx": true,
	"python": true, "python3": true,
}

// setupCommands prepare the shell rather than do the work.
var setupCommands = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "export": true, "set": true, "source": true, ".": true,
	"true": true, "unset": true, "ulimit": true, "sleep": true,
}

// bashKey names what a bash command does, for error resolution: the program
// of its first simple command that is not a setup command (cd, export, ...),
// followed, for tools with subcommands, by the subcommand and, after "run" or
// "exec", the script ("npm run publish", "git push", "go test", "grep").
// "" when the command has no program.
func bashKey(sh *shellScanner, cmd string) string {
	key := ""
	sh.scan(capBytes(cmd, maxInspectBytes), func(words []string, _ []bool) {
		if key != "" {
			return
		}
		i, _ := commandStart(words)
		if i >= len(words) || setupCommands[words[i]] {
			return
		}
		name := path.Base(words[i])
		key = name
		if multiCommandTools[name] {
			n := 1
			for _, w := range words[i+1:] {
				if strings.HasPrefix(w, "-") {
					continue
				}
				key += " " + w
				n++
				if n == 3 || (w != "run" && w != "exec") {
					break
				}
			}
		}
	})
	return key
}
