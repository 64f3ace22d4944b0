// Generates real Claude Code session logs (@anthropic-ai/claude-code, exact
// version pinned in package.json) by running the real program offline against
// a scripted local model server that speaks the streaming Anthropic Messages
// API (anthropic-server.mjs).
//
//   npm ci && node generate.mjs
//
// writes ../claude-home/ and ../expected.json with the version pinned here
// (2.1.197). Another version has a package folder of its own beside this one
// (../generate-2.1.332/: a package.json pinning it and a generate.mjs calling
// generate() below with its folder), so each version's output stays:
//
//   cd ../generate-2.1.332 && npm ci && node generate.mjs
//
// writes ../claude-home-2.1.332/ and ../expected-2.1.332.json.
//
// npm skips the package's postinstall, so the platform binary
// node_modules/@anthropic-ai/claude-code-linux-x64/claude of the package
// folder is run directly, with HOME in a neutral temporary folder
// (/tmp/rhizome-claudecode-fixtures, deleted and recreated). What it runs, all in one project:
//
//   1. -p --session-id S "…"        thinking, text and two parallel tool calls
//                                    in one response (split lines, results in
//                                    between), an image tool result, 5-minute
//                                    and 1-hour cache writes
//   2. --resume S "…"               Edit (structured patch) and a Bash output
//                                    too large for the line (tool-results/)
//   3. --resume S "…"               an Agent sub-agent (subagents/agent-*.jsonl
//                                    and its meta.json; from 2.1.332 it runs
//                                    in the background and its result comes
//                                    back as a <task-notification> prompt)
//   4. --resume S --resume-session-at U "…"   a rewind: a new prompt under
//                                    the assistant line that ended turn 2 (a
//                                    real branch; turn 3 is left behind)
//   5. --resume S "/compact"        a manual compaction
//   6. --resume S --name "…" "…"    a custom title, a turn after the compaction
//   7. --resume S "…"               the API answers 400: a <synthetic> error
//   8. --resume S "…"               the API answers 400 "prompt is too long":
//                                    Claude Code's reactive compaction (it
//                                    writes lines again with the same uuids)
//   9. --resume S --fork-session "…" a fork: a new session file whose first
//                                    lines are copies with the same uuids
//
// Output, copied into <out>/projects/ in Claude Code's own layout, and
// <expected> (a JSON file): the Claude Code version that ran, the session
// ids, the steps, and every model request the server answered with the usage
// it reported (the ground truth for the usage and cost tests).
//
// Ids and timestamps come from Claude Code (random uuids, wall clock): a new
// run gives new ones; re-run the Go tests with -update after regenerating.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "./anthropic-server.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = "/tmp/rhizome-claudecode-fixtures";
const HOME = path.join(ROOT, "home");
const WORK = path.join(ROOT, "work", "acme-api");
const SESSION = "5e55a1d0-0c1a-4b1e-9c0d-7a3f2b6e8d41";

