// Generates real GitHub Copilot CLI sessions (@github/copilot, exact version
// pinned in package.json) by running the real program offline against a
// scripted local model server that speaks the streaming OpenAI Chat
// Completions API (the OpenCode generator's chat-server.mjs), through Copilot CLI's own "bring your
// own key" provider settings: COPILOT_PROVIDER_BASE_URL with
// COPILOT_OFFLINE=true needs no GitHub sign-in and makes no other network
// call.
//
//   npm ci && node generate.mjs
//
// The platform binary node_modules/@github/copilot-linux-x64/copilot is run
// directly (Linux x64), with HOME in a neutral temporary folder
// (/tmp/rhizome-copilot-fixtures, deleted and recreated). On its first start
// the binary unpacks its bundled package into ~/.cache/copilot/pkg/ (about
// 240 MB, under the temporary HOME). What it runs, all in one git project:
//
//   1. -p "…" --session-id S       a new session with a given id:
//                                    reasoning, text and two parallel tool
//                                    calls (bash, view) in one response
//   2. --resume S -p "…"            a view of a missing file (a tool error),
//                                    edit, create, a long bash output that
//                                    takes the context over the compaction
//                                    threshold: Copilot CLI's automatic
//                                    (background) compaction, applied before
//                                    the last step
//   3. --resume S -p "…"            a task tool call: an explore sub-agent
//                                    (its events sit in the same file, tagged
//                                    with the task call's id) that runs grep
//   4. --resume S -p "/compact"     a manual compaction (no model turn)
//   5. --continue -p "…"            the most recent session again: a turn
//                                    after the compaction
//   6. --resume S -p "…"            the API answers 400: session.error, and
//                                    Copilot CLI exits 1
//   7. --name N --attachment F -p "…"  a second session with a name and an
//                                    attached image (a session.binary_asset)
//
// The model limits come from COPILOT_PROVIDER_MAX_PROMPT_TOKENS (20000, small
// so that run 2 crosses the compaction threshold) and
// COPILOT_PROVIDER_MAX_OUTPUT_TOKENS. Copilot CLI counts the context from the
// usage the server reports and from its own estimate, so the usage numbers in
// the script below are chosen to cross the threshold only there.
//
// Output, copied into ../copilot-home/ in Copilot CLI's own layout under
// ~/.copilot: session-state/<id>/ (events.jsonl, workspace.yaml and the rest
// of each session's folder) and session-store.db (copied with VACUUM INTO);
// and ../expected.json: the steps, the session ids, and every model request
// the server answered with the usage it reported.
//
// Ids and timestamps come from Copilot CLI (random UUIDs, wall clock), except
// the first session's id, given with --session-id: a new run gives new ones;
// re-run the Go tests with -update after regenerating.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer, contentText } from "../../../opencode/testdata/generate/chat-server.mjs"; // shared with the OpenCode generator

const HERE = path.dirname(fileURLToPath(import.meta.url));
const VERSION = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8")).dependencies["@github/copilot"];
const OUT = path.resolve(HERE, "..", "copilot-home");
const ROOT = "/tmp/rhizome-copilot-fixtures";
const HOME = path.join(ROOT, "home");
const COPILOT = path.join(HOME, ".copilot");
const WORK = path.join(ROOT, "work", "ledger-cli");
const BIN = path.join(HERE, "node_modules", "@github", "copilot-linux-x64", "copilot");
const MODEL = "scripted-coder";
const SESSION = "c0b1d2e3-4f56-4789-8abc-def012345678";
const MAX_PROMPT = 20000;

