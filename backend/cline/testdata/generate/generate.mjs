// Generates real Cline CLI sessions (npm "cline"; its Linux x64 binary
// package, @cline/cli-linux-x64, exact version pinned in package.json: the
// Bun-compiled program the wrapper runs) by running the real program offline against
// a scripted local model server speaking the streaming OpenAI Chat
// Completions API (../../../opencode/testdata/generate/chat-server.mjs,
// shared with the OpenCode and Copilot generators), configured as Cline's
// "openai-compatible" provider (`cline auth -p openai -b URL`).
//
//   npm ci && node generate.mjs
//
// HOME is a neutral temporary folder (/tmp/rhizome-cline-fixtures, deleted
// and recreated), so Cline's data folder is HOME/.cline/data. Cline 3.x runs
// a prompt headlessly (`cline --json "prompt"`), but it resumes an existing
// session only in its terminal UI (`--id` forces interactive mode) or through
// its Agent Client Protocol mode (`cline --acp`: JSON-RPC 2.0, one JSON
// message a line on stdin/stdout), which this script speaks as a client. What
// it runs, all in one git project:
//
//   1. cline --json "…"         a new session: reasoning, text and two
//                                parallel tool calls (run_commands with two
//                                commands, read_files), then an answer
//   2. cline --acp              the same session resumed (session/load):
//      prompt 1                 editor (a replacement, with its diff), a
//                                failing editor call (a tool error),
//                                read_files of a missing file and a failing
//                                command (errors inside a tool result); the
//                                tool approvals go through
//                                session/request_permission
//      prompt 2                 spawn_agent: a sub-agent (its own messages
//                                file and index row) that runs a command
//   3. cline --json "…"         a second session: editor creates a file; a
//                                response reports usage near the context
//                                window, so Cline compacts automatically
//                                (a summarizer request, the .compaction.json
//                                file) and goes on
//   4. cline --json "…"         a third session: the API answers 400 (an
//                                error message, status failed, exit 1)
//   5. cline --json "…"         a fourth session: the API answers 400
//                                context_length_exceeded, Cline compacts
//                                (overflow recovery) and retries
//   6. cline --acp              session/new in plan mode (session/set_mode):
//                                an editor call, which plan mode does not
//                                offer (an is_error tool result), then a
//                                plan; session/set_mode act and a plain turn
//                                (Cline keeps plan mode: the running session
//                                does not change mode); then session/load of
//                                the compacted second session and one more
//                                turn
//
// Output, copied into ../cline-home/ in Cline's own layout under its data
// folder (~/.cline/data): sessions/<id>/ (each session's manifest, messages
// and compaction files, sub-agent messages) and db/sessions.db (the session
// index, copied with sqlite3's VACUUM INTO); and ../expected.json: the steps,
// the session ids, and every request the server answered.
//
// Ids and timestamps come from Cline (wall clock): a new run gives new ones.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, contentText } from "../../../opencode/testdata/generate/chat-server.mjs"; // shared with the OpenCode generator

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VERSION = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8")).dependencies["@cline/cli-linux-x64"];
const OUT = path.resolve(HERE, "..", "cline-home");
const ROOT = "/tmp/rhizome-cline-fixtures";
const HOME = path.join(ROOT, "home");
const DATA = path.join(HOME, ".cline", "data");
const SETTINGS = path.join(DATA, "settings");
const WORK = path.join(ROOT, "work", "notes-api");
// The npm package "cline" is a Node wrapper script that finds and runs this
// binary (its postinstall hard-links it); the generator runs it directly.
const BIN = path.join(HERE, "node_modules", "@cline", "cli-linux-x64", "bin", "cline");
const MODEL = "scripted-coder";
const API_KEY = "sk-local-test";
// A small context window (providers.json "contextWindow") so that one
// response's reported usage crosses Cline's auto-compaction threshold.
const CONTEXT = 20000;

