// Generates version-3 pi session files with pi's own SessionManager
// (@mariozechner/pi-coding-agent, exact version pinned in package.json), to be
// used as fixtures for Rhizome's boundary detection.
//
//   npm ci && node generate.mjs
//
// Output (deterministic, byte-identical on every run):
//   sessions/*.jsonl   the session files, under the names pi gave them
//   expected.json      per file: header, entry ids/lines by name, counts by
//                      type, and the boundaries a correct detector must find
//
// Determinism: before pi is loaded, this script replaces the clock (Date and
// Date.now), crypto.randomUUID (entry ids are its first 8 characters) and
// crypto.getRandomValues (uuid v7 session ids) with seeded stand-ins. pi's
// code is used unchanged. Files are written by pi under a fixed directory
// (AGENT_DIR below) so that `parentSession` in fork headers is stable, and
// then copied into ./sessions/.

import { createHash } from "node:crypto";
import nodeCrypto from "node:crypto";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT_DIR = join(HERE, "sessions");
// Where pi writes the files. It becomes part of `parentSession` in fork headers.
const AGENT_DIR = "/tmp/rhizome-pi-v3-fixtures/agent";

// ---------------------------------------------------------------------------
// Deterministic randomness and clock (must be installed before pi is imported)
// ---------------------------------------------------------------------------

let rngCounter = 0;
function randomBytes(n) {
	const out = new Uint8Array(n);
	let filled = 0;
	while (filled < n) {
		const block = createHash("sha256").update(`rhizome-pi-v3-fixtures:${rngCounter++}`).digest();
		const take = Math.min(block.length, n - filled);
		out.set(block.subarray(0, take), filled);
		filled += take;
	}
	return out;
}
function fakeRandomUUID() {
	const b = randomBytes(16);
	b[6] = (b[6] & 0x0f) | 0x40; // version 4
	b[8] = (b[8] & 0x3f) | 0x80; // variant
	const h = Buffer.from(b).toString("hex");
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/** Deterministic base62 string (Anthropic-style tool call and response ids). */
function base62(n) {
	return Array.from(randomBytes(n), (b) => BASE62[b % 62]).join("");
}
/** Deterministic integer in [lo, hi]. */
function pick(lo, hi) {
	const b = randomBytes(4);
	return lo + (((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]) >>> 0) % (hi - lo + 1);
}

// pi's session-manager does `import { randomUUID } from "crypto"`: patch the
// builtin and sync its ESM named exports.
nodeCrypto.randomUUID = fakeRandomUUID;
syncBuiltinESMExports();
// uuid (v7 session ids) uses globalThis.crypto.getRandomValues.
globalThis.crypto.getRandomValues = (arr) => {
	const bytes = randomBytes(arr.byteLength);
	new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength).set(bytes);
	return arr;
};

const RealDate = Date;
let clockMs = 0;
class FakeDate extends RealDate {
	constructor(...args) {
		if (args.length === 0) super(clockMs);
		else super(...args);
	}
	static now() {
		return clockMs;
	}
}
globalThis.Date = FakeDate;
const setClock = (iso) => {
	clockMs = RealDate.parse(iso);
};
const tick = (ms) => {
	clockMs += ms;
};
const sec = (s) => s * 1000;
const min = (m) => m * 60 * 1000;

// ---------------------------------------------------------------------------
// pi (loaded only now, with the stand-ins in place)
// ---------------------------------------------------------------------------

const { SessionManager } = await import("@mariozechner/pi-coding-agent");
const { getModel, calculateCost } = await import("@mariozechner/pi-ai");
const piVersion = JSON.parse(
	readFileSync(join(HERE, "node_modules/@mariozechner/pi-coding-agent/package.json"), "utf8"),
).version;

/** pi's getDefaultSessionDir() naming (not exported from the package index). */
function sessionDirFor(cwd) {
	return join(AGENT_DIR, "sessions", `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`);
}

// ---------------------------------------------------------------------------
// A small recorder around a SessionManager: names entries and records the
// boundaries each scenario step is meant to produce.
// ---------------------------------------------------------------------------