fs.rmSync(ROOT, { recursive: true, force: true });
for (const d of [HOME, WORK]) fs.mkdirSync(d, { recursive: true });
const LEDGER_PY = "def total(entries):\n    return sum(e[\"amount\"] for e in entries)\n\n\nif __name__ == \"__main__\":\n    print(total([{\"amount\": 3}, {\"amount\": 4}]))\n";
fs.writeFileSync(path.join(WORK, "ledger.py"), LEDGER_PY);
fs.writeFileSync(path.join(WORK, "README.md"), "# ledger-cli\n\nRun `python3 ledger.py` to print the total.\n");
// A 1x1 PNG, attached to a prompt.
fs.writeFileSync(path.join(WORK, "logo.png"), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"));
const gitEnv = { ...process.env, HOME, GIT_AUTHOR_NAME: "Dana", GIT_AUTHOR_EMAIL: "dana@example.com", GIT_COMMITTER_NAME: "Dana", GIT_COMMITTER_EMAIL: "dana@example.com", GIT_AUTHOR_DATE: "2026-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2026-01-01T00:00:00Z" };
const git = (...a) => execFileSync("git", a, { cwd: WORK, env: gitEnv });
git("init", "-q", "-b", "main");
git("add", ".");
git("commit", "-q", "-m", "initial");

const P1 = "How many lines does ledger.py have, and what does it print?";
const P2 = "Make total() skip entries without an amount, and add a CHANGELOG.md.";
const P3 = "Ask a sub-agent to review ledger.py for edge cases.";
const SUB = "Review ledger.py: what happens with an empty list or a missing amount?";
const P4 = "/compact";
const P5 = "What is left to do?";
const P6 = "Trigger the API error now.";
const P7 = "Describe the attached logo.";

const p = (f) => path.join(WORK, f);
const isSubagent = (body) => (body.messages || []).some((m) => m.role === "user" && contentText(m.content).includes(SUB));

// After a compaction the history starts with one user message that lists
// the earlier prompts and the summary.
const SUMMARIZED = "Some of the conversation history has been summarized";

function script(prompt, step, body) {
	const has = (s) => prompt.includes(s);
	if (prompt.startsWith(SUMMARIZED)) {
		// The automatic compaction in the middle of the second run: what is
		// left of that run is its last step.
		const last = [...prompt.matchAll(/<user_message>\n([\s\S]*?)\n<\/user_message>/g)].pop()?.[1] ?? "";
		if (last.includes(P2)) return { text: "total() now skips entries without an amount, and CHANGELOG.md records it.", usage: { prompt: 10900, cached: 0, completion: 24 } };
		return undefined;
	}
	if (isSubagent(body))
		return [
			{ text: "Checking how total() reads the entries.", tools: [{ name: "grep", arguments: { pattern: "amount", paths: WORK, output_mode: "content" } }], usage: { prompt: 7200, cached: 0, completion: 40 } },
			{ text: "total([]) returns 0, which is fine; an entry without \"amount\" is skipped since the last change.", usage: { prompt: 7600, cached: 7200, completion: 30 } },
		][step];
	if (has(P1))
		return [
			{
				reasoning: "The user wants the line count and the output. Count the lines and view the file at once.",
				text: "I'll count the lines and look at the file.",
				tools: [
					{ name: "bash", arguments: { command: "wc -l ledger.py", description: "Count lines in ledger.py" } },
					{ name: "view", arguments: { path: p("ledger.py") } },
				],
				usage: { prompt: 12100, cached: 0, completion: 96, reasoning: 24 },
			},
			{ text: "ledger.py has 6 lines and prints 7, the total of the two sample entries.", usage: { prompt: 12500, cached: 12100, completion: 22 } },
		][step];
	if (has(P2))
		return [
			{ tools: [{ name: "view", arguments: { path: p("ledger_test.py") } }], usage: { prompt: 12900, cached: 12500, completion: 30 } },
			{ text: "There are no tests yet; editing total() directly.", tools: [{ name: "edit", arguments: { path: p("ledger.py"), old_str: '    return sum(e["amount"] for e in entries)\n', new_str: '    return sum(e["amount"] for e in entries if "amount" in e)\n' } }], usage: { prompt: 13300, cached: 12900, completion: 70 } },
			{ tools: [{ name: "create", arguments: { path: p("CHANGELOG.md"), file_text: "# Changelog\n\n- total() skips entries without an amount.\n" } }], usage: { prompt: 13700, cached: 13300, completion: 50 } },
			{ tools: [{ name: "bash", arguments: { command: "python3 ledger.py && seq 1 3000", description: "Run ledger.py and print a long listing" } }], usage: { prompt: 14100, cached: 13700, completion: 40 } },
			// The listing takes the context over Copilot CLI's compaction
			// threshold: it starts a background compaction with this step;
			// holding the answer back lets the compaction finish first.
			{ tools: [{ name: "bash", arguments: { command: "git status --short", description: "Show changed files" } }], usage: { prompt: 16900, cached: 14100, completion: 30 }, delayMs: 2000 },
			{ text: "total() now skips entries without an amount, and CHANGELOG.md records it.", usage: { prompt: 16900, cached: 14100, completion: 24 } },
		][step];
	if (has(P3))
		return [
			{ tools: [{ name: "task", arguments: { name: "ledger-review", description: "Review ledger.py", prompt: SUB, agent_type: "explore", mode: "sync" } }], usage: { prompt: 11300, cached: 10900, completion: 60 } },
			{ text: "The sub-agent found no remaining edge cases: empty lists give 0 and missing amounts are skipped.", usage: { prompt: 11800, cached: 11300, completion: 26 } },
		][step];
	if (has("Please create a detailed summary of the conversation so far"))
		return { text: "<overview>Made total() skip entries without an amount, added CHANGELOG.md, and had a sub-agent review ledger.py.</overview>", usage: { prompt: 9000, cached: 0, completion: 120 } };
	if (has(P5)) return { text: "Nothing is left: total() handles empty lists and missing amounts.", usage: { prompt: 10900, cached: 0, completion: 18 } };
	if (has(P6)) return { error: { status: 400, message: "Invalid 'messages[2].tool_calls[0].id': string too long.", type: "invalid_request_error", code: "invalid_value" } };
	if (has(P7)) return { text: "The logo is a single transparent pixel.", usage: { prompt: 11000, cached: 0, completion: 12 } };
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
	// Bring your own key: no GitHub sign-in, no Copilot model routing.
	COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}/v1`,
	COPILOT_PROVIDER_TYPE: "openai",
	COPILOT_PROVIDER_API_KEY: "sk-local-test",
	COPILOT_MODEL: MODEL,
	COPILOT_PROVIDER_MAX_PROMPT_TOKENS: String(MAX_PROMPT),
	COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: "8192",
	// No GitHub authentication, telemetry, web tools, GitHub MCP server or
	// auto-update.
	COPILOT_OFFLINE: "true",
	COPILOT_AUTO_UPDATE: "false",
};

function copilot(args) {
	return new Promise((resolve) => {
		const child = spawn(BIN, ["--allow-all-tools", "--output-format", "json", "--no-auto-update", ...args], { cwd: WORK, env, stdio: ["ignore", "pipe", "pipe"] });
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
	const r = await copilot(args);
	if (process.env.KEEP_LOGS) fs.writeFileSync(path.join(ROOT, `run-${steps.length + 1}.log`), r.err + "\n" + r.events.map((e) => JSON.stringify(e)).join("\n"));
	const result = r.events.find((e) => e.type === "result");
	const sessionId = result?.sessionId;
	const errors = r.events.filter((e) => e.type === "session.error");
	if ((r.code !== 0 || errors.length) && !expectFail) throw new Error(`${label}: copilot exited ${r.code}: ${r.err.slice(-3000)} ${JSON.stringify(r.events.slice(-3)).slice(0, 3000)}`);
	steps.push({ label, args, exit: r.code, sessionId, resultUsage: result?.usage, errors: errors.map((e) => e.data), requests: log.slice(from).filter((e) => e.id || e.error).map((e) => e.n) });
	console.log(`${label}: exit ${r.code}, session ${sessionId}, ${log.length - from} requests${errors.length ? `, ${errors.length} error events` : ""}`);
	return sessionId;
}

await run("new session: reasoning, parallel bash and view", ["--session-id", SESSION, "-p", P1]);
await run("resume: a tool error, edit, create, a long bash output", ["--resume", SESSION, "-p", P2]);
await run("task tool: a sub-agent", ["--resume", SESSION, "-p", P3]);
await run("manual compaction", ["--resume", SESSION, "-p", P4]);
await run("a turn after the compaction", ["--continue", "-p", P5]);
await run("API error 400", ["--resume", SESSION, "-p", P6], true);
await run("second session: a name and an attached image", ["--name", "Logo check", "--attachment", p("logo.png"), "-p", P7]);
server.close();
if (dump) dump.end();

// Copy what Copilot CLI wrote under ~/.copilot: the session folders and the
// session store (VACUUM INTO folds its write-ahead log in). Left out: logs/,
// config.json, settings, lock files, and each session folder's session.db (a
// workflow store: 190 KB of schema with no rows here).
fs.rmSync(OUT, { recursive: true, force: true });
fs.mkdirSync(OUT, { recursive: true });
fs.cpSync(path.join(COPILOT, "session-state"), path.join(OUT, "session-state"), { recursive: true, filter: (src) => !/\.lock$|\.session-operation-locks|session\.db(-wal|-shm)?$/.test(src) });
// Needs the sqlite3 command (Debian: apt-get install sqlite3).
execFileSync("sqlite3", [path.join(COPILOT, "session-store.db"), `VACUUM INTO '${path.join(OUT, "session-store.db")}'`]);
const files = [];
(function walk(dir) {
	for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
		const f = path.join(dir, e.name);
		if (e.isDirectory()) walk(f);
		else files.push(path.relative(OUT, f));
	}
})(OUT);
files.sort();
const copilotDir = fs.readdirSync(COPILOT).sort();
const unscripted = log.filter((e) => e.unscripted);
fs.writeFileSync(
	path.join(HERE, "..", "expected.json"),
	JSON.stringify({ copilotVersion: VERSION, root: ROOT, copilotDir, session: SESSION, steps, files, requests: log.filter((e) => e.model || e.answered) }, null, 1) + "\n",
);
console.log(`${files.length} files, ${log.length} requests (${unscripted.length} unscripted)`);
for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