if (!fs.existsSync(BIN)) throw new Error(`${BIN} is missing: run npm ci first (Linux x64 only)`);
fs.rmSync(ROOT, { recursive: true, force: true });
for (const d of [SETTINGS, WORK]) fs.mkdirSync(d, { recursive: true });
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

// Global settings: no telemetry, no automatic update.
fs.writeFileSync(path.join(SETTINGS, "global-settings.json"), JSON.stringify({ telemetryOptOut: true, autoUpdateEnabled: false }, null, 2) + "\n");

const P1 = "How long is main.go, and what does it serve?";
const P2 = "Add a /health endpoint to main.go and check whether health.go exists.";
const P3 = "Ask a sub-agent to review notes.go for error handling.";
const SUB_SYSTEM = "You are a careful Go reviewer. Answer in one sentence.";
const SUB = "Review notes.go: is the error from w.Write handled?";
const P4 = "Write release notes for 0.3.0 into RELEASE.md, then check the build.";
const P5 = "Trigger the API error now.";
const P6 = "Paste the whole access log here and explain it.";
const P7 = "Plan how to add tests for listNotes; do not change anything yet.";
const P8 = "Good plan. Which file would the test go in?";
const P9 = "What did the release notes say?";

const p = (f) => path.join(WORK, f);
const systemText = (body) => (body.messages || []).filter((m) => m.role === "system").map((m) => contentText(m.content)).join("\n");
/** Cline's agentic compaction asks the model for a summary with this system prompt. */
const isSummarizer = (body) => systemText(body).startsWith("Summarize the provided coding session");
/** spawn_agent runs the sub-agent with the system prompt the lead chose. */
const isSubagent = (body) => systemText(body).includes(SUB_SYSTEM);