// generate runs the Claude Code installed in pkgDir (its package.json pins
// the version) and writes its sessions to out/projects/ and the ground truth
// to expected. The installed version must be the pinned one.
export async function generate({ pkgDir, out, expected }) {
	const pinned = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")).dependencies["@anthropic-ai/claude-code"];
	const VERSION = JSON.parse(fs.readFileSync(path.join(pkgDir, "node_modules", "@anthropic-ai", "claude-code", "package.json"), "utf8")).version;
	if (VERSION !== pinned) throw new Error(`${pkgDir}: @anthropic-ai/claude-code ${VERSION} installed, ${pinned} pinned: run npm ci`);
	const OUT = out;
	const BIN = path.join(pkgDir, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude");
	console.log(`Claude Code ${VERSION} -> ${path.relative(process.cwd(), OUT)}, ${path.relative(process.cwd(), expected)}`);

	fs.rmSync(ROOT, { recursive: true, force: true });
	fs.mkdirSync(HOME, { recursive: true });
	fs.mkdirSync(WORK, { recursive: true });
	const MAIN_GO = 'package main\n\nimport "net/http"\n\nfunc main() {\n\thttp.ListenAndServe(":8080", nil)\n}\n';
	fs.writeFileSync(path.join(WORK, "main.go"), MAIN_GO);
	fs.writeFileSync(path.join(WORK, "logo.png"), Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64"));
	const git = (...a) => execFileSync("git", a, { cwd: WORK, env: { ...process.env, HOME, GIT_AUTHOR_NAME: "Dana", GIT_AUTHOR_EMAIL: "dana@example.com", GIT_COMMITTER_NAME: "Dana", GIT_COMMITTER_EMAIL: "dana@example.com" } });
	git("init", "-q", "-b", "main");
	git("add", ".");
	git("commit", "-q", "-m", "initial");

	const P1 = "Look at main.go: count its lines and show me logo.png.";
	const P2 = "Add a /health handler to main.go, then list the numbers 1 to 1500 to check the output limit.";
	const P3 = "Ask a sub-agent to review the handler.";
	const SUB = "Review the /health handler in main.go for missing error handling.";
	const P5 = "What is left to do?";
	const P6 = "Trigger the API error now.";
	const P7 = "Actually, name the handler /healthz instead.";
	const P8 = "In a fork: would /ready be a better name?";
	const P9 = "Paste the whole log here and explain it.";

	const NEW_MAIN = MAIN_GO.replace("func main() {", 'func main() {\n\thttp.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) })');

	const cache = (m5, h1, read) => ({ cache_creation: { ephemeral_5m_input_tokens: m5, ephemeral_1h_input_tokens: h1 }, cache_read_input_tokens: read });

	let tooLongSent = false;
	function script(prompt, step, request) {
		const has = (s) => prompt.includes(s);
		// /compact: Claude Code appends its summary instructions to the last user
		// message, so this test comes first.
		if (prompt.includes("CRITICAL: Respond with TEXT ONLY") || /create a detailed summary/i.test(prompt))
			return {
				text: "<analysis>The user asked for a line count, a /health handler and a review.</analysis>\n<summary>\n1. main.go has 7 lines; logo.png is a 1x1 pixel.\n2. Added a /health handler.\n3. A sub-agent found that w.Write's error is ignored.\n</summary>",
				usage: { input_tokens: 3, ...cache(0, 0, 21000), output_tokens: 96 },
			};
		if (has(P1))
			return [
				{
					thinking: "The user wants a line count and the image. Run wc and read the file at once.",
					text: "I'll count the lines and open the logo.",
					tools: [
						{ name: "Bash", input: { command: "wc -l main.go", description: "Count lines in main.go" } },
						{ name: "Read", input: { file_path: path.join(WORK, "logo.png") } },
					],
					usage: { input_tokens: 12, ...cache(2048, 14000, 0), output_tokens: 187 },
				},
				{ text: "main.go has 7 lines, and logo.png is a single transparent pixel.", usage: { input_tokens: 9, ...cache(512, 0, 16048), output_tokens: 24 } },
			][step];
		if (has(P2))
			return [
				{ tools: [{ name: "Edit", input: { file_path: path.join(WORK, "main.go"), old_string: "func main() {", new_string: NEW_MAIN.split("\n").slice(4, 6).join("\n") } }], usage: { input_tokens: 6, ...cache(900, 0, 16560), output_tokens: 140 } },
				{ tools: [{ name: "Bash", input: { command: "seq 1 1500", description: "Print 1500 numbers" } }], usage: { input_tokens: 6, ...cache(300, 0, 17460), output_tokens: 52 } },
				{ text: "Added the /health handler; the long listing was saved to a file because it is over the output limit.", usage: { input_tokens: 8, ...cache(2600, 0, 17760), output_tokens: 31 } },
			][step];
		if (has(SUB))
			return [
				{ tools: [{ name: "Bash", input: { command: "grep -n health main.go", description: "Find the handler" } }], usage: { input_tokens: 4, ...cache(5100, 0, 0), output_tokens: 48 } },
				{ text: "The handler ignores the error returned by w.Write; otherwise it is fine.", usage: { input_tokens: 5, ...cache(180, 0, 5100), output_tokens: 29 } },
			][step];
		if (has(P3)) {
			const done = { text: "The sub-agent says the handler ignores w.Write's error; everything else is fine.", usage: { input_tokens: 6, ...cache(350, 0, 20780), output_tokens: 27 } };
			// From 2.1.332 the sub-agent runs in the background: the Agent call's
			// result says it was launched, the turn answers at once, and the
			// sub-agent's result comes later as a <task-notification> (step 2).
			const last = (request.messages || []).at(-1);
			if (step === 1 && JSON.stringify(last && last.content).includes("Async agent launched"))
				return { text: "A sub-agent is reviewing the handler; I'll tell you what it finds.", usage: { input_tokens: 6, ...cache(350, 0, 20780), output_tokens: 18 } };
			return [
				{ tools: [{ name: "Agent", input: { description: "Review the handler", prompt: SUB, subagent_type: "general-purpose" } }], usage: { input_tokens: 7, ...cache(420, 0, 20360), output_tokens: 76 } },
				done,
				{ ...done, usage: { input_tokens: 6, ...cache(600, 0, 21130), output_tokens: 27 } },
			][step];
		}
		if (has(P5)) return { text: "Only handling the w.Write error is left.", usage: { input_tokens: 5, ...cache(1200, 0, 3000), output_tokens: 15 } };
		// The fork's request repeats the failed prompt in the same user message: P8 first.
		if (has(P9)) {
			// Too long the first time: Claude Code compacts and retries.
			if (!tooLongSent) {
				tooLongSent = true;
				return { error: { status: 400, type: "invalid_request_error", message: "prompt is too long: 250000 tokens > 200000 maximum" } };
			}
			return { text: "The log shows three requests and one retry.", usage: { input_tokens: 5, ...cache(900, 0, 2000), output_tokens: 17 } };
		}
		if (has(P8)) return { text: "/ready usually means \"can take traffic\"; /health is the better name here.", usage: { input_tokens: 6, ...cache(800, 0, 4000), output_tokens: 22 } };
		if (has(P6)) return { error: { status: 400, type: "invalid_request_error", message: "messages.1.content.0: unexpected tool_use_id found in tool_result blocks" } };
		if (has(P7)) return { text: "Renamed: the handler is now served at /healthz.", usage: { input_tokens: 7, ...cache(640, 0, 17000), output_tokens: 19 } };
		return undefined;
	}

	const log = [];
	const server = await startServer(script, log);
	const port = server.address().port;
	const env = {
		PATH: process.env.PATH,
		HOME,
		TZ: "UTC",
		ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
		ANTHROPIC_API_KEY: "sk-ant-local-test",
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
		DISABLE_TELEMETRY: "1",
		DISABLE_AUTOUPDATER: "1",
		IS_SANDBOX: "1",
		// Bash output over 2000 characters goes to tool-results/ (default 30000).
		BASH_MAX_OUTPUT_LENGTH: "2000",
	};

	function claude(args) {
		return new Promise((resolve) => {
			const p = spawn(BIN, ["-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions", ...args], { cwd: WORK, env, stdio: ["ignore", "pipe", "pipe"] });
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
		const r = await claude(args);
		if (r.code !== 0 && !expectFail) throw new Error(`${label}: claude exited ${r.code}: ${r.err.slice(-2000)} ${JSON.stringify(r.events.slice(-3)).slice(0, 3000)}`);
		const result = r.events.find((e) => e.type === "result");
		steps.push({
			label,
			args,
			exit: r.code,
			sessionId: result && result.session_id,
			// Claude Code's own account of the run (its cost table, its counting).
			resultCostUSD: result && result.total_cost_usd,
			resultModelUsage: result && result.modelUsage,
			requests: log.slice(from).filter((e) => e.id || e.error).map((e) => e.n),
		});
		console.log(`${label}: exit ${r.code}, session ${result && result.session_id}, ${log.length - from} requests`);
		return result;
	}

	const projectDir = () => path.join(HOME, ".claude", "projects", fs.readdirSync(path.join(HOME, ".claude", "projects"))[0]);
	const sessionLines = (id) => fs.readFileSync(path.join(projectDir(), `${id}.jsonl`), "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));

	await run("first turn: parallel tools, image result", ["--session-id", SESSION, P1]);
	await run("second turn: Edit and a persisted Bash output", ["--resume", SESSION, P2]);
	const p2Final = log.filter((e) => e.id && e.prompt.startsWith(P2.slice(0, 60)) && e.stop_reason === "end_turn").pop();
	await run("sub-agent turn", ["--resume", SESSION, P3]);
	// A rewind: resume at the assistant line that ended the second turn.
	const rewindAt = sessionLines(SESSION).find((l) => l.type === "assistant" && l.message && l.message.id === p2Final.id).uuid;
	await run("rewind to the end of the second turn", ["--resume", SESSION, "--resume-session-at", rewindAt, P7]);
	await run("manual compaction", ["--resume", SESSION, "/compact"]);
	await run("custom title, turn after the compaction", ["--resume", SESSION, "--name", "Health check for acme-api", P5]);
	await run("API error: <synthetic> message", ["--resume", SESSION, P6], true);
	await run("prompt too long: reactive compaction", ["--resume", SESSION, P9]);
	const fork = await run("fork", ["--resume", SESSION, "--fork-session", P8]);
	server.close();

	// Copy what Claude Code wrote, in its own layout.
	fs.rmSync(OUT, { recursive: true, force: true });
	fs.cpSync(path.join(HOME, ".claude", "projects"), path.join(OUT, "projects"), { recursive: true });
	const files = [];
	(function walk(dir) {
		for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
			const p = path.join(dir, e.name);
			if (e.isDirectory()) walk(p);
			else files.push(path.relative(OUT, p));
		}
	})(OUT);
	files.sort();
	const unscripted = log.filter((e) => e.unscripted);
	fs.writeFileSync(
		expected,
		JSON.stringify({ claudeCodeVersion: VERSION, root: ROOT, session: SESSION, forkSession: fork && fork.session_id, rewindAt, steps, files, requests: log.filter((e) => e.model) }, null, 1) + "\n",
	);
	console.log(`${files.length} files, ${log.length} requests (${unscripted.length} unscripted)`);
	for (const u of unscripted) console.log("unscripted:", JSON.stringify(u).slice(0, 300));
}

// Run directly (node generate.mjs): the version pinned in this folder, into
// ../claude-home/ and ../expected.json.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url))
	await generate({ pkgDir: HERE, out: path.resolve(HERE, "..", "claude-home"), expected: path.resolve(HERE, "..", "expected.json") });
