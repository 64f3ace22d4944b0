// Generates real Codex CLI rollouts (@openai/codex, exact version pinned in
// package.json) by running the real program offline against a scripted local
// model server that speaks the streaming Responses API (responses-server.mjs).
//
//   npm ci && node generate.mjs
//
// What it runs, in one CODEX_HOME under /tmp/rhizome-codex-fixtures (deleted
// and recreated; paths in the output name only that neutral folder):
//
//   1. codex exec -i logo.png "…"      a first turn: reasoning, exec_command,
//                                       an apply_patch custom tool call, an
//                                       image in the prompt
//   2. codex exec resume T "…"         a second turn: a sub-agent
//                                       (spawn_agent, namespace multi_agent_v1,
//                                       then wait_agent); the sub-agent writes
//                                       its own rollout
//   3. codex exec resume T "…"         usage reported above
//                                       model_auto_compact_token_limit: Codex's
//                                       real automatic compaction
//   4. codex exec resume T "…"         a turn after the compaction
//   5. codex exec fork T "…"           a fork into a new thread
//   6. codex app-server                thread/name/set (session_index.jsonl),
//                                       thread/revert of the last turn then a
//                                       new turn (a new history window file),
//                                       thread/archive of the fork
//                                       (archived_sessions/)
//
// Output, copied into ../codex-home/ (the layout under CODEX_HOME):
// sessions/YYYY/MM/DD/rollout-*.jsonl, archived_sessions/*.jsonl,
// session_index.jsonl; and ../expected.json: the thread ids, what each file
// is, and every model request the server answered with the usage it reported
// (the ground truth for the token tests).
//
// Ids and timestamps come from Codex (UUIDv7, wall clock): a new run gives new
// ones; re-run the Go tests with -update after regenerating.

import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./responses-server.mjs";
import { startAppServer } from "./appserver.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const OUT = path.resolve(HERE, "..", "codex-home");
const ROOT = "/tmp/rhizome-codex-fixtures";
const CODEX_HOME = path.join(ROOT, "codex-home");
const HOME = path.join(ROOT, "home");
const WORK = path.join(ROOT, "work", "ledger-svc");
const BIN = path.join(HERE, "node_modules", "@openai", "codex", "bin", "codex.js");
const AUTO_COMPACT_LIMIT = 120000;

fs.rmSync(ROOT, { recursive: true, force: true });
for (const d of [CODEX_HOME, HOME, WORK]) fs.mkdirSync(d, { recursive: true });
fs.writeFileSync(path.join(WORK, "main.py"), "def total(xs):\n    return sum(xs)\n\nprint(total([1, 2, 3]))\n");
fs.writeFileSync(path.join(WORK, "AGENTS.md"), "# Ledger service\n\nRun `python3 main.py` to check the total.\n");
// A 1x1 PNG, sent as an input_image with the first prompt.
fs.writeFileSync(path.join(WORK, "logo.png"), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"));

const PROMPT1 = "Count the lines of main.py, make it print a label, and tell me what the logo shows.";
const PROMPT2 = "Ask a sub-agent to review main.py for edge cases.";
const SUBPROMPT = "Review main.py: does total() handle an empty list?";
const PROMPT3 = "Summarise everything we did so far in great detail.";
const PROMPT4 = "After the compaction: what is left to do?";
const PROMPT5 = "In this fork, try a different label wording.";
const PROMPT6 = "Start that last step again, differently.";

const PATCH = "*** Begin Patch\n*** Update File: main.py\n@@\n-print(total([1, 2, 3]))\n+print(\"total:\", total([1, 2, 3]))\n*** End Patch\n";

/** The agent id the spawn_agent call returned, from the request's input. */
function spawnedAgentID(body) {
	for (const it of body.input || []) {
		if (it.type !== "function_call_output") continue;
		const out = typeof it.output === "string" ? it.output : JSON.stringify(it.output);
		const m = out.match(/"agent_id"\s*:\s*"([^"]+)"/) || out.match(/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/);
		if (m) return m[1];
	}
	return "";
}

