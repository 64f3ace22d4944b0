// Generates real Gemini CLI chat recordings (@google/gemini-cli, exact version
// pinned in package.json) by running the real program offline against a
// scripted local model server that speaks the Gemini API (gemini-server.mjs),
// reached through GOOGLE_GEMINI_BASE_URL with a Gemini API key.
//
//   npm ci && node generate.mjs
//
// HOME is a neutral temporary folder (/tmp/rhizome-gemini-fixtures, deleted and
// recreated) with a ~/.gemini/settings.json that selects API-key auth and turns
// off usage statistics, telemetry, auto-update, folder trust and session
// retention (see README.md). Every run is
// `gemini -p PROMPT -m gemini-2.5-pro --yolo -o stream-json` in one project:
//
//   1. --session-id S        thoughts, text and two parallel tool calls in one
//                            response (run_shell_command and read_file); the
//                            gemini message is written again with the same id
//                            once its tool results are in
//   2. --resume S            (from the next minute, see below) replace (an
//                            edit with a diff) and write_file (a new file)
//   3. --resume S            tool errors: read_file of a missing file, and a
//                            shell command that exits 1
//   4. --resume S            the API answers 400: the failed prompt is rolled
//                            back (a $set of the message list without it)
//   5. --resume S            a sub-agent (invoke_agent codebase_investigator):
//                            its own file chats/<S>/<agent session id>.jsonl
//   6. --resume S            automatic history compression: the first
//                            response reports a prompt over half the model's
//                            token limit, so before the next request the CLI
//                            summarises the history (two generateContent
//                            calls) and writes the rewritten message list
//   7. --list-sessions       the CLI asks the model for a one-line summary of
//                            the previous session and appends it to its file
//   8. --session-id S2       a second session: a plain question and answer
//   9. --resume latest       a plain follow-up in S2, within S2's first minute
//  10. --session-file F      imports S2's file into a new session (an "info"
//                            message first), then a plain turn
//
// Output, copied into ../gemini-home/ in the CLI's own layout under ~/.gemini
// (projects.json and tmp/<project>/chats/), and ../expected.json: the session
// ids, the steps, what the CLI printed as its result stats, and every model
// request the server answered with the usage it reported.
//
// Message ids and timestamps come from the CLI (random uuids, wall clock): a
// new run gives new ones; re-run the Go tests with -update after regenerating.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./gemini-server.mjs";

const VERSION = JSON.parse(fs.readFileSync(new URL("./package.json", import.meta.url))).dependencies["@google/gemini-cli"];
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(HERE, "..", "gemini-home");
const ROOT = "/tmp/rhizome-gemini-fixtures";
const HOME = path.join(ROOT, "home");
const WORK = path.join(ROOT, "work", "acme-api");
const BIN = path.join(HERE, "node_modules", "@google", "gemini-cli", "bundle", "gemini.js");
const MODEL = "gemini-2.5-pro";
const SESSION = "3f0c8a52-6d1e-4b7a-9e25-1c4d7b8a9f60";
const SESSION2 = "b71e2c09-4a3f-4d58-8c16-2e9f0a7d3b45";

fs.rmSync(ROOT, { recursive: true, force: true });
fs.mkdirSync(path.join(HOME, ".gemini"), { recursive: true });
fs.mkdirSync(WORK, { recursive: true });
fs.writeFileSync(
	path.join(HOME, ".gemini", "settings.json"),
	JSON.stringify(
		{
			security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
			privacy: { usageStatisticsEnabled: false },
			telemetry: { enabled: false },
			// Session retention is on by default (30 days); its cleanup deletes
			// every file whose name ends in the short id of a file it finds
			// without conversation, which the resume stub described below is:
			// left on, it deletes the first session's files at the next start.
			general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, sessionRetention: { enabled: false } },
		},
		null,
		2,
	),
);
const MAIN_GO = 'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.ListenAndServe(":8080", nil)\n}\n';
fs.writeFileSync(path.join(WORK, "main.go"), MAIN_GO);
const git = (...a) => execFileSync("git", a, { cwd: WORK, env: { ...process.env, HOME, GIT_AUTHOR_NAME: "Dana", GIT_AUTHOR_EMAIL: "dana@example.com", GIT_COMMITTER_NAME: "Dana", GIT_COMMITTER_EMAIL: "dana@example.com" } });
git("init", "-q", "-b", "main");
git("add", ".");
git("commit", "-q", "-m", "initial");

