// Generates real OpenCode sessions (npm opencode-ai; its Linux x64 binary
// package, opencode-linux-x64, exact version pinned in package.json) by
// running the real program offline against a scripted local model server
// that speaks the streaming OpenAI Chat Completions API (chat-server.mjs),
// configured as a custom "@ai-sdk/openai-compatible" provider in
// opencode.json.
//
//   npm ci && node generate.mjs
//
// The binary node_modules/opencode-linux-x64/bin/opencode is run directly
// (Linux x64 with AVX2), with HOME and the XDG folders in a neutral temporary
// folder (/tmp/rhizome-opencode-fixtures, deleted and recreated). What it
// runs, all in one git project:
//
//   1. run "…"                   a new session: a title request, reasoning,
//                                 text and two parallel tool calls (bash,
//                                 read) in one response, then an answer
//   2. run --continue "…"        the same session: todowrite (the todo
//                                 table), a read of a missing file (a tool
//                                 error), read then edit (a diff, a patch
//                                 part), a bash output over the limit (saved
//                                 under tool-output/)
//   3. run --session S "…"       a task tool call: a sub-agent (a child
//                                 session with parent_id) that runs bash; the
//                                 last response reports usage over the
//                                 model's usable context, so OpenCode
//                                 compacts at once (a compaction part, a
//                                 summary assistant message) and goes on with
//                                 a synthetic "Continue…" user message
//   4. run --session S "…"       a turn after the compaction
//   5. run --session S "…"       the API answers 400: an assistant message
//                                 with an error
//   6. run --session S "…"       the API answers 400 context_length_exceeded:
//                                 OpenCode's reactive (overflow) compaction,
//                                 then the retried answer
//   7. run --title T -f FILE "…" a second, independent session with a given
//                                 title and an attached file (a file part)
//   8. run --session S2 --fork "…" a fork of that second session: a new
//                                 session whose messages are copies of S2's
//
// Output, copied into ../opencode-home/ in OpenCode's own layout under its
// data folder (XDG_DATA_HOME/opencode): opencode.db (the sessions, messages,
// parts, events; copied with VACUUM INTO) and tool-output/; and
// ../expected.json: the steps, the session ids, and every model request the
// server answered with the usage it reported.
//
// Ids and timestamps come from OpenCode (ascending ids with a time prefix,
// wall clock): a new run gives new ones; re-run the Go tests with -update
// after regenerating.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, contentText } from "./chat-server.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VERSION = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8")).dependencies["opencode-linux-x64"];
const OUT = path.resolve(HERE, "..", "opencode-home");
const ROOT = "/tmp/rhizome-opencode-fixtures";
const HOME = path.join(ROOT, "home");
const XDG = {
	XDG_CONFIG_HOME: path.join(HOME, ".config"),
	XDG_DATA_HOME: path.join(HOME, ".local", "share"),
	XDG_CACHE_HOME: path.join(HOME, ".cache"),
	XDG_STATE_HOME: path.join(HOME, ".local", "state"),
};
const DATA = path.join(XDG.XDG_DATA_HOME, "opencode");
const CONFIG = path.join(XDG.XDG_CONFIG_HOME, "opencode");
const WORK = path.join(ROOT, "work", "notes-api");
const BIN = path.join(HERE, "node_modules", "opencode-linux-x64", "bin", "opencode");
const MODEL = "scripted-coder";
const CONTEXT = 128000;
const OUTPUT = 8192;