function script(prompt, step, body) {
	const has = (s) => prompt.includes(s);
	if (has(PROMPT1))
		return [
			{ reasoning: "Count the lines with wc, then patch the print.", calls: [{ name: "exec_command", arguments: { cmd: "wc -l main.py", yield_time_ms: 1000 } }], usage: { input: 9120, cached: 0, output: 96, reasoning: 40 } },
			{ calls: [{ name: "apply_patch", custom: true, input: PATCH }], usage: { input: 9410, cached: 8960, output: 120 } },
			{ text: "main.py has 4 lines; it now prints `total: 6`. The logo is a single transparent pixel.", usage: { input: 9650, cached: 9344, output: 38 } },
		][step];
	if (has(SUBPROMPT))
		return [
			{ calls: [{ name: "exec_command", arguments: { cmd: "python3 -c 'from main import total; print(total([]))'" } }], usage: { input: 7010, cached: 0, output: 55 } },
			{ text: "total([]) returns 0, which is right for an empty ledger.", usage: { input: 7200, cached: 6912, output: 30 } },
		][step];
	if (has(PROMPT2)) {
		if (step === 0) return { calls: [{ name: "spawn_agent", namespace: "multi_agent_v1", arguments: { message: SUBPROMPT, agent_type: "default" } }], usage: { input: 9900, cached: 9600, output: 64 } };
		if (step === 1) return { calls: [{ name: "wait_agent", namespace: "multi_agent_v1", arguments: { targets: [spawnedAgentID(body)], timeout_ms: 60000 } }], usage: { input: 10100, cached: 9856, output: 40 } };
		return { text: "The sub-agent found that total([]) returns 0; no change needed.", usage: { input: 10400, cached: 10112, output: 26 } };
	}
	if (has(PROMPT3)) return { text: "So far: counted main.py, patched its print, and had a sub-agent review total().", usage: { input: AUTO_COMPACT_LIMIT + 30000, cached: 10240, output: 900 } };
	if (has(PROMPT4)) return { text: "Nothing is left: the label is printed and the empty case is covered.", usage: { input: 4100, cached: 0, output: 22 } };
	if (has(PROMPT5)) return { text: "In the fork I would print `sum:` instead of `total:`.", usage: { input: 4300, cached: 4096, output: 18 } };
	if (has(PROMPT6)) return { text: "Starting over: the last step was the summary; here it is again, shorter.", usage: { input: 4200, cached: 0, output: 20 } };
	// Codex's compaction request: the history plus a summarisation prompt.
	if (/summar/i.test(prompt) || /checkpoint|handoff|compact/i.test(prompt))
		return { text: "Summary for the next window: main.py counts a ledger total and now prints a label; a sub-agent confirmed total([]) is 0.", usage: { input: 20480, cached: 0, output: 140 } };
	return undefined;
}

const log = [];
const server = await startServer(script, log);
const port = server.address().port;
fs.writeFileSync(
	path.join(CODEX_HOME, "config.toml"),
	`model = "gpt-5.5-codex"
model_provider = "local"
approval_policy = "never"
sandbox_mode = "danger-full-access"
model_auto_compact_token_limit = ${AUTO_COMPACT_LIMIT}

[model_providers.local]
name = "Scripted local model"
base_url = "http://127.0.0.1:${port}/v1"
wire_api = "responses"
env_key = "LOCAL_API_KEY"
`,
);
const env = { PATH: process.env.PATH, HOME, CODEX_HOME, LOCAL_API_KEY: "sk-local-test", TZ: "UTC" };