class Recorder {
	constructor(role, description) {
		this.role = role;
		this.description = description;
		this.names = new Map(); // name -> id
		this.expected = []; // boundaries, by entry name
		this.notBoundaries = []; // entries that must NOT start a segment, with why
		this.model = null;
		this.sm = null;
		this.ctx = 4000; // running context size, for usage numbers
	}
	name(n, id) {
		if (this.names.has(n)) throw new Error(`duplicate name ${n}`);
		this.names.set(n, id);
		return id;
	}
	id(n) {
		if (n === null) return null;
		const id = this.names.get(n);
		if (!id) throw new Error(`unknown entry name ${n}`);
		return id;
	}
	setModel(provider, modelId) {
		this.model = getModel(provider, modelId);
		if (!this.model) throw new Error(`unknown model ${provider}/${modelId}`);
	}
	modelChange(n, provider, modelId) {
		tick(sec(pick(1, 4)));
		this.setModel(provider, modelId);
		return this.name(n, this.sm.appendModelChange(provider, modelId));
	}
	thinking(n, level) {
		tick(sec(pick(1, 3)));
		return this.name(n, this.sm.appendThinkingLevelChange(level));
	}
	user(n, text, { think = sec(pick(8, 40)) } = {}) {
		tick(think);
		this.ctx += Math.ceil(text.length / 4);
		return this.name(n, this.sm.appendMessage({ role: "user", content: text, timestamp: Date.now() }));
	}
	usage(outTokens) {
		const input = pick(3, 40);
		const cacheRead = this.ctx;
		const cacheWrite = pick(200, 1800);
		this.ctx += cacheWrite + outTokens;
		const u = {
			input,
			output: outTokens,
			cacheRead,
			cacheWrite,
			totalTokens: input + outTokens + cacheRead + cacheWrite,
			cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
		};
		calculateCost(this.model, u);
		return u;
	}
	/** Assistant message; `call` = {tool, args} makes it a toolUse turn. */
	assistant(n, { thinking, text, call } = {}) {
		const started = Date.now() + sec(pick(1, 3));
		const content = [];
		if (thinking) {
			content.push({
				type: "thinking",
				thinking,
				thinkingSignature: Buffer.from(randomBytes(48)).toString("base64"),
			});
		}
		if (text) content.push({ type: "text", text });
		let toolCallId;
		if (call) {
			toolCallId = `toolu_01${base62(22)}`;
			content.push({ type: "toolCall", id: toolCallId, name: call.tool, arguments: call.args });
		}
		const outTokens = Math.ceil(((thinking ?? "") + (text ?? "") + JSON.stringify(call?.args ?? "")).length / 3.5);
		clockMs = started;
		const message = {
			role: "assistant",
			content,
			api: this.model.api,
			provider: this.model.provider,
			model: this.model.id,
			responseId: `msg_01${base62(22)}`,
			usage: this.usage(outTokens),
			stopReason: call ? "toolUse" : "stop",
			timestamp: started,
		};
		tick(sec(pick(3, 20)));
		const id = this.name(n, this.sm.appendMessage(message));
		return { id, toolCallId, toolName: call?.tool };
	}
	toolResult(n, a, text, { isError = false, details } = {}) {
		tick(pick(150, 4000));
		this.ctx += Math.ceil(text.length / 4);
		const message = {
			role: "toolResult",
			toolCallId: a.toolCallId,
			toolName: a.toolName,
			content: [{ type: "text", text }],
			isError,
			timestamp: Date.now(),
		};
		if (details !== undefined) message.details = details;
		return this.name(n, this.sm.appendMessage(message));
	}
	/** assistant toolUse + its toolResult */
	turn(an, rn, asst, result, opts) {
		const a = this.assistant(an, asst);
		this.toolResult(rn, a, result, opts);
		return a;
	}
	reply(n, text, thinking) {
		return this.assistant(n, { text, thinking }).id;
	}
	label(n, targetName, label) {
		tick(sec(pick(2, 6)));
		return this.name(n, this.sm.appendLabelChange(this.id(targetName), label));
	}
	sessionInfo(n, title) {
		tick(sec(pick(2, 6)));
		return this.name(n, this.sm.appendSessionInfo(title));
	}
	custom(n, customType, data) {
		tick(sec(pick(1, 3)));
		return this.name(n, this.sm.appendCustomEntry(customType, data));
	}
	customMessage(n, customType, content, display, details) {
		tick(sec(pick(1, 3)));
		return this.name(n, this.sm.appendCustomMessageEntry(customType, content, display, details));
	}
	expect(type, entry, fields = {}) {
		this.expected.push({ type, entry, ...fields });
	}
	notBoundary(entry, why) {
		this.notBoundaries.push({ entry, why });
	}
}

const files = [];

// ---------------------------------------------------------------------------
// File 1 "tree": tree jump without summary, branch with summary, labels,
// session_info, and /tree with a label but no summary.
// ---------------------------------------------------------------------------

const ACME = "/home/dana/src/acme-api";

const SERVER_TS = `import express from "express";
import { login } from "./auth";

export const app = express();
app.use(express.json());

app.post("/api/login", async (req, res) => {
  const { email, password } = req.body;
  const token = await login(email, password);
  if (!token) return res.status(401).json({ error: "invalid credentials" });
  res.json({ token });
});
`;

