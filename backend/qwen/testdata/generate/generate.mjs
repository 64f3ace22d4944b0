// Generates real Qwen Code session logs (@qwen-code/qwen-code, exact version
// pinned in package.json) by running the real program offline against a
// scripted local model server that speaks the OpenAI Chat Completions API
// (openai-server.mjs), reached through OPENAI_BASE_URL with --auth-type openai.
//
//   npm install && node generate.mjs   (npm ci refuses this package's lock: see README.md)
//
// HOME is a neutral temporary folder (/tmp/rhizome-qwen-fixtures, deleted and
// recreated) with a ~/.qwen/settings.json that turns off usage statistics,
// telemetry, auto-update and managed auto-memory. Every run is
// `qwen --auth-type openai -m qwen3-coder-plus --yolo -o stream-json ... PROMPT`
// in one project:
//
//   1. --session-id S        reasoning, text and two parallel tool calls in one
//                            response (run_shell_command and read_file)
//   2. --resume S            edit (a diff) and write_file (a new file)
//   3. --resume S            tool errors: read_file of a missing file, and a
//                            shell command that exits 1
//   4. --resume S            the API answers 400
//   5. --resume S            a sub-agent (the agent tool, subagent_type
//                            Explore, in the background as by default): its
//                            own transcript under subagents/, and its result
//                            coming back as a <task-notification> user
//                            message that starts another model turn
//   6. --resume S "/compress"   a manual compression: a chat_compression
//                            record holding the rewritten history
//   7. --continue            a turn after the compression (the most recent
//                            session of the project)
//   8. --resume S --fork-session   a fork: a new session whose records are
//                            copies of S's and that names S as its parent
//
// Output, copied into ../qwen-home/ in Qwen Code's own layout under ~/.qwen
// (projects/<project>/chats/…), and ../expected.json: the session ids, the
// steps, Qwen Code's own result event per run, and every model request the
// server answered with the usage it reported.
//
// Record uuids and timestamps come from Qwen Code (random uuids, wall clock):
// a new run gives new ones; re-run the Go tests with -update after
// regenerating.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./openai-server.mjs";

const VERSION = JSON.parse(fs.readFileSync(new URL("./package.json", import.meta.url))).dependencies["@qwen-code/qwen-code"];
const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(HERE, "..", "qwen-home");
const ROOT = "/tmp/rhizome-qwen-fixtures";
const HOME = path.join(ROOT, "home");
const WORK = path.join(ROOT, "work", "acme-api");
const BIN = path.join(HERE, "node_modules", "@qwen-code", "qwen-code", "cli-entry.js");
const MODEL = "qwen3-coder-plus";
const SESSION = "9d4e6b21-3c7a-4f08-b5e2-6a1c0d8f7e39";