const P1 = "Look at main.go: count its lines and show me what it does.";
const P2 = "Add a /health handler to main.go and write a NOTES.md saying so.";
const P3 = "Read docs/missing.md and run the tests.";
const P4 = "Trigger the API error now.";
const P5 = "Ask a sub-agent where the HTTP routes are registered.";
const SUB = "Find where the HTTP routes of acme-api are registered and report the file and line.";
const P6 = "Summarise everything so far in great detail, then list the files.";
const Q1 = "What does ListenAndServe return?";
const Q2 = "And when does it return?";
const Q3 = "Anything to add to the imported answers?";

const OLD = "func main() {\n";
const NEW = 'func main() {\n\thttp.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })\n';
const SUMMARY = "<state_snapshot>\n<overall_goal>Add a /health handler to acme-api.</overall_goal>\n<key_knowledge>main.go has 7 lines and serves on :8080.</key_knowledge>\n<file_system_state>MODIFIED: main.go (/health handler). CREATED: NOTES.md.</file_system_state>\n<recent_actions>A sub-agent found the routes in main.go line 6.</recent_actions>\n</state_snapshot>";

function script(prompt, step, body, kind) {
	const has = (s) => prompt.includes(s);
	// --list-sessions: a one-line summary of the previous session (its
	// prompt quotes the conversation, so this test comes first).
	if (has("Summarize the user's primary intent")) return { text: "Add a health check endpoint to acme-api", usage: { prompt: 900, candidates: 9 } };
	// History compression (non-streamed generateContent): the summary, then
	// its verification.
	if (has("Generate a new <state_snapshot>") || has("A previous <state_snapshot> exists"))
		return { thoughts: ["**Summarising the history**\n\nCollect the goal, the files touched and the last actions."], text: SUMMARY, usage: { prompt: 3400, candidates: 160, thoughts: 40 } };
	if (has("Critically evaluate the <state_snapshot>")) return { text: SUMMARY, usage: { prompt: 3600, candidates: 150 } };
	// The sub-agent: its own system prompt and its query as the first user message.
	if (has(SUB) && !has(P5))
		return [
			{ thoughts: ["**Searching for routes**\n\nGrep for HandleFunc and ListenAndServe."], calls: [{ name: "grep_search", args: { pattern: "HandleFunc|ListenAndServe" } }], usage: { prompt: 2100, candidates: 30, thoughts: 12 } },
			{ calls: [{ name: "complete_task", args: { report: { SummaryOfFindings: "The routes are registered in main.go: /health on line 6, served by http.ListenAndServe on line 7.", ExplorationTrace: ["grep_search HandleFunc|ListenAndServe"], RelevantLocations: [{ FilePath: "main.go", Reasoning: "registers /health and starts the server", KeySymbols: ["main"] }] } } }], usage: { prompt: 2300, candidates: 80 } },
		][step];
	if (has(P1))
		return [
			{
				thoughts: ["**Planning the inspection**\n\nThe user wants a line count and a description; run wc and read the file at once."],
				text: "I'll count the lines and read the file.",
				calls: [
					{ name: "run_shell_command", args: { command: "wc -l main.go", description: "Count lines in main.go" } },
					{ name: "read_file", args: { file_path: "main.go" } },
				],
				usage: { prompt: 8120, candidates: 64, thoughts: 35 },
			},
			{ text: "main.go has 7 lines: it starts an HTTP server on :8080 with the default mux and no handlers.", usage: { prompt: 8460, candidates: 24, cached: 8000 } },
		][step];
	if (has(P2))
		return [
			{ calls: [{ name: "replace", args: { file_path: path.join(WORK, "main.go"), instruction: "Register a /health handler before starting the server.", old_string: OLD, new_string: NEW } }], usage: { prompt: 8900, candidates: 90, cached: 8000 } },
			{ calls: [{ name: "write_file", args: { file_path: path.join(WORK, "NOTES.md"), content: "# Notes\n\n- GET /health answers `ok`.\n" } }], usage: { prompt: 9200, candidates: 40, cached: 8800 } },
			{ text: "Added the /health handler and wrote NOTES.md.", usage: { prompt: 9400, candidates: 14, cached: 9100 } },
		][step];
	if (has(P3))
		return [
			{
				calls: [
					{ name: "read_file", args: { file_path: "docs/missing.md" } },
					{ name: "run_shell_command", args: { command: "go test ./... 2>&1; exit 1", description: "Run the tests" } },
				],
				usage: { prompt: 9600, candidates: 50, cached: 9300 },
			},
			{ text: "docs/missing.md does not exist, and the test command failed with exit code 1.", usage: { prompt: 9900, candidates: 20, cached: 9500 } },
		][step];
	if (has(P4)) return { error: { code: 400, status: "INVALID_ARGUMENT", message: "Request contains an invalid argument." } };
	if (has(P5))
		return [
			{ calls: [{ name: "invoke_agent", args: { agent_name: "codebase_investigator", prompt: SUB } }], usage: { prompt: 10100, candidates: 60, cached: 9800 } },
			{ text: "The sub-agent says the routes are registered in main.go: /health on line 6.", usage: { prompt: 10500, candidates: 22, cached: 10000 } },
		][step];
	if (has(P6))
		return [
			// A prompt over half of gemini-2.5-pro's 1,048,576-token limit: the
			// CLI compresses the history before its next request.
			{ calls: [{ name: "list_directory", args: { dir_path: "." } }], usage: { prompt: 600000, candidates: 30, cached: 10000 } },
			{ text: "So far: counted main.go, added /health, wrote NOTES.md, and a sub-agent found the routes. Files: main.go, NOTES.md.", usage: { prompt: 3900, candidates: 40 } },
		][step];
	if (has(Q3)) return { text: "Nothing else: the imported answers stand.", usage: { prompt: 7800, candidates: 10 } };
	if (has(Q2)) return { text: "Only when the server stops: on a listener error, or after Shutdown or Close.", usage: { prompt: 7600, candidates: 20, cached: 7000 } };
	if (has(Q1)) return { thoughts: ["**Recalling net/http**\n\nListenAndServe returns an error."], text: "It returns an error, always non-nil.", usage: { prompt: 7400, candidates: 12, thoughts: 18 } };
	return undefined;
}