function fileTree() {
	setClock("2026-01-12T09:00:00.000Z");
	const r = new Recorder(
		"tree",
		"Rate limiting for /api/login: a label, a /tree jump without summary, a /tree branch with summary (+label), and a /tree jump with a label but no summary",
	);
	r.sm = SessionManager.create(ACME, sessionDirFor(ACME));
	r.modelChange("model", "anthropic", "claude-sonnet-4-5");
	r.thinking("thinking", "medium");

	r.user("u1", "Add rate limiting to POST /api/login in src/server.ts: at most 5 attempts per minute per IP.");
	const a1 = r.assistant("a1", {
		thinking: "I should look at how the server is set up before adding a limiter.",
		text: "Let me look at the server setup first.",
		call: { tool: "read", args: { path: "src/server.ts" } },
	});
	r.toolResult("r1", a1, SERVER_TS);
	r.turn(
		"a2",
		"r2",
		{
			text: "I'll add a small in-memory fixed-window limiter keyed by IP.",
			call: {
				tool: "edit",
				args: {
					path: "src/server.ts",
					edits: [
						{
							oldText: 'app.post("/api/login", async (req, res) => {',
							newText:
								'const attempts = new Map<string, { count: number; reset: number }>();\n\nfunction limited(ip: string): boolean {\n  const now = Date.now();\n  const a = attempts.get(ip);\n  if (!a || a.reset < now) {\n    attempts.set(ip, { count: 1, reset: now + 60_000 });\n    return false;\n  }\n  a.count++;\n  return a.count > 5;\n}\n\napp.post("/api/login", async (req, res) => {\n  if (limited(req.ip ?? "unknown")) return res.status(429).json({ error: "too many attempts" });',
						},
					],
				},
			},
		},
		"Successfully replaced 1 block(s) in src/server.ts.",
		{
			details: {
				diff: "     ...\n+ 7 const attempts = new Map<string, { count: number; reset: number }>();\n+ 8 \n+ 9 function limited(ip: string): boolean {\n     ...\n+21   if (limited(req.ip ?? \"unknown\")) return res.status(429).json({ error: \"too many attempts\" });\n     ...",
				firstChangedLine: 7,
			},
		},
	);
	r.turn(
		"a3",
		"r3",
		{ text: "Now the tests.", call: { tool: "bash", args: { command: "npm test -- --run src/server.test.ts", timeout: 120 } } },
		" FAIL  src/server.test.ts > POST /api/login > returns 401 for a bad password\nAssertionError: expected 429 to be 401\n\n Test Files  1 failed (1)\n      Tests  1 failed | 13 passed (14)\n\n\nCommand exited with code 1",
		{ isError: true },
	);
	r.reply(
		"a4",
		"The limiter's map is module state shared by every test in the file, so by the sixth login request the suite gets 429 instead of 401. The limiter itself works; the tests need a reset hook.",
	);
	r.sessionInfo("name", "login rate limiting");
	r.notBoundary("name", "session_info appended in place (parentId = previous entry)");
	r.label("label1", "a2", "first-attempt");
	r.notBoundary("label1", "label appended in place (parentId = previous entry); it names a2");
	r.user("u2", "Reset the limiter between tests.");
	r.notBoundary("u2", "its parentId is label1, the previous entry: continuing through a label is not a jump");
	r.turn(
		"a5",
		"r5",
		{
			text: "I'll export a reset function and call it in beforeEach.",
			call: {
				tool: "edit",
				args: {
					path: "src/server.test.ts",
					edits: [{ oldText: 'describe("POST /api/login", () => {', newText: 'describe("POST /api/login", () => {\n  beforeEach(() => resetLoginLimiter());' }],
				},
			},
		},
		"Successfully replaced 1 block(s) in src/server.test.ts.",
		{ details: { diff: "     ...\n+12   beforeEach(() => resetLoginLimiter());\n     ...", firstChangedLine: 12 } },
	);
	r.reply("a6", "Done: the limiter is reset before each test.");

	// /tree: select the first user message u1, no summary. pi's navigateTree
	// moves the leaf to u1's parent (the message goes back to the editor), via
	// branch(); the edited prompt is then appended there.
	tick(sec(35));
	r.sm.branch(r.id("thinking"));
	r.user("u3", "Add rate limiting to POST /api/login using the express-rate-limit middleware (5 per minute per IP).");
	r.expect("tree_jump", "u3", { previous: "a6", target: "thinking" });
	r.turn(
		"a7",
		"r7",
		{ call: { tool: "bash", args: { command: "npm install express-rate-limit@7" } } },
		"\nadded 1 package, and audited 212 packages in 2s\n\nfound 0 vulnerabilities",
	);
	r.turn(
		"a8",
		"r8",
		{
			text: "I'll put the limiter in its own middleware module.",
			call: {
				tool: "write",
				args: {
					path: "src/middleware/rateLimit.ts",
					content:
						'import rateLimit from "express-rate-limit";\n\nexport const loginLimiter = rateLimit({\n  windowMs: 60_000,\n  limit: 5,\n  standardHeaders: "draft-7",\n  legacyHeaders: false,\n});\n',
				},
			},
		},
		"Successfully wrote 164 bytes to src/middleware/rateLimit.ts",
	);
	r.turn(
		"a9",
		"r9",
		{
			call: {
				tool: "edit",
				args: {
					path: "src/server.ts",
					edits: [{ oldText: 'app.post("/api/login", async (req, res) => {', newText: 'app.post("/api/login", loginLimiter, async (req, res) => {' }],
				},
			},
		},
		"Successfully replaced 1 block(s) in src/server.ts.",
		{ details: { diff: "     ...\n- 7 app.post(\"/api/login\", async (req, res) => {\n+ 7 app.post(\"/api/login\", loginLimiter, async (req, res) => {\n     ...", firstChangedLine: 7 } },
	);
	r.turn(
		"a10",
		"r10",
		{ call: { tool: "bash", args: { command: "npm test -- --run", timeout: 180 } } },
		" Test Files  3 passed (3)\n      Tests  14 passed (14)\n   Duration  1.84s",
	);
	r.reply("a11", "All 14 tests pass with the express-rate-limit middleware on /api/login.");

	// /tree: select assistant message a4 with "summarize" and a label. pi's
	// navigateTree: newLeafId = a4 (not a user message), branchWithSummary(a4,
	// ...), then appendLabelChange(summaryId, label).
	tick(min(2));
	r.name(
		"branchSummary",
		r.sm.branchWithSummary(
			r.id("a4"),
			"The user explored an alternative approach using the express-rate-limit middleware.\n\n## Goal\nRate-limit POST /api/login to 5 attempts per minute per IP.\n\n## Progress\n- Installed express-rate-limit@7\n- Added src/middleware/rateLimit.ts (loginLimiter) and wired it into src/server.ts\n- All 14 tests passed\n\n## Key Decisions\n- Middleware instead of a hand-written limiter",
			{ readFiles: [], modifiedFiles: ["package.json", "src/middleware/rateLimit.ts", "src/server.ts"] },
			false,
		),
	);
	r.expect("branch", "branchSummary", { previous: "a11", target: "a4" });
	tick(sec(1));
	r.name("label2", r.sm.appendLabelChange(r.id("branchSummary"), "manual-limiter"));
	r.notBoundary("label2", "label on the branch_summary, appended in place (parentId = branchSummary)");
	r.user("u4", "Keep the hand-written limiter, but make the window configurable via RATE_LIMIT_WINDOW_MS.");
	r.notBoundary("u4", "parentId is label2, the previous entry");
	r.turn(
		"a12",
		"r12",
		{
			call: {
				tool: "edit",
				args: {
					path: "src/server.ts",
					edits: [{ oldText: "reset: now + 60_000", newText: "reset: now + Number(process.env.RATE_LIMIT_WINDOW_MS ?? 60_000)" }],
				},
			},
		},
		"Successfully replaced 1 block(s) in src/server.ts.",
		{ details: { diff: "     ...\n-13     attempts.set(ip, { count: 1, reset: now + 60_000 });\n+13     attempts.set(ip, { count: 1, reset: now + Number(process.env.RATE_LIMIT_WINDOW_MS ?? 60_000) });\n     ...", firstChangedLine: 13 } },
	);
	r.turn(
		"a13",
		"r13",
		{ call: { tool: "bash", args: { command: "RATE_LIMIT_WINDOW_MS=1000 npm test -- --run" } } },
		" Test Files  3 passed (3)\n      Tests  14 passed (14)\n   Duration  1.91s",
	);
	r.reply("a14", "The window now comes from RATE_LIMIT_WINDOW_MS (default 60 000 ms); tests pass.");

	// /tree: select assistant message a11 with a label and no summary. pi's
	// navigateTree: branch(a11), then appendLabelChange(a11, label). The label
	// is the first entry written on the new branch.
	tick(min(3));
	r.sm.branch(r.id("a11"));
	tick(sec(1));
	r.name("label3", r.sm.appendLabelChange(r.id("a11"), "middleware-done"));
	r.expect("tree_jump", "label3", {
		previous: "a14",
		target: "a11",
		note: "the jump's first entry is a label (pi's /tree with a label and no summary writes the label right after branch()); a detector that skips labels would instead see u5, whose parentId is label3, and must then resolve the target through label3's parentId (a11)",
	});
	r.user("u5", "Document the middleware in README.md.");
	r.turn(
		"a15",
		"r15",
		{
			call: {
				tool: "edit",
				args: {
					path: "README.md",
					edits: [{ oldText: "## Configuration", newText: "## Rate limiting\n\nPOST /api/login allows 5 attempts per minute per IP (express-rate-limit, see src/middleware/rateLimit.ts).\n\n## Configuration" }],
				},
			},
		},
		"Successfully replaced 1 block(s) in README.md.",
		{ details: { diff: "     ...\n+24 ## Rate limiting\n     ...", firstChangedLine: 24 } },
	);
	r.reply("a16", "README.md now has a Rate limiting section.");
	r.file = r.sm.getSessionFile();
	files.push(r);
	return r;
}