let overflowSent = false;
function script(prompt, step, body) {
	const has = (s) => prompt.includes(s);
	if (isSummarizer(body))
		return {
			text: "## Goal\nPublish release notes for 0.3.0.\n\n## State\n- Done: wrote RELEASE.md, checked the build twice.\n- In Progress: final check.\n\n## Next\n- Report the result.",
			usage: { prompt: 2400, completion: 60 },
		};
	if (isSubagent(body))
		return [
			{ text: "Looking for the write call.", tools: [{ name: "run_commands", arguments: { commands: ["grep -n w.Write notes.go"] } }], usage: { prompt: 3100, completion: 30 } },
			{ text: "notes.go ignores the error returned by w.Write on line 6.", usage: { prompt: 3300, cached: 3100, completion: 18 } },
		][step];
	if (has(P1))
		return [
			{
				reasoning: "The user wants the length and the routes. Count the lines and read the file in one go.",
				text: "I'll count the lines and read the file.",
				tools: [
					{ name: "run_commands", arguments: { commands: ["wc -l main.go", "ls"] } },
					{ name: "read_files", arguments: { files: [{ path: p("main.go") }] } },
				],
				usage: { prompt: 6200, completion: 96, reasoning: 24 },
			},
			{ text: "main.go has 9 lines and serves /notes on port 8080.", usage: { prompt: 6600, cached: 6200, completion: 18 } },
		][step];
	if (has(P2))
		return [
			{
				text: "I'll add the route and check for health.go.",
				tools: [
					{ name: "editor", arguments: { path: p("main.go"), old_text: '\thttp.HandleFunc("/notes", listNotes)\n', new_text: '\thttp.HandleFunc("/notes", listNotes)\n\thttp.HandleFunc("/health", health)\n' } },
					{ name: "read_files", arguments: { files: [{ path: p("health.go") }] } },
					{ name: "run_commands", arguments: { commands: ["test -f health.go"] } },
				],
				usage: { prompt: 7000, cached: 6600, completion: 120 },
			},
			// old_text that is not in the file: the editor tool fails.
			{ tools: [{ name: "editor", arguments: { path: p("notes.go"), old_text: "func health(", new_text: "func health(w http.ResponseWriter, r *http.Request) {}\n" } }], usage: { prompt: 7400, cached: 7000, completion: 40 } },
			{ tools: [{ name: "editor", arguments: { path: p("health.go"), new_text: 'package main\n\nimport "net/http"\n\nfunc health(w http.ResponseWriter, r *http.Request) {\n\tw.Write([]byte("ok"))\n}\n' } }], usage: { prompt: 7800, cached: 7400, completion: 60 } },
			{ text: "Added /health to main.go and created health.go (it did not exist).", usage: { prompt: 8200, cached: 7800, completion: 20 } },
		][step];
	if (has(P3))
		return [
			{ text: "I'll ask a reviewer.", tools: [{ name: "spawn_agent", arguments: { systemPrompt: SUB_SYSTEM, task: SUB } }], usage: { prompt: 8600, cached: 8200, completion: 50 } },
			{ text: "The sub-agent says notes.go ignores w.Write's error.", usage: { prompt: 9000, cached: 8600, completion: 16 } },
		][step];
	// After a compaction the conversation starts with the summary.
	if (prompt.startsWith("Context summary:")) return { text: "The build is fine and RELEASE.md is written.", usage: { prompt: 2600, completion: 14 } };
	if (has(P4))
		return [
			{ text: "Writing the notes.", tools: [{ name: "editor", arguments: { path: p("RELEASE.md"), new_text: "# 0.3.0\n\n- Add a /health endpoint.\n" } }], usage: { prompt: 6100, completion: 40 } },
			{ tools: [{ name: "run_commands", arguments: { commands: ["git status --short"] } }], usage: { prompt: 6400, cached: 6100, completion: 20 } },
			// Near the context window: Cline compacts before the next request.
			{ text: "Checking once more.", tools: [{ name: "run_commands", arguments: { commands: ["cat RELEASE.md"] } }], usage: { prompt: 19500, cached: 6400, completion: 20 } },
		][step];
	if (has(P5)) return { error: { status: 400, message: "Invalid 'messages[3].tool_calls[0].id': string too long.", type: "invalid_request_error", code: "invalid_value" } };
	if (has(P6)) {
		// After the overflow-recovery compaction the prompt message carries a
		// notice of what was compacted away, and the step count starts again.
		if (has("Earlier context was compacted")) return { text: "The log is a stand-in: five numbered lines.", usage: { prompt: 6100, completion: 12 } };
		if (step === 0) return { text: "Reading the log.", tools: [{ name: "run_commands", arguments: { commands: ["seq 1 5"] } }], usage: { prompt: 6000, completion: 20 } };
		if (!overflowSent) {
			overflowSent = true;
			return { error: { status: 400, message: "This model's maximum context length is 20000 tokens. However, your messages resulted in 26000 tokens. Please reduce the length of the messages.", type: "invalid_request_error", code: "context_length_exceeded" } };
		}
		return { text: "The log is a stand-in: five numbered lines.", usage: { prompt: 6100, completion: 12 } };
	}
	if (has(P7))
		return [
			// Plan mode has no editor tool: the call fails before it runs.
			{ tools: [{ name: "editor", arguments: { path: p("notes_test.go"), new_text: "package main\n" } }], usage: { prompt: 5800, completion: 30 } },
			{ text: "Plan: add notes_test.go with an httptest recorder for listNotes, assert status 200 and body \"[]\".", usage: { prompt: 6000, cached: 5800, completion: 30 } },
		][step];
	if (has(P8)) return { text: "notes_test.go, next to notes.go.", usage: { prompt: 6200, cached: 6000, completion: 10 } };
	if (has(P9)) return { text: "They list the new /health endpoint.", usage: { prompt: 3000, completion: 10 } };
	return undefined;
}

const log = [];
const dump = process.env.DUMP ? fs.createWriteStream(process.env.DUMP) : null;
const server = await startServer(script, log, { models: [MODEL], dump: dump && ((d) => dump.write(JSON.stringify(d) + "\n")) });
const port = server.address().port;