fs.rmSync(ROOT, { recursive: true, force: true });
for (const d of [HOME, CONFIG, DATA, WORK]) fs.mkdirSync(d, { recursive: true });
const MAIN_GO = 'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.HandleFunc("/notes", listNotes)\n\thttp.ListenAndServe(":8080", nil)\n}\n';
const NOTES_GO = 'package main\n\nimport "net/http"\n\nfunc listNotes(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte("[]"))\n}\n';
fs.writeFileSync(path.join(WORK, "main.go"), MAIN_GO);
fs.writeFileSync(path.join(WORK, "notes.go"), NOTES_GO);
fs.writeFileSync(path.join(WORK, "CHANGELOG.md"), "# Changelog\n\n## 0.2.0\n\n- List notes at /notes.\n\n## 0.1.0\n\n- First release.\n");
const gitEnv = { ...process.env, HOME, GIT_AUTHOR_NAME: "Dana", GIT_AUTHOR_EMAIL: "dana@example.com", GIT_COMMITTER_NAME: "Dana", GIT_COMMITTER_EMAIL: "dana@example.com", GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z" };
const git = (...a) => execFileSync("git", a, { cwd: WORK, env: gitEnv });
git("init", "-q", "-b", "main");
git("add", ".");
git("commit", "-q", "-m", "initial");

// OpenCode installs @opencode-ai/plugin into every config folder it loads
// (an npm install from the public registry, in the background) unless the
// folder already has node_modules/ and a package.json whose dependencies the
// package-lock.json lists. These three files satisfy that check, so nothing
// is fetched; no plugin is used.
fs.mkdirSync(path.join(CONFIG, "node_modules"), { recursive: true });
fs.writeFileSync(path.join(CONFIG, "package.json"), JSON.stringify({ dependencies: { "@opencode-ai/plugin": VERSION } }, null, 2) + "\n");
fs.writeFileSync(path.join(CONFIG, "package-lock.json"), JSON.stringify({ name: "opencode", lockfileVersion: 3, requires: true, packages: { "": { dependencies: { "@opencode-ai/plugin": VERSION } } } }, null, 2) + "\n");

const P1 = "How long is main.go, and what does it serve?";
const P2 = "Add a /health endpoint to main.go and check the size of the access log.";
const P3 = "Ask a sub-agent to review notes.go for error handling.";
const SUB = "Review notes.go: is the error from w.Write handled?";
const P4 = "Now summarise what is left to do.";
const P5 = "Trigger the API error now.";
const P6 = "Paste the whole access log here and explain it.";
const P7 = "In a fork: make the release notes one line.";
const P8 = "Draft release notes for 0.3.0 from the attached changelog.";

const MISSING = path.join(WORK, "health.go");
const p = (f) => path.join(WORK, f);

/** Harness requests OpenCode makes besides the agent's own turns. */
const systemText = (body) => (body.messages || []).filter((m) => m.role === "system").map((m) => contentText(m.content)).join("\n");
const isTitle = (body) => systemText(body).startsWith("You are a title generator");
const isCompaction = (body) => systemText(body).startsWith("You are a context summarization agent");
const isSubagent = (body) => (body.messages || []).some((m) => m.role === "user" && contentText(m.content).includes(SUB));

const titles = [
	[P1, "main.go size and routes"],
	[P8, "Release notes for 0.3.0"],
];

let overflowSent = false;
function script(prompt, step, body) {
	const has = (s) => prompt.includes(s);
	if (isTitle(body)) {
		const t = titles.find(([k]) => has(k));
		return { text: t ? t[1] : "Untitled", usage: { prompt: 420, completion: 8 } };
	}
	if (isCompaction(body))
		return {
			text: "## Goal\nKeep the notes API small and healthy.\n\n## Done\n- main.go is 9 lines and serves /notes.\n- Added a /health endpoint.\n- A sub-agent found that notes.go ignores w.Write's error.\n\n## Next\n- Handle the w.Write error.",
			usage: { prompt: 9000, cached: 0, completion: 160 },
		};
	if (isSubagent(body))
		return [
			// bash, not OpenCode's grep tool: that one runs ripgrep, which
			// OpenCode downloads from GitHub when it is not on PATH.
			{ text: "Searching for the write call.", tools: [{ name: "bash", arguments: { command: "grep -n w.Write notes.go", description: "Find the write call" } }], usage: { prompt: 6100, cached: 0, completion: 40 } },
			{ text: "notes.go ignores the error returned by w.Write on line 6; otherwise the handler is fine.", usage: { prompt: 6400, cached: 6100, completion: 28 } },
		][step];
	if (has(P1))
		return [
			{
				reasoning: "The user wants the length and the routes. Count the lines and read the file at once.",
				text: "I'll count the lines and read the file.",
				tools: [
					{ name: "bash", arguments: { command: "wc -l main.go", description: "Count lines in main.go" } },
					{ name: "read", arguments: { filePath: p("main.go") } },
				],
				usage: { prompt: 11200, cached: 0, completion: 96, reasoning: 24 },
			},
			{ text: "main.go has 9 lines and serves /notes on port 8080.", usage: { prompt: 11600, cached: 11200, completion: 18 } },
		][step];
	if (has(P2))
		return [
			{
				tools: [
					{ name: "todowrite", arguments: { todos: [{ content: "Add /health to main.go", status: "in_progress", priority: "high" }, { content: "Check the access log size", status: "pending", priority: "medium" }] } },
					{ name: "read", arguments: { filePath: MISSING } },
				],
				usage: { prompt: 12000, cached: 11600, completion: 120 },
			},
			{ text: "health.go does not exist; I'll add the handler to main.go.", tools: [{ name: "read", arguments: { filePath: p("main.go") } }], usage: { prompt: 12400, cached: 12000, completion: 40 } },
			{ tools: [{ name: "edit", arguments: { filePath: p("main.go"), oldString: '\thttp.HandleFunc("/notes", listNotes)\n', newString: '\thttp.HandleFunc("/notes", listNotes)\n\thttp.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })\n' } }], usage: { prompt: 12900, cached: 12400, completion: 80 } },
			{ tools: [{ name: "bash", arguments: { command: "yes 200 | head -n 2100", description: "Print the access log stand-in" } }], usage: { prompt: 13300, cached: 12900, completion: 30 } },
			{ text: "Added /health. The log is long; its full output was saved to a file.", usage: { prompt: 15800, cached: 13300, completion: 22 } },
		][step];
	if (has(P3))
		return [
			{ tools: [{ name: "task", arguments: { description: "Review notes.go", prompt: SUB, subagent_type: "general" } }], usage: { prompt: 16200, cached: 15800, completion: 60 } },
			// Over the usable context (CONTEXT - OUTPUT): the next run compacts first.
			{ text: "The sub-agent says notes.go ignores w.Write's error.", usage: { prompt: CONTEXT - OUTPUT - 1000, cached: 112000, completion: 1600 } },
		][step];
	// After an automatic compaction OpenCode adds a synthetic user message
	// asking the model to go on.
	if (has("Continue if you have next steps")) return { text: "Nothing else is pending: the review is done.", usage: { prompt: 9400, cached: 0, completion: 14 } };
	if (has(P4)) return { text: "Only handling the w.Write error in notes.go is left.", usage: { prompt: 2400, cached: 0, completion: 16 } };
	if (has(P5)) return { error: { status: 400, message: "Invalid 'messages[3].tool_calls[0].id': string too long.", type: "invalid_request_error", code: "invalid_value" } };
	if (has(P6)) {
		if (!overflowSent) {
			overflowSent = true;
			return { error: { status: 400, message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages.", type: "invalid_request_error", code: "context_length_exceeded" } };
		}
		return { text: "The log is a stand-in: 2100 lines of status 200.", usage: { prompt: 3100, cached: 0, completion: 18 } };
	}
	if (has(P7)) return { text: "0.3.0: a /health endpoint, and /notes handles write errors.", usage: { prompt: 10600, cached: 10400, completion: 16 } };
	if (has(P8))
		return [
			{ text: "## 0.3.0\n\n- Add a /health endpoint.\n- Handle write errors in /notes.", usage: { prompt: 10400, cached: 0, completion: 30 } },
		][step];
	return undefined;
}

const log = [];
const dump = process.env.DUMP ? fs.createWriteStream(process.env.DUMP) : null;
const server = await startServer(script, log, { models: [MODEL], dump: dump && ((d) => dump.write(JSON.stringify(d) + "\n")) });
const port = server.address().port;

const config = {
	$schema: "https://opencode.ai/config.json",
	model: `local/${MODEL}`,
	small_model: `local/${MODEL}`,
	autoupdate: false,
	share: "disabled",
	permission: "allow",
	provider: {
		local: {
			npm: "@ai-sdk/openai-compatible",
			name: "Local scripted server",
			options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "sk-local-test" },
			models: { [MODEL]: { name: "Scripted Coder", reasoning: true, tool_call: true, limit: { context: CONTEXT, output: OUTPUT }, cost: { input: 3, output: 15, cache_read: 0.3 } } },
		},
	},
};
fs.writeFileSync(path.join(CONFIG, "opencode.json"), JSON.stringify(config, null, 2) + "\n");

const env = {
	PATH: process.env.PATH,
	HOME,
	...XDG,
	TZ: "UTC",
	// No models.dev catalogue fetch, no update check, no sharing, no LSP
	// server downloads.
	OPENCODE_DISABLE_MODELS_FETCH: "1",
	OPENCODE_DISABLE_AUTOUPDATE: "1",
	OPENCODE_DISABLE_SHARE: "1",
	OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
	OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
};

function opencode(args) {
	return new Promise((resolve) => {
		const child = spawn(BIN, ["run", "--format", "json", "--print-logs", "--log-level", "INFO", ...args], { cwd: WORK, env, stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (err += d));
		const timer = setTimeout(() => child.kill("SIGKILL"), 180000);
		child.on("close", (code) => {
			clearTimeout(timer);
			const events = out.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
			resolve({ code, events, err });
		});
	});
}

const steps = [];
async function run(label, args, expectFail = false) {
	const from = log.length;
	const r = await opencode(args);
	if (process.env.KEEP_LOGS) fs.writeFileSync(path.join(ROOT, `run-${steps.length + 1}.log`), r.err + "\n" + r.events.map((e) => JSON.stringify(e)).join("\n"));
	const sessionId = r.events.find((e) => e.sessionID)?.sessionID;
	const errors = r.events.filter((e) => e.type === "error");
	if ((r.code !== 0 || errors.length) && !expectFail) throw new Error(`${label}: opencode exited ${r.code}: ${r.err.slice(-3000)} ${JSON.stringify(r.events.slice(-3)).slice(0, 3000)}`);
	steps.push({ label, args, exit: r.code, sessionId, errors: errors.map((e) => e.error), requests: log.slice(from).filter((e) => e.id || e.error).map((e) => e.n) });
	console.log(`${label}: exit ${r.code}, session ${sessionId}, ${log.length - from} requests${errors.length ? `, ${errors.length} error events` : ""}`);
	return sessionId;
}

const session = await run("new session: reasoning, parallel bash and read", [P1]);
await run("continue: todowrite, a tool error, edit, a truncated bash output", ["--continue", P2]);
await run("task tool: a sub-agent session, then automatic compaction and its synthetic continue", ["--session", session, P3]);
await run("a turn after the compaction", ["--session", session, P4]);
await run("API error 400", ["--session", session, P5], true);
// OpenCode compacts and retries, answers, and still exits 1 (it reports the
// overflow error it recovered from).
await run("context overflow: reactive compaction and retry", ["--session", session, P6], true);
const second = await run("second session: --title and an attached file", ["--title", "Release notes", "-f", p("CHANGELOG.md"), "--", P8]);
const fork = await run("fork of the second session", ["--session", second, "--fork", P7]);
server.close();
if (dump) dump.end();

// Copy what OpenCode wrote under its data folder: the database (checkpointed
// into one file and VACUUMed) and the saved tool outputs. Left out: log/
// (OpenCode's own logs), snapshot/ (its git object store for file snapshots)
// and repos/.
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
// OpenCode's own SQLite ("opencode db QUERY") writes the copy: VACUUM INTO
// folds the write-ahead log in and drops free pages.
execFileSync(BIN, ["db", `VACUUM INTO '${path.join(OUT, "opencode.db")}'`], { cwd: WORK, env });
for (const d of ["tool-output", "storage"]) if (fs.existsSync(path.join(DATA, d))) fs.cpSync(path.join(DATA, d), path.join(OUT, d), { recursive: true });
const files = [];
(function walk(dir) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const f = path.join(dir, e.name);
		if (e.isDirectory()) walk(f);
		else files.push(path.relative(OUT, f));
	}
})(OUT);
files.sort();
const dataDir = fs.readdirSync(DATA).sort();
const unscripted = log.filter((e) => e.unscripted);
fs.writeFileSync(
	path.join(HERE, "..", "expected.json"),
	JSON.stringify({ opencodeVersion: VERSION, root: ROOT, dataDir, session, fork, second, steps, files, requests: log.filter((e) => e.model || e.answered) }, null, 1) + "\n",
);
console.log(`${files.length} files, ${log.length} requests (${unscripted.length} unscripted)`);
for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