// ---------------------------------------------------------------------------
// File 2 "longrun": resume gaps (one below the threshold), a reopen with
// SessionManager.open, model/thinking changes, a compaction that coincides with
// a gap, custom entries, and two hand-offs.
// ---------------------------------------------------------------------------

const LEDGER = "/home/dana/src/ledger-svc";

function fileLongRun() {
	setClock("2026-01-13T13:00:00.000Z");
	const r = new Recorder(
		"longrun",
		"pgx migration: a 9.5-minute gap (no boundary), a 47-minute resume after reopening the file, model/thinking changes, a /compact after a 21-minute gap (compaction + resume on one entry), custom entries, a handoff custom entry and a 'handoff to' user message",
	);
	r.sm = SessionManager.create(LEDGER, sessionDirFor(LEDGER));
	r.modelChange("model", "anthropic", "claude-opus-4-5");
	r.thinking("thinking", "high");
	r.user("u1", "Migrate internal/store from database/sql + lib/pq to pgx v5. Keep the Store interface unchanged.");
	const a1 = r.assistant("a1", {
		thinking: "Start from the Store implementation to see which lib/pq features are used.",
		call: { tool: "read", args: { path: "internal/store/store.go" } },
	});
	r.toolResult(
		"r1",
		a1,
		'package store\n\nimport (\n\t"context"\n\t"database/sql"\n\n\t"github.com/lib/pq"\n)\n\ntype Store struct{ db *sql.DB }\n\nfunc (s *Store) Accounts(ctx context.Context, ids []int64) ([]Account, error) {\n\trows, err := s.db.QueryContext(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, pq.Array(ids))\n\t...\n}\n',
	);
	r.turn(
		"a2",
		"r2",
		{ call: { tool: "bash", args: { command: "grep -rn 'lib/pq' --include=*.go ." } } },
		"./internal/store/store.go:7:\t\"github.com/lib/pq\"\n./cmd/ledger/main.go:9:\t_ \"github.com/lib/pq\"",
	);
	r.turn(
		"a3",
		"r3",
		{
			text: "Switching Store to a *pgxpool.Pool.",
			call: {
				tool: "edit",
				args: {
					path: "internal/store/store.go",
					edits: [
						{ oldText: 'type Store struct{ db *sql.DB }', newText: 'type Store struct{ db *pgxpool.Pool }' },
						{ oldText: '"database/sql"\n', newText: '"github.com/jackc/pgx/v5/pgxpool"\n' },
					],
				},
			},
		},
		"Successfully replaced 2 block(s) in internal/store/store.go.",
		{ details: { diff: "     ...\n- 5 \t\"database/sql\"\n+ 5 \t\"github.com/jackc/pgx/v5/pgxpool\"\n     ...\n-10 type Store struct{ db *sql.DB }\n+10 type Store struct{ db *pgxpool.Pool }\n     ...", firstChangedLine: 5 } },
	);
	r.turn(
		"a4",
		"r4",
		{ call: { tool: "bash", args: { command: "go build ./..." } } },
		"# example.com/ledger/internal/store\ninternal/store/store.go:13:68: undefined: pq.Array\ninternal/store/store.go:13:22: s.db.QueryContext undefined (type *pgxpool.Pool has no field or method QueryContext)\n\n\nCommand exited with code 1",
		{ isError: true },
	);
	r.turn(
		"a5",
		"r5",
		{
			text: "pgx encodes []int64 natively, so pq.Array goes away, and QueryContext becomes Query.",
			call: {
				tool: "edit",
				args: {
					path: "internal/store/store.go",
					edits: [{ oldText: "s.db.QueryContext(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, pq.Array(ids))", newText: "s.db.Query(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, ids)" }],
				},
			},
		},
		"Successfully replaced 1 block(s) in internal/store/store.go.",
		{ details: { diff: "     ...\n-13 \trows, err := s.db.QueryContext(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, pq.Array(ids))\n+13 \trows, err := s.db.Query(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, ids)\n     ...", firstChangedLine: 13 } },
	);
	r.turn(
		"a6",
		"r6",
		{ call: { tool: "bash", args: { command: "go build ./... && go test ./internal/store/..." } } },
		"ok  \texample.com/ledger/internal/store\t0.412s",
	);
	r.reply("a7", "internal/store now uses pgxpool; it builds and its unit tests pass.");

	// 9 minutes 30 seconds of silence: below the 10-minute threshold.
	r.user("u2", "Also drop lib/pq from go.mod.", { think: sec(9 * 60 + 30) });
	r.notBoundary("u2", "gap of 9.5 minutes after a7, below the 10-minute resume threshold");
	r.turn(
		"a8",
		"r8",
		{ call: { tool: "bash", args: { command: "sed -i '/lib\\/pq/d' cmd/ledger/main.go && go mod tidy && git diff --stat go.mod go.sum" } } },
		" go.mod | 2 +-\n go.sum | 4 ++--\n 2 files changed, 3 insertions(+), 3 deletions(-)",
	);
	r.reply("a9", "lib/pq is gone from go.mod and go.sum.");
	const firstFile = r.sm.getSessionFile();

	// The user quits pi and comes back 47 minutes later with `pi --continue`:
	// pi reopens the file with SessionManager.open (leaf = last entry).
	tick(min(47));
	r.sm = SessionManager.open(firstFile, sessionDirFor(LEDGER));
	r.user("u3", "Back. Run the integration tests against the docker postgres.", { think: sec(0) });
	r.expect("resume", "u3", { previous: "a9", metadata: { gapMinutes: null } });
	r.turn(
		"a10",
		"r10",
		{ call: { tool: "bash", args: { command: "docker compose up -d postgres && go test -tags=integration ./...", timeout: 600 } } },
		"[+] Running 1/1\n ✔ Container ledger-postgres-1  Started\nok  \texample.com/ledger/internal/store\t3.902s\nok  \texample.com/ledger/internal/api\t2.117s",
	);
	r.reply("a11", "Integration tests pass against postgres 16 in docker.");

	// /model and shift+tab: neither is a boundary.
	r.modelChange("model2", "anthropic", "claude-sonnet-4-5");
	r.notBoundary("model2", "model_change is not a boundary");
	r.thinking("thinking2", "low");
	r.notBoundary("thinking2", "thinking_level_change is not a boundary");
	r.user("u4", "Write a short migration note in docs/pgx.md.");
	r.turn(
		"a12",
		"r12",
		{
			call: {
				tool: "write",
				args: {
					path: "docs/pgx.md",
					content: "# pgx v5\n\ninternal/store uses a pgxpool.Pool. Arrays are passed as Go slices (no pq.Array). Build tag `integration` runs the database tests.\n",
				},
			},
		},
		"Successfully wrote 141 bytes to docs/pgx.md",
	);
	r.reply("a13", "Added docs/pgx.md.");

	// 21 minutes later the user runs /compact: the compaction entry is both a
	// compaction boundary and a resume boundary.
	tick(min(21));
	r.name(
		"compaction",
		r.sm.appendCompaction(
			"## Goal\nMigrate internal/store from database/sql + lib/pq to pgx v5 without changing the Store interface.\n\n## Progress\n### Done\n- [x] Store uses *pgxpool.Pool; pq.Array replaced by plain slices\n- [x] lib/pq removed from go.mod/go.sum\n- [x] Integration tests pass (docker postgres)\n- [x] docs/pgx.md written\n\n## Next Steps\n1. Pool metrics",
			r.id("u4"),
			61234,
			{
				readFiles: ["internal/store/store.go"],
				modifiedFiles: ["internal/store/store.go", "cmd/ledger/main.go", "go.mod", "go.sum", "docs/pgx.md"],
			},
			false,
		),
	);
	r.expect("compaction", "compaction", { metadata: { tokensBefore: 61234, firstKeptEntry: "u4" } });
	r.expect("resume", "compaction", { previous: "a13", metadata: { gapMinutes: null } });
	r.ctx = 9000;
	r.user("u5", "Now expose pool stats (acquired, idle, total) on /debug/vars.");
	r.turn(
		"a14",
		"r14",
		{ call: { tool: "read", args: { path: "internal/metrics/metrics.go", offset: 1, limit: 40 } } },
		'package metrics\n\nimport "expvar"\n\nvar Requests = expvar.NewInt("requests")\n',
	);
	r.turn(
		"a15",
		"r15",
		{
			call: {
				tool: "edit",
				args: {
					path: "internal/metrics/metrics.go",
					edits: [{ oldText: 'var Requests = expvar.NewInt("requests")', newText: 'var Requests = expvar.NewInt("requests")\n\nfunc PublishPool(p *pgxpool.Pool) {\n\texpvar.Publish("pgxpool", expvar.Func(func() any {\n\t\ts := p.Stat()\n\t\treturn map[string]int32{"acquired": s.AcquiredConns(), "idle": s.IdleConns(), "total": s.TotalConns()}\n\t}))\n}' }],
				},
			},
		},
		"Successfully replaced 1 block(s) in internal/metrics/metrics.go.",
		{ details: { diff: "     ...\n+ 7 func PublishPool(p *pgxpool.Pool) {\n     ...", firstChangedLine: 7 } },
	);
	r.reply("a16", "/debug/vars now has a pgxpool object with acquired, idle and total connections.");
	// An extension's own state and an extension message: neither is a boundary.
	r.custom("todoState", "todo", { items: [{ text: "pool metrics", done: true }, { text: "review", done: false }] });
	r.notBoundary("todoState", "custom entry whose customType is not handoff");
	r.customMessage("gitReminder", "git-status", "Uncommitted changes: 6 files (internal/store/store.go, internal/metrics/metrics.go, cmd/ledger/main.go, go.mod, go.sum, docs/pgx.md)", true, { dirty: 6 });
	r.notBoundary("gitReminder", "custom_message entry is not a boundary");
	// A hand-off recorded by an extension.
	r.custom("handoff", "handoff", {
		from: "implementer",
		to: "reviewer",
		reason: "pgx migration ready for review",
		files: ["internal/store/store.go", "internal/metrics/metrics.go"],
	});
	r.expect("handoff", "handoff", { previous: "gitReminder", metadata: { reason: "pgx migration ready for review" } });
	r.user("u6", "Review the pgx migration diff for connection leaks.");
	r.turn(
		"a17",
		"r17",
		{ call: { tool: "bash", args: { command: "git diff main -- internal/store internal/metrics" } } },
		"diff --git a/internal/store/store.go b/internal/store/store.go\n@@ -10,7 +10,7 @@\n-type Store struct{ db *sql.DB }\n+type Store struct{ db *pgxpool.Pool }\n@@ -13,7 +13,7 @@\n-\trows, err := s.db.QueryContext(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, pq.Array(ids))\n+\trows, err := s.db.Query(ctx, `SELECT id, name FROM accounts WHERE id = ANY($1)`, ids)\n",
	);
	r.reply("a18", "No leaks found: every Query result is closed with defer rows.Close(), and the pool is closed in main on shutdown.");
	// A hand-off said in a user message.
	r.user("u7", "handoff to docs-writer: update CHANGELOG.md with the pgx migration.");
	r.expect("handoff", "u7", { previous: "a18", metadata: { reason: "handoff to docs-writer: update CHANGELOG.md with the pgx migration." } });
	r.turn(
		"a19",
		"r19",
		{
			call: {
				tool: "edit",
				args: {
					path: "CHANGELOG.md",
					edits: [{ oldText: "## Unreleased\n", newText: "## Unreleased\n\n- Storage: moved from lib/pq to pgx v5 (pgxpool); pool stats on /debug/vars.\n" }],
				},
			},
		},
		"Successfully replaced 1 block(s) in CHANGELOG.md.",
		{ details: { diff: "     ...\n+ 5 - Storage: moved from lib/pq to pgx v5 (pgxpool); pool stats on /debug/vars.\n     ...", firstChangedLine: 5 } },
	);
	r.reply("a20", "CHANGELOG.md updated under Unreleased.");
	r.file = r.sm.getSessionFile();
	files.push(r);
	return r;
}