const env = {
	PATH: process.env.PATH,
	HOME,
	TZ: "UTC",
	// No background hub daemon (it would outlive the run): sessions run in
	// the CLI process itself.
	CLINE_SESSION_BACKEND_MODE: "local",
	// No update check.
	CLINE_NO_AUTO_UPDATE: "1",
	// The only switch for the PostHog feature-flag fetch (data.cline.bot):
	// with it the flags come from a no-op provider. It changes nothing else.
	E2E_TEST: "true",
};

const steps = [];

function cline(args, extraEnv = {}) {
	return new Promise((resolve) => {
		const child = spawn(BIN, args, { cwd: WORK, env: { ...env, ...extraEnv }, stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		child.stdout.on("data", (d) => (out += d));
		child.stderr.on("data", (d) => (err += d));
		const timer = setTimeout(() => child.kill("SIGKILL"), 180000);
		child.on("close", (code) => {
			clearTimeout(timer);
			resolve({ code, out, err });
		});
	});
}

/** The sessions Cline has written so far (folder names are session ids). */
const sessionDirs = () => (fs.existsSync(path.join(DATA, "sessions")) ? fs.readdirSync(path.join(DATA, "sessions")).sort() : []);

async function run(label, prompt, expectFail = false) {
	const from = log.length;
	const before = sessionDirs();
	const r = await cline(["--json", prompt]);
	if (process.env.KEEP_LOGS) fs.writeFileSync(path.join(ROOT, `run-${steps.length + 1}.log`), r.err + "\n" + r.out);
	const events = r.out.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
	const result = events.find((e) => e.type === "run_result");
	const errors = events.filter((e) => e.type === "error").map((e) => e.message);
	if ((r.code !== 0 || errors.length) && !expectFail) throw new Error(`${label}: cline exited ${r.code}: ${r.err.slice(-3000)} ${r.out.slice(-3000)}`);
	const created = sessionDirs().filter((d) => !before.includes(d));
	if (created.length !== 1) throw new Error(`${label}: expected one new session folder, got ${created}`);
	steps.push({ label, args: ["--json", prompt], exit: r.code, sessionId: created[0], finishReason: result?.finishReason, notices: events.filter((e) => e.event?.type === "notice").map((e) => e.event.message), errors, requests: log.slice(from).filter((e) => e.id || e.error).map((e) => e.n) });
	console.log(`${label}: exit ${r.code}, session ${created[0]}, ${log.length - from} requests`);
	return created[0];
}

/**
 * A client of Cline's ACP mode: JSON-RPC 2.0 over the child's stdin/stdout,
 * one message a line. Tool approvals (session/request_permission) are
 * answered with the "allow once" option.
 */
function acp(label) {
	const child = spawn(BIN, ["--acp"], {
		cwd: WORK,
		// ACP reads provider and model from the environment (else it falls
		// back to the Cline provider), and asks for a sign-in unless an API
		// key is given here; the base URL comes from providers.json.
		env: { ...env, CLINE_PROVIDER: "openai-compatible", CLINE_MODEL: MODEL, CLINE_API_KEY: API_KEY },
		stdio: ["pipe", "pipe", "pipe"],
	});
	let buf = "";
	let err = "";
	let next = 0;
	const pending = new Map();
	const transcript = [];
	const permissions = [];
	child.stderr.on("data", (d) => (err += d));
	child.stdout.on("data", (d) => {
		buf += d;
		for (let i; (i = buf.indexOf("\n")) >= 0; ) {
			const line = buf.slice(0, i).trim();
			buf = buf.slice(i + 1);
			if (!line) continue;
			const m = JSON.parse(line);
			transcript.push(m);
			if (m.method === "session/request_permission") {
				const opt = m.params.options.find((o) => o.kind === "allow_once") ?? m.params.options[0];
				permissions.push({ tool: m.params.toolCall?.title, kind: m.params.toolCall?.kind, chose: opt.optionId });
				send({ jsonrpc: "2.0", id: m.id, result: { outcome: { outcome: "selected", optionId: opt.optionId } } });
			} else if (m.method !== undefined && m.id !== undefined) {
				// No other client capability (fs, terminal) was offered.
				send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: `not supported: ${m.method}` } });
			} else if (m.id !== undefined && pending.has(m.id)) {
				pending.get(m.id)(m);
				pending.delete(m.id);
			}
		}
	});
	const send = (m) => {
		transcript.push(m);
		child.stdin.write(JSON.stringify(m) + "\n");
	};
	const call = (method, params) =>
		new Promise((resolve, reject) => {
			const id = ++next;
			const timer = setTimeout(() => reject(new Error(`${label}: ${method} timed out: ${err.slice(-2000)}`)), 180000);
			pending.set(id, (m) => {
				clearTimeout(timer);
				if (m.error) reject(new Error(`${label}: ${method}: ${JSON.stringify(m.error)}`));
				else resolve(m.result);
			});
			send({ jsonrpc: "2.0", id, method, params });
		});
	const close = () =>
		new Promise((resolve) => {
			const timer = setTimeout(() => child.kill("SIGKILL"), 15000);
			child.on("close", (code) => {
				clearTimeout(timer);
				if (process.env.KEEP_LOGS) fs.writeFileSync(path.join(ROOT, `acp-${label.replace(/\W+/g, "-")}.log`), err + "\n" + transcript.map((m) => JSON.stringify(m)).join("\n"));
				resolve({ code, transcript, permissions });
			});
			child.stdin.end();
		});
	return { call, close, transcript, permissions };
}