const log = [];
const server = await startServer(script, log);
const port = server.address().port;
const env = {
	PATH: process.env.PATH,
	HOME,
	TZ: "UTC",
	TERM: "dumb",
	GEMINI_API_KEY: "local-test-key",
	GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
	GEMINI_CLI_NO_RELAUNCH: "1",
};

function gemini(args) {
	return new Promise((resolve) => {
		const p = spawn(process.execPath, [BIN, "-m", MODEL, "--yolo", "-o", "stream-json", ...args], { cwd: WORK, env, stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		p.stdout.on("data", (d) => (out += d));
		p.stderr.on("data", (d) => (err += d));
		const timer = setTimeout(() => p.kill("SIGKILL"), 120000);
		p.on("close", (code) => {
			clearTimeout(timer);
			const events = out.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
			resolve({ code, events, err });
		});
	});
}

const steps = [];
async function run(label, args, expectFail = false) {
	const from = log.length;
	const r = await gemini(args);
	if (r.code !== 0 && !expectFail) throw new Error(`${label}: gemini exited ${r.code}: ${r.err.slice(-2000)} ${JSON.stringify(r.events.slice(-3)).slice(0, 3000)}`);
	const init = r.events.find((e) => e.type === "init");
	const result = r.events.find((e) => e.type === "result");
	steps.push({
		label,
		args,
		exit: r.code,
		sessionId: init && init.session_id,
		// The CLI's own account of the run.
		resultStatus: result && result.status,
		resultStats: result && result.stats,
		toolResults: r.events.filter((e) => e.type === "tool_result").map((e) => ({ tool_id: e.tool_id, status: e.status })),
		requests: log.slice(from).filter((e) => e.responseId || e.error).map((e) => e.n),
	});
	console.log(`${label}: exit ${r.code}, session ${init && init.session_id}, ${log.length - from} requests`);
	return r;
}

// The CLI names a session file after the minute it starts
// (session-YYYY-MM-DDTHH-MM-<first 8 of the id>.jsonl). A resumed run first
// starts a fresh recording under the current minute's name (a metadata line
// and a $set of the <session_context> message alone) before it switches to
// the resumed file. Resumed in a later minute, that makes a second file with
// the same session id and no conversation: runs 2 to 6 start in the minute
// after run 1, so the first session shows this (one extra file, written to
// by each of them). Resumed within the session's first minute, those lines
// land in the session file itself, and their $set of the message list wipes
// it until the CLI writes the list again: the second session (runs 8 and 9,
// within one minute) shows this.
const waitForMinute = async (maxSecond) => {
	while (new Date().getUTCSeconds() > maxSecond) await new Promise((r) => setTimeout(r, 250));
};
const nextMinute = async () => {
	const m = new Date().getUTCMinutes();
	while (new Date().getUTCMinutes() === m) await new Promise((r) => setTimeout(r, 250));
};
const minute = () => new Date().toISOString().slice(0, 16);
await waitForMinute(45);
await run("first turn: thoughts, parallel shell and read_file", ["--session-id", SESSION, "-p", P1]);
await nextMinute();
const minute2 = minute();
await run("replace (diff) and write_file, from the next minute", ["--resume", SESSION, "-p", P2]);
await run("tool errors: missing file, failing command", ["--resume", SESSION, "-p", P3]);
await run("API error 400: the prompt is rolled back", ["--resume", SESSION, "-p", P4], true);
await run("sub-agent", ["--resume", SESSION, "-p", P5]);
await run("automatic history compression", ["--resume", SESSION, "-p", P6]);
if (minute() !== minute2) throw new Error("runs 2 to 6 took over a minute; the layout described above needs them within one");
await run("--list-sessions: summary of the previous session", ["--list-sessions"]);
await waitForMinute(45);
const minute3 = minute();
await run("second session: plain turn", ["--session-id", SESSION2, "-p", Q1]);
await run("resume latest within the same minute: plain follow-up", ["--resume", "latest", "-p", Q2]);
if (minute() !== minute3) throw new Error("runs 8 and 9 took over a minute; the layout described above needs them within one");
const s2File = fs.readdirSync(path.join(HOME, ".gemini", "tmp", "acme-api", "chats")).find((f) => f.endsWith(`-${SESSION2.slice(0, 8)}.jsonl`));
await run("--session-file: import the second session into a new one", ["--session-file", path.join(HOME, ".gemini", "tmp", "acme-api", "chats", s2File), "-p", Q3]);
server.close();

// Copy what the CLI wrote under ~/.gemini, leaving out our settings.json and
// the CLI's own state files that are not about sessions.
fs.rmSync(OUT, { recursive: true, force: true });
const G = path.join(HOME, ".gemini");
const files = [];
(function walk(dir) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) walk(p);
		else files.push(path.relative(G, p));
	}
})(G);
files.sort();
const keep = files.filter((f) => f === "projects.json" || f.startsWith("tmp/"));
for (const f of keep) {
	fs.mkdirSync(path.dirname(path.join(OUT, f)), { recursive: true });
	fs.copyFileSync(path.join(G, f), path.join(OUT, f));
}
const unscripted = log.filter((e) => e.unscripted);
fs.writeFileSync(
	path.join(HERE, "..", "expected.json"),
	JSON.stringify({ geminiCliVersion: VERSION, model: MODEL, root: ROOT, session: SESSION, session2: SESSION2, importedSession: steps[steps.length - 1].sessionId, steps, allFiles: files, files: keep, requests: log }, null, 1) + "\n",
);
console.log(`${keep.length} of ${files.length} files kept, ${log.length} requests (${unscripted.length} unscripted)`);
for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