// ---------------------------------------------------------------------------
// File 3 "root": navigation to the root (session created without an initial
// model_change, as an SDK user may): branchWithSummary(null) writes
// parentId null and fromId "root"; resetLeaf() makes a second root entry.
// ---------------------------------------------------------------------------

function fileRoot() {
	setClock("2026-01-14T16:30:00.000Z");
	const r = new Recorder(
		"root",
		"Navigation to the root: a branch_summary with parentId null and fromId \"root\", then a jump back to the root without summary (a third root entry)",
	);
	r.sm = SessionManager.create(ACME, sessionDirFor(ACME));
	r.setModel("anthropic", "claude-haiku-4-5");
	r.user("u1", "What does scripts/release.sh do?");
	r.turn("a1", "r1", { call: { tool: "read", args: { path: "scripts/release.sh" } } }, '#!/usr/bin/env bash\nset -euo pipefail\nnpm version "$1"\ngit push --follow-tags\nnpm publish\n');
	r.reply("a2", "It bumps the version (npm version <arg>), pushes the commit and tag, then publishes to npm.");
	// /tree: select u1 (the root) with summary: newLeafId = u1.parentId = null.
	tick(sec(50));
	r.name(
		"branchSummary",
		r.sm.branchWithSummary(null, "The user asked what scripts/release.sh does: it runs npm version, pushes with tags and publishes.", { readFiles: ["scripts/release.sh"], modifiedFiles: [] }, false),
	);
	r.expect("branch", "branchSummary", { previous: "a2", target: null });
	r.user("u2", "What does scripts/deploy.sh do?");
	r.turn("a3", "r3", { call: { tool: "read", args: { path: "scripts/deploy.sh" } } }, "#!/usr/bin/env bash\nset -euo pipefail\nfly deploy --strategy rolling\n");
	r.reply("a4", "It deploys to Fly.io with a rolling strategy.");
	// /tree: select u1 again, no summary: resetLeaf(); the next entry is a root.
	tick(sec(40));
	r.sm.resetLeaf();
	r.user("u3", "List the npm scripts in package.json.");
	r.expect("tree_jump", "u3", { previous: "a4", target: null });
	r.turn("a5", "r5", { call: { tool: "read", args: { path: "package.json" } } }, '{\n  "name": "acme-api",\n  "scripts": { "dev": "tsx watch src/index.ts", "test": "vitest", "build": "tsc -p ." }\n}\n');
	r.reply("a6", "dev (tsx watch), test (vitest) and build (tsc).");
	r.file = r.sm.getSessionFile();
	files.push(r);
	return r;
}