fs.rmSync(ROOT, { recursive: true, force: true });
fs.mkdirSync(path.join(HOME, ".qwen"), { recursive: true });
fs.mkdirSync(WORK, { recursive: true });
fs.writeFileSync(
	path.join(HOME, ".qwen", "settings.json"),
	JSON.stringify(
		{
			privacy: { usageStatisticsEnabled: false },
			telemetry: { enabled: false },
			general: { enableAutoUpdate: false },
			// Managed auto-memory (on by default) runs a background extraction
			// agent after a turn that races the process exit and writes only
			// to memory/, not to the session: off, for the same requests on
			// every run.
			memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
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
const P7 = "After the compression: what is left to do?";
const P8 = "In a fork: would /ready be a better name than /health?";

const MAIN = path.join(WORK, "main.go");
const OLD = "func main() {\n";
const NEW = 'func main() {\n\thttp.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })\n';
const SUMMARY = "<analysis>The user inspected main.go, added a /health handler and NOTES.md, hit a missing file and a failing test run, and had a sub-agent find the routes.</analysis>\n<state_snapshot>\n<overall_goal>Add a /health handler to acme-api.</overall_goal>\n<file_system_state>MODIFIED: main.go (/health handler). CREATED: NOTES.md.</file_system_state>\n<recent_actions>A sub-agent found the routes in main.go line 6.</recent_actions>\n</state_snapshot>";

let errorSent = false;
function script(prompt, step) {
	const has = (s) => prompt.includes(s);
	// /compress: Qwen Code's summariser prompt quotes the history, so this
	// test comes first.
	if (has("summarizes a conversation") || has("produce the <state_snapshot>")) return { text: SUMMARY, usage: { prompt: 3400, completion: 160 } };
	if (has(SUB) && !has(P5))
		return [
			{ calls: [{ name: "grep_search", args: { pattern: "HandleFunc|ListenAndServe" } }], usage: { prompt: 2100, completion: 30 } },
			{ text: "The routes are registered in main.go: /health on line 6, served by http.ListenAndServe on line 7.", usage: { prompt: 2300, completion: 28, cached: 2048 } },
		][step];
	if (has(P1))
		return [
			{
				reasoning: "The user wants a line count and a description; run wc and read the file at once.",
				text: "I'll count the lines and read the file.",
				calls: [
					{ name: "run_shell_command", args: { command: "wc -l main.go", description: "Count lines in main.go" } },
					{ name: "read_file", args: { file_path: MAIN } },
				],
				usage: { prompt: 8120, completion: 64, reasoning: 35 },
			},
			{ text: "main.go has 7 lines: it starts an HTTP server on :8080 with the default mux and no handlers.", usage: { prompt: 8460, completion: 24, cached: 8000 } },
		][step];
	if (has(P2))
		return [
			{ calls: [{ name: "read_file", args: { file_path: MAIN } }], usage: { prompt: 8700, completion: 30, cached: 8000 } },
			{ calls: [{ name: "edit", args: { file_path: MAIN, old_string: OLD, new_string: NEW } }], usage: { prompt: 8900, completion: 90, cached: 8600 } },
			{ calls: [{ name: "write_file", args: { file_path: path.join(WORK, "NOTES.md"), content: "# Notes\n\n- GET /health answers `ok`.\n" } }], usage: { prompt: 9200, completion: 40, cached: 8800 } },
			{ text: "Added the /health handler and wrote NOTES.md.", usage: { prompt: 9400, completion: 14, cached: 9100 } },
		][step];
	if (has(P3))
		return [
			{
				calls: [
					{ name: "read_file", args: { file_path: path.join(WORK, "docs", "missing.md") } },
					{ name: "run_shell_command", args: { command: "go test ./... 2>&1; exit 1", description: "Run the tests" } },
				],
				usage: { prompt: 9600, completion: 50, cached: 9300 },
			},
			{ text: "docs/missing.md does not exist, and the test command failed with exit code 1.", usage: { prompt: 9900, completion: 20, cached: 9500 } },
		][step];
	// Once only: the failed prompt stays in the history, and the next
	// request carries it in the same user message as the next prompt.
	if (has(P4) && !errorSent) return (errorSent = true), { error: { status: 400, type: "invalid_request_error", code: "invalid_parameter_error", message: "The request is invalid: messages[3].content is malformed." } };
	if (has(P5))
		return [
			{ calls: [{ name: "agent", args: { description: "Find the HTTP routes", prompt: SUB, subagent_type: "Explore" } }], usage: { prompt: 10100, completion: 60, cached: 9800 } },
			{ text: "I've asked an Explore agent to find the routes; I'll report when it is done.", usage: { prompt: 10500, completion: 22, cached: 10000 } },
		][step];
	// The background sub-agent's completion comes back as a user message.
	if (has("<task-notification>")) return { text: "The sub-agent says the routes are registered in main.go: /health on line 6.", usage: { prompt: 10900, completion: 24, cached: 10400 } };
	if (has(P8)) return { text: "/ready usually means \"can take traffic\"; /health is the better name here.", usage: { prompt: 4300, completion: 22, cached: 4096 } };
	if (has(P7)) return { text: "Only handling the w.Write error is left.", usage: { prompt: 4100, completion: 15 } };
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
	OPENAI_API_KEY: "sk-local-test",
	OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`,
	OPENAI_MODEL: MODEL,
	QWEN_CODE_SUPPRESS_YOLO_WARNING: "1",
};

function qwen(args) {
	return new Promise((resolve) => {
		const p = spawn(process.execPath, [BIN, "--auth-type", "openai", "-m", MODEL, "--yolo", "-o", "stream-json", ...args], { cwd: WORK, env, stdio: ["ignore", "pipe", "pipe"] });
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
	const r = await qwen(args);
	if (r.code !== 0 && !expectFail) throw new Error(`${label}: qwen exited ${r.code}: ${r.err.slice(-2000)} ${JSON.stringify(r.events.slice(-3)).slice(0, 3000)}`);
	const init = r.events.find((e) => e.type === "system" && e.subtype === "init");
	const result = r.events.find((e) => e.type === "result");
	steps.push({
		label,
		args,
		exit: r.code,
		sessionId: init && init.session_id,
		// Qwen Code's own account of the run.
		result: result && { subtype: result.subtype, is_error: result.is_error, num_turns: result.num_turns, result: result.result, usage: result.usage },
		requests: log.slice(from).filter((e) => e.id || e.error).map((e) => e.n),
	});
	console.log(`${label}: exit ${r.code}, session ${init && init.session_id}, ${log.length - from} requests`);
	return r;
}

await run("first turn: reasoning, parallel shell and read_file", ["--session-id", SESSION, P1]);
await run("edit (diff) and write_file", ["--resume", SESSION, P2]);
await run("tool errors: missing file, failing command", ["--resume", SESSION, P3]);
await run("API error 400", ["--resume", SESSION, P4], true);
await run("sub-agent", ["--resume", SESSION, P5]);
await run("manual compression", ["--resume", SESSION, "/compress"]);
await run("--continue: a turn after the compression", ["--continue", P7]);
await run("fork", ["--resume", SESSION, "--fork-session", P8]);
server.close();

// Copy what Qwen Code wrote under ~/.qwen/projects, in its own layout.
fs.rmSync(OUT, { recursive: true, force: true });
const Q = path.join(HOME, ".qwen");
const files = [];
(function walk(dir) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) walk(p);
		else files.push(path.relative(Q, p));
	}
})(Q);
files.sort();
const keep = files.filter((f) => f.startsWith("projects/"));
for (const f of keep) {
	fs.mkdirSync(path.dirname(path.join(OUT, f)), { recursive: true });
	fs.copyFileSync(path.join(Q, f), path.join(OUT, f));
}
const unscripted = log.filter((e) => e.unscripted);
fs.writeFileSync(
	path.join(HERE, "..", "expected.json"),
	JSON.stringify({ qwenCodeVersion: VERSION, model: MODEL, root: ROOT, session: SESSION, forkSession: steps[steps.length - 1].sessionId, steps, allFiles: files, files: keep, requests: log }, null, 1) + "\n",
);
console.log(`${keep.length} of ${files.length} files kept, ${log.length} requests (${unscripted.length} unscripted)`);
for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