function codex(args) {
	return new Promise((resolve, reject) => {
		const p = spawn(process.execPath, [BIN, ...args], { cwd: WORK, env, stdio: ["ignore", "pipe", "pipe"] });
		let out = "";
		let err = "";
		p.stdout.on("data", (d) => (out += d));
		p.stderr.on("data", (d) => (err += d));
		const timer = setTimeout(() => p.kill("SIGKILL"), 120000);
		p.on("close", (code) => {
			clearTimeout(timer);
			const events = out.split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));
			if (code !== 0) reject(new Error(`codex ${args.join(" ")} exited ${code}: ${err.slice(-2000)}`));
			else resolve({ events, err });
		});
	});
}

const steps = [];
async function exec(label, args) {
	const from = log.length;
	const r = await codex(["exec", "--skip-git-repo-check", "--json", ...args]);
	const started = r.events.find((e) => e.type === "thread.started");
	steps.push({ label, args: args.map((a) => a.replaceAll(ROOT, "$ROOT")), thread: started && started.thread_id, requests: log.slice(from).map((e) => e.n) });
	console.log(`${label}: thread ${started && started.thread_id}, ${log.length - from} model requests`);
	return started && started.thread_id;
}

const T = await exec("first turn", ["-i", path.join(WORK, "logo.png"), "--", PROMPT1]);
await exec("sub-agent turn", ["resume", T, PROMPT2]);
await exec("turn over the compaction limit", ["resume", T, PROMPT3]);
await exec("turn after the compaction", ["resume", T, PROMPT4]);
const F = await exec("fork", ["fork", T, PROMPT5]);

// thread operations codex exec does not offer, through the app server.
const app = startAppServer(BIN, [], { cwd: WORK, env });
await app.request("initialize", { clientInfo: { name: "rhizome-fixtures", version: "1" }, capabilities: null });
app.notify("initialized", {});
await app.request("thread/resume", { threadId: T });
await app.request("thread/name/set", { threadId: T, name: "Ledger total: label and review" });
const turns = await app.request("thread/turns/list", { threadId: T });
// turns/list gives the newest first; turn ids are UUIDv7, so the greatest is the last.
const lastTurn = turns.data.map((t) => t.id).sort().pop();
await app.request("thread/revert", { threadId: T, beforeTurnId: lastTurn });
const mark = app.notes.length;
const from = log.length;
await app.request("turn/start", { threadId: T, input: [{ type: "text", text: PROMPT6, text_elements: [] }] });
await app.waitFor((n) => n.method === "turn/completed", mark);
steps.push({ label: "revert of the last turn, then a new turn (app-server)", thread: T, revertedTurn: lastTurn, requests: log.slice(from).map((e) => e.n) });
await app.request("thread/resume", { threadId: F });
await app.request("thread/archive", { threadId: F });
steps.push({ label: "archive of the fork (app-server)", thread: F });
await app.close();
server.close();
// The app server writes the new history window when it shuts down: give it a moment.
await new Promise((r) => setTimeout(r, 2000));

// Copy what Codex wrote, in its own layout.
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
for (const name of ["sessions", "archived_sessions", "session_index.jsonl"]) {
	const src = path.join(CODEX_HOME, name);
	if (fs.existsSync(src)) fs.cpSync(src, path.join(OUT, name), { recursive: true, filter: (p) => !p.endsWith(".lock") });
}
const files = [];
(function walk(dir) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, e.name);
		if (e.isDirectory()) walk(p);
		else if (e.name.endsWith(".jsonl")) files.push(path.relative(OUT, p));
	}
})(OUT);
files.sort();
const unscripted = log.filter((e) => e.unscripted);
fs.writeFileSync(
	path.join(HERE, "..", "expected.json"),
	JSON.stringify({ codexVersion: "0.169.0", root: ROOT, autoCompactTokenLimit: AUTO_COMPACT_LIMIT, mainThread: T, forkThread: F, steps, files, requests: log }, null, 1) + "\n",
);
console.log(`${files.length} files, ${log.length} requests (${unscripted.length} unscripted)`);
for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