// ---------------------------------------------------------------------------
// Forks of file 1, done the way pi's runtime does them:
//   sourceManager = SessionManager.open(currentFile, sessionDir)
//   forkedPath = sourceManager.createBranchedSession(targetLeafId)
//   SessionManager.open(forkedPath, sessionDir) ... continue there
// ---------------------------------------------------------------------------

function forkOf(parent, role, description, targetLeafName, continueFn) {
	const dir = sessionDirFor(ACME);
	const source = SessionManager.open(parent.file, dir);
	const forkedPath = source.createBranchedSession(parent.id(targetLeafName));
	const r = new Recorder(role, description);
	r.parent = parent;
	r.forkTarget = targetLeafName;
	// Copied entries keep their ids: name them as in the parent.
	for (const [n, id] of parent.names) r.names.set(n, id);
	r.sm = SessionManager.open(forkedPath, dir);
	// Label entries that createBranchedSession recreated (new ids).
	let k = 0;
	for (const e of r.sm.getEntries()) {
		if (!parent.sm.getEntry(e.id)) r.name(`labelCopy${++k}`, e.id);
	}
	r.setModel("anthropic", "claude-sonnet-4-5");
	continueFn(r);
	r.file = r.sm.getSessionFile();
	files.push(r);
	return r;
}