/** Counts the session/update kinds ACP sent since index `from`. */
function updateKinds(transcript, from) {
	const kinds = {};
	for (const m of transcript.slice(from)) if (m.method === "session/update") kinds[m.params.update.sessionUpdate] = (kinds[m.params.update.sessionUpdate] ?? 0) + 1;
	return kinds;
}

async function acpPrompt(conn, label, sessionId, text) {
	const from = log.length;
	const t0 = conn.transcript.length;
	const p0 = conn.permissions.length;
	const before = sessionDirs();
	const result = await conn.call("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
	steps.push({ label, acp: "session/prompt", sessionId, prompt: text, stopReason: result.stopReason, newSessionFolders: sessionDirs().filter((d) => !before.includes(d)), permissions: conn.permissions.slice(p0), updates: updateKinds(conn.transcript, t0), requests: log.slice(from).filter((e) => e.id || e.error).map((e) => e.n) });
	console.log(`${label}: ${result.stopReason}, ${log.length - from} requests`);
}

// Provider setup through the CLI: writes settings/providers.json
// (provider "openai-compatible", apiKey, model, baseUrl).
{
	const r = await cline(["auth", "-p", "openai", "-k", API_KEY, "-m", MODEL, "-b", `http://127.0.0.1:${port}/v1`]);
	if (r.code !== 0) throw new Error(`cline auth exited ${r.code}: ${r.err}`);
	steps.push({ label: "provider setup", args: ["auth", "-p", "openai", "-k", "…", "-m", MODEL, "-b", "http://127.0.0.1:PORT/v1"], exit: r.code });
	// `cline auth` has no flag for it; contextWindow is a ProviderSettings
	// field (the CLI's default for an unknown model is 128000).
	const file = path.join(SETTINGS, "providers.json");
	const providers = JSON.parse(fs.readFileSync(file, "utf8"));
	providers.providers["openai-compatible"].settings.contextWindow = CONTEXT;
	fs.writeFileSync(file, JSON.stringify(providers, null, 2) + "\n");
	// ACP mode takes its model from CLINE_MODEL only when the provider's model
	// catalogue lists it, else the catalogue's first model (for
	// openai-compatible: gpt-4o, which gets a different tool set: apply_patch
	// instead of editor). settings/models.json, Cline's registry of custom
	// models, adds ours to the openai-compatible catalogue.
	const models = { version: 1, providers: { "openai-compatible": { models: { [MODEL]: { name: "Scripted Coder", contextWindow: CONTEXT, maxTokens: 4096, capabilities: ["streaming", "tools", "reasoning"] } } } } };
	fs.writeFileSync(path.join(SETTINGS, "models.json"), JSON.stringify(models, null, 2) + "\n");
}

const session = await run("new session: reasoning, parallel run_commands and read_files", P1);

// Resume of the first session through ACP.
let conn = acp("resume");
const init = await conn.call("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
let t0 = conn.transcript.length;
const loaded = await conn.call("session/load", { sessionId: session, cwd: WORK, mcpServers: [] });
steps.push({ label: "ACP session/load of the first session", acp: "session/load", sessionId: session, currentModelId: loaded.models?.currentModelId, updates: updateKinds(conn.transcript, t0) });
await acpPrompt(conn, "ACP resume: editor with a diff, a failing edit, a missing file, a failing command", session, P2);
await acpPrompt(conn, "ACP resume: spawn_agent sub-agent", session, P3);
let closed = await conn.close();
steps.push({ label: "ACP connection closed", exit: closed.code });

const second = await run("second session: editor creates a file, automatic compaction", P4);
const third = await run("third session: API error 400", P5, true);
const fourth = await run("fourth session: context overflow, compaction and retry", P6);

// A session created over ACP in plan mode; then the compacted second session
// resumed.
conn = acp("new");
await conn.call("initialize", { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } });
const created = await conn.call("session/new", { cwd: WORK, mcpServers: [] });
const acpSession = created.sessionId;
steps.push({ label: "ACP session/new", acp: "session/new", sessionId: acpSession, currentModelId: created.models?.currentModelId });
await conn.call("session/set_mode", { sessionId: acpSession, modeId: "plan" });
await acpPrompt(conn, "ACP new session, plan mode: an unavailable tool, then a plan", acpSession, P7);
// session/set_mode only changes the mode of a session whose runtime has not
// started: after the first prompt it has no effect, and this turn is still
// recorded (and run) in plan mode.
await conn.call("session/set_mode", { sessionId: acpSession, modeId: "act" });
await acpPrompt(conn, "ACP new session, after session/set_mode act: a plain turn (still plan mode)", acpSession, P8);
t0 = conn.transcript.length;
await conn.call("session/load", { sessionId: second, cwd: WORK, mcpServers: [] });
steps.push({ label: "ACP session/load of the compacted second session", acp: "session/load", sessionId: second, updates: updateKinds(conn.transcript, t0) });
await acpPrompt(conn, "ACP resume of the compacted session: a plain turn", second, P9);
closed = await conn.close();
steps.push({ label: "ACP connection closed", exit: closed.code });

server.close();
if (dump) dump.end();

// Copy what Cline wrote for its sessions: sessions/ (all of it) and the
// session index db/sessions.db (VACUUM INTO folds the write-ahead log in).
// Left out: settings/ (provider settings with the API key), logs/, the other
// databases in db/ (teams.db: agent-team state, empty here) and cache/.
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(path.join(OUT, "db"), { recursive: true });
fs.cpSync(path.join(DATA, "sessions"), path.join(OUT, "sessions"), { recursive: true });
execFileSync("sqlite3", [path.join(DATA, "db", "sessions.db"), `VACUUM INTO '${path.join(OUT, "db", "sessions.db")}'`]);
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
const dbDir = fs.readdirSync(path.join(DATA, "db")).sort();
const unscripted = log.filter((e) => e.unscripted);
fs.writeFileSync(
	path.join(HERE, "..", "expected.json"),
	JSON.stringify({ clineVersion: VERSION, agentInfo: init.agentInfo, root: ROOT, dataDir, dbDir, sessions: { session, second, third, fourth, acpSession }, steps, files, requests: log }, null, 1) + "\n",
);
console.log(`${files.length} files, ${log.length} requests (${unscripted.length} unscripted)`);
for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