// ---------------------------------------------------------------------------

rmSync("/tmp/rhizome-pi-v3-fixtures", { recursive: true, force: true });

const tree = fileTree();

// /fork: the user picks u5 in the fork selector; pi forks "before" it, at
// u5.parentId = label3 (a label). The label is filtered out of the copied path
// and recreated (new id) at the end.
setClock("2026-01-12T09:13:00.000Z");
forkOf(
	tree,
	"fork",
	"/fork of the tree file before u5 (createBranchedSession(label3)); continues in the child",
	"label3",
	(r) => {
		r.user("c1", "Document the middleware in docs/rate-limiting.md instead of the README.", { think: sec(20) });
		r.turn(
			"c2",
			"c3",
			{
				call: {
					tool: "write",
					args: {
						path: "docs/rate-limiting.md",
						content: "# Rate limiting\n\nPOST /api/login: 5 attempts per minute per IP, via express-rate-limit (src/middleware/rateLimit.ts).\n",
					},
				},
			},
			"Successfully wrote 112 bytes to docs/rate-limiting.md",
		);
		r.reply("c4", "Wrote docs/rate-limiting.md.");
	},
);

// /clone: fork "at" the current leaf a16. The path runs through label3, which
// is filtered out: u5 keeps parentId = label3's id, which is not in the child.
setClock("2026-01-12T09:16:00.000Z");
forkOf(
	tree,
	"clone",
	"/clone of the tree file at its leaf a16 (createBranchedSession(a16)); u5's parentId dangles in the child",
	"a16",
	(r) => {
		r.notBoundary(
			"u5",
			"its parentId is label3's id, which createBranchedSession did not copy (labels are filtered out of the path and recreated with new ids at the end): the parent is not in this file, so there is no known entry to jump to; the copied path a11 -> label3 -> u5 is continuous in the parent",
		);
		r.user("d1", "Add a test that the 6th login attempt within a minute gets 429.", { think: sec(15) });
		r.turn(
			"d2",
			"d3",
			{
				call: {
					tool: "edit",
					args: {
						path: "src/server.test.ts",
						edits: [{ oldText: "});\n", newText: '  it("returns 429 on the 6th attempt", async () => {\n    for (let i = 0; i < 5; i++) await post("/api/login", bad);\n    expect((await post("/api/login", bad)).status).toBe(429);\n  });\n});\n' }],
					},
				},
			},
			"Successfully replaced 1 block(s) in src/server.test.ts.",
			{ details: { diff: "     ...\n+31   it(\"returns 429 on the 6th attempt\", async () => {\n     ...", firstChangedLine: 31 } },
		);
		r.reply("d4", "Added the 429 test.");
	},
);

// Later sessions (generated after the forks so that the clock, and with it
// uuid v7 session ids, only moves forward).
fileLongRun();
fileRoot();

// ---------------------------------------------------------------------------
// Copy the files and write expected.json
// ---------------------------------------------------------------------------

mkdirSync(OUT_DIR, { recursive: true });
for (const f of readdirSync(OUT_DIR)) if (f.endsWith(".jsonl")) rmSync(join(OUT_DIR, f));

const expected = { generator: "generate.mjs", piCodingAgentVersion: piVersion, agentDir: AGENT_DIR, files: [] };
for (const r of files) {
	const name = basename(r.file);
	copyFileSync(r.file, join(OUT_DIR, name));
	const lines = readFileSync(r.file, "utf8").split("\n").filter((l) => l !== "");
	const objs = lines.map((l) => JSON.parse(l));
	const header = objs[0];
	const lineOf = new Map(objs.map((o, i) => [o.id, i + 1]));
	const byId = new Map(objs.map((o) => [o.id, o]));
	const counts = {};
	for (const o of objs.slice(1)) {
		const k = o.type === "message" ? `message/${o.message.role}` : o.type;
		counts[k] = (counts[k] ?? 0) + 1;
	}
	const nameOf = new Map([...r.names].map(([n, id]) => [id, n]));
	const entries = objs.slice(1).map((o, i) => {
		const e = { line: i + 2, id: o.id, type: o.type, parentId: o.parentId, timestamp: o.timestamp };
		if (nameOf.has(o.id)) e.name = nameOf.get(o.id);
		if (o.type === "message") e.role = o.message.role;
		return e;
	});
	const ref = (n) => (n === null ? { id: null, line: null } : { name: n, id: r.id(n), line: lineOf.get(r.id(n)) ?? null });
	const boundaries = r.expected.map((b) => {
		const at = ref(b.entry);
		const out = { type: b.type, entryId: at.id, line: at.line, entryName: b.entry, timestamp: byId.get(at.id).timestamp };
		if (b.previous !== undefined) {
			const p = ref(b.previous);
			out.previousEntryId = p.id;
			out.previousLine = p.line;
			out.previousName = b.previous;
		}
		if (b.target !== undefined) {
			const t = ref(b.target);
			out.targetEntryId = t.id;
			out.targetName = b.target;
		}
		if (b.metadata) {
			out.metadata = { ...b.metadata };
			if ("gapMinutes" in out.metadata) {
				const prev = byId.get(out.previousEntryId);
				out.metadata.gapMinutes = (RealDate.parse(out.timestamp) - RealDate.parse(prev.timestamp)) / 60000;
			}
			if (out.metadata.firstKeptEntry) {
				out.metadata.firstKeptEntryId = r.id(out.metadata.firstKeptEntry);
				delete out.metadata.firstKeptEntry;
			}
		}
		if (b.note) out.note = b.note;
		return out;
	});
	boundaries.sort((a, b) => a.line - b.line);
	const rec = {
		role: r.role,
		file: `sessions/${name}`,
		description: r.description,
		sessionId: header.id,
		header,
		lineCount: lines.length,
		entryCount: objs.length - 1,
		countsByType: counts,
		boundaries,
		notBoundaries: r.notBoundaries.map((n) => ({ entryName: n.entry, entryId: r.id(n.entry), line: lineOf.get(r.id(n.entry)), why: n.why })),
		entries,
	};
	if (r.parent) {
		rec.parentFile = `sessions/${basename(r.parent.file)}`;
		rec.parentSessionId = r.parent.sm.getSessionId();
		rec.forkTarget = { name: r.forkTarget, id: r.parent.id(r.forkTarget) };
		const ids = new Set(objs.slice(1).map((o) => o.id));
		rec.copiedEntryIds = objs.slice(1).filter((o) => r.parent.sm.getEntry(o.id)).map((o) => o.id);
		rec.recreatedLabels = entries.filter((e) => e.name?.startsWith("labelCopy")).map((e) => {
			const o = byId.get(e.id);
			return { id: o.id, line: e.line, parentId: o.parentId, targetId: o.targetId, label: o.label, timestamp: o.timestamp };
		});
		rec.danglingParents = entries.filter((e) => e.parentId !== null && !ids.has(e.parentId)).map((e) => ({ id: e.id, line: e.line, parentId: e.parentId }));
	}
	expected.files.push(rec);
}
writeFileSync(join(HERE, "expected.json"), `${JSON.stringify(expected, null, "\t")}\n`);

for (const f of expected.files) {
	console.log(`${f.role.padEnd(8)} ${f.file}  entries=${f.entryCount}  boundaries=${f.boundaries.map((b) => `${b.type}@${b.line}`).join(",") || "none"}`);
}
