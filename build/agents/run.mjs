// Runs each coding agent that is an MCP client, with the README's set-up
// lines for `rhizome mcp`, against a scripted local model server that calls
// rhizome's search and then get on a URI from the search result it received,
// and checks the tool results the agent sent back to the model.
//
//   npm ci && node run.mjs [agent id ...]      (ids: see agents.mjs)
//
// RHIZOME_BIN: the rhizome binary (default build/bin/rhizome);
// AGENTS_JOBS: agents run at once (default 2); AGENTS_KEEP=1 keeps each
// agent's temporary folder (its HOME, project and the requests the model got).
//
// Per agent: a temporary HOME whose default library (~/.local/share/rhizome/
// library.db, where `rhizome mcp` looks) holds the real pi sample sessions
// (app/samples/*.jsonl); the agent's offline settings and its set-up lines,
// run as typed; one headless run with a prompt. Everything stays on
// 127.0.0.1. Timeouts only end a hung agent; the seconds a run took are
// printed, never checked.

import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { agents } from "./agents.mjs";
import { protocols, canonical } from "./protocols.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..");
const RHIZOME_BIN = path.resolve(ROOT, process.env.RHIZOME_BIN || "build/bin/rhizome");
const SAMPLES = fs.readdirSync(path.join(ROOT, "app", "samples")).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(ROOT, "app", "samples", f));
const JOBS = Number(process.env.AGENTS_JOBS || 2);
const RUN_TIMEOUT_MS = 300000;

const PROMPT = "Look in the Rhizome library for what was decided about the theme system, then read the first hit.";
const QUERY = "theme system";
const URI = /rhizome:(?:knowledge|node|entry|session)\/[^"\\\s]+/g;
/** A tool of rhizome's server, as agents name MCP tools (mcp__rhizome__search, rhizome-search, …). */
const rhizomeTool = (op) => (full) => new RegExp(`rhizome[^a-z]{0,3}${op}$`, "i").test(full || "");
/** The tool search behind which an agent offers MCP tools (Codex, Claude Code, Qwen Code). */
const isToolSearch = (full) => /^(tool_search|ToolSearch)$/.test(full || "");

const pins = JSON.parse(fs.readFileSync(path.join(HERE, "package.json"), "utf8")).dependencies;
const wanted = process.argv.slice(2);
const selected = wanted.length ? agents.filter((a) => wanted.includes(a.id)) : agents;
if (wanted.length && selected.length !== wanted.length) {
	console.error(`agents-test: unknown agent in ${wanted.join(" ")}; known: ${agents.map((a) => a.id).join(" ")}`);
	process.exit(2);
}

function report(o) {
	const label = `${o.agent.name} ${o.version || ""}`.trim();
	if (o.failures.length) {
		console.log(`FAIL ${label}:\n  ${o.failures.join("\n  ")}`);
		if (o.detail) console.log(`  ${o.detail.replaceAll("\n", "\n  ")}`);
	} else console.log(`ok   ${label} (${o.seconds} s): ${o.summary}`);
}

async function runAgent(agent) {
	const version = installedVersion(agent.pkg);
	const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `rhizome-agents-${agent.id}-`));
	const home = path.join(tmp, "home");
	const work = path.join(tmp, "work", "acme-notes");
	const bin = path.join(tmp, "bin");
	for (const d of [home, work, bin]) fs.mkdirSync(d, { recursive: true });
	try {
		if (version !== pins[agent.pkg]) return { agent, version, failures: [`${agent.pkg} ${version || "(missing)"} is installed, package.json pins ${pins[agent.pkg]}: run npm ci in build/agents`] };
		// What a user has on PATH: the agent's commands and rhizome.
		fs.symlinkSync(RHIZOME_BIN, path.join(bin, "rhizome"));
		for (const [name, rel] of Object.entries(agent.bins)) fs.symlinkSync(path.join(HERE, "node_modules", rel), path.join(bin, name));
		fs.writeFileSync(path.join(work, "README.md"), "# acme-notes\n");
		execFileSync("git", ["init", "-q", "-b", "main"], { cwd: work });

		// The library: the real pi sessions, where `rhizome mcp` looks by default.
		const db = path.join(home, ".local", "share", "rhizome", "library.db");
		fs.mkdirSync(path.dirname(db), { recursive: true });
		try {
			execFileSync(RHIZOME_BIN, ["import", "--db", db, ...SAMPLES], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, HOME: home } });
		} catch (e) {
			return { agent, version, failures: [`rhizome import of app/samples failed (${RHIZOME_BIN}): ${String(e.stderr || e.message).trim().slice(-500)}`] };
		}

		const proto = protocols[agent.protocol];
		const { startServer } = await import(pathToFileURL(path.resolve(HERE, proto.server)).href);
		const seen = { turns: 0, offered: [], via: [], search: null, get: null, uri: null, requests: [] };
		const log = [];
		const server = await startServer((prompt, step, body) => model(proto, body, seen), log, { models: ["scripted-coder"] });
		const url = `http://127.0.0.1:${server.address().port}`;
		const ctx = { home, work, url };
		const env = { PATH: `${bin}:${process.env.PATH}`, HOME: home, TZ: "UTC", TERM: "dumb", ...agent.env(ctx) };
		try {
			for (const [file, text] of Object.entries(agent.files(ctx))) {
				fs.mkdirSync(path.dirname(file), { recursive: true });
				fs.writeFileSync(file, typeof text === "string" ? text : JSON.stringify(text, null, 2) + "\n");
			}
			for (const cmd of [...(agent.commands ? agent.commands(ctx) : []), ...agent.setup]) {
				const r = await run(cmd, { cwd: work, env, timeoutMs: 120000 });
				if (r.code !== 0) return { agent, version, failures: [`set-up command \`${cmd.join(" ")}\` exited ${r.code}`], detail: tail(r.err || r.out) };
			}
			const started = Date.now();
			const r = await run(agent.command(PROMPT), { cwd: work, env, timeoutMs: RUN_TIMEOUT_MS });
			// Told, never checked: what the agent's run cost.
			const seconds = Math.round((Date.now() - started) / 1000);
			if (process.env.AGENTS_KEEP) fs.writeFileSync(path.join(tmp, "requests.json"), JSON.stringify(seen.requests, null, 1));
			return { agent, version, seconds, ...check(seen, r) };
		} finally {
			server.close();
		}
	} finally {
		if (process.env.AGENTS_KEEP) console.log(`${agent.name}: kept ${tmp}`);
		else fs.rmSync(tmp, { recursive: true, force: true });
	}
}

/**
 * model is the scripted model: on the agent's turn for PROMPT it calls
 * rhizome's search (first tool_search, where the agent hides MCP tools behind
 * it), then get on the first rhizome: URI of the search result it got back,
 * then answers. Other requests (titles, summaries) get a short text. It
 * records in seen what came back.
 */
function model(proto, body, seen) {
	if (process.env.AGENTS_KEEP) seen.requests.push(body);
	const tools = proto.tools(body);
	if (!tools.length || !proto.texts(body).some((t) => t.includes(PROMPT))) return proto.text("Theme system decisions");
	seen.turns++;
	seen.offered = [...new Set([...seen.offered, ...tools.map((t) => t.full)])];
	const results = proto.results(body);
	// What a tool search (Codex, Claude Code, Qwen Code) listed.
	const listed = results.filter((r) => isToolSearch(r.name)).map((r) => canonical(r.content)).join("\n");
	seen.offered = [...new Set([...seen.offered, ...(listed.match(/[\w.-]*rhizome[_.-]+\w+/gi) || [])])];
	const get = results.findLast((r) => rhizomeTool("get")(r.name));
	const search = results.findLast((r) => rhizomeTool("search")(r.name));
	// A call of rhizome's tool op: directly where the request offers it, else
	// through the agent's proxy for the tools its tool search listed (Qwen
	// Code's tool_call).
	const callRhizome = (op, args) => {
		const direct = tools.find((t) => rhizomeTool(op)(t.full));
		if (direct) return proto.call(direct, args);
		const proxy = tools.find((t) => t.full === "tool_call");
		const name = (listed.match(new RegExp(`[\\w.-]*rhizome[\\w.-]*?${op}\\b`, "i")) || [])[0];
		return proxy && name ? proto.call(proxy, { name, arguments: args }) : null;
	};
	// The calls that came back, in order, as the agent named them.
	seen.via = results.filter((r) => isToolSearch(r.name) || rhizomeTool("search")(r.name) || rhizomeTool("get")(r.name)).map((r) => r.name);
	if (get) {
		seen.get = canonical(get.content);
		return proto.text("The theme system decision is in the library; done.");
	}
	if (search) {
		seen.search = canonical(search.content);
		seen.uri = (seen.search.match(URI) || [])[0] || null;
		const call = seen.uri && callRhizome("get", { uri: seen.uri });
		return call || proto.text(`Cannot read a hit: ${seen.uri ? "no get tool" : "no rhizome: URI"} in what came back.`);
	}
	const call = callRhizome("search", { query: QUERY, limit: 5 });
	if (call) return call;
	const finder = tools.find((t) => isToolSearch(t.full));
	if (finder && !listed) return proto.call(finder, { query: "rhizome search" });
	return proto.text("No Rhizome tool is offered.");
}

/** The checks on what came back to the model; a summary or the failures. */
function check(seen, r) {
	const failures = [];
	const detail = `agent exit ${r.code}${r.killed ? " (killed after the liveness timeout)" : ""}; stderr:\n${tail(r.err)}`;
	if (!seen.turns) failures.push("the agent never sent the prompt to the model with tools");
	else if (!seen.offered.some(rhizomeTool("search"))) failures.push(`rhizome's search tool was never offered to the model; offered: ${seen.offered.join(", ")}`);
	else if (!seen.search) failures.push("no result of rhizome's search came back to the model");
	else {
		const uris = [...new Set(seen.search.match(URI) || [])];
		if (!uris.length) failures.push(`the search result holds no rhizome: URI: ${seen.search.slice(0, 300)}`);
		if (!/theme/i.test(seen.search) || !seen.search.includes("pi-mono")) failures.push(`the search result holds no text of the real sessions (theme, pi-mono): ${seen.search.slice(0, 300)}`);
		if (!seen.uri) {
			// Nothing to get: the failures above say why.
		} else if (!seen.get) failures.push(`no result of rhizome's get of ${seen.uri} came back to the model`);
		else {
			const k = kind(seen.uri);
			if (!seen.get.includes(`"uri":"${seen.uri}"`) || !seen.get.includes(`"kind":"${k}"`) || !/theme/i.test(seen.get))
				failures.push(`the get result is not the ${k} ${seen.uri}: ${seen.get.slice(0, 300)}`);
		}
		if (!failures.length)
			seen.summary = `${seen.via.join(" → ")}: search gave ${uris.length} hits (${uris.slice(0, 2).join(", ")}, …), get ${seen.uri} gave the ${kind(seen.uri)} (${seen.get.length} bytes)`;
	}
	if (r.code !== 0 && !failures.length) failures.push(`the agent exited ${r.code}`);
	return { failures, summary: seen.summary, detail: failures.length ? detail : "" };
}

/** The kind of a rhizome: URI (knowledge, node, entry, session). */
function kind(uri) {
	return uri.split(/[:/]/)[1];
}

function installedVersion(pkg) {
	try {
		return JSON.parse(fs.readFileSync(path.join(HERE, "node_modules", pkg, "package.json"), "utf8")).version;
	} catch {
		return "";
	}
}

/** Runs cmd (found on env.PATH), its stdin closed; resolves {code, out, err, killed}. */
function run(cmd, { cwd, env, timeoutMs }) {
	return new Promise((resolve) => {
		const p = spawn(cmd[0], cmd.slice(1), { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
		let out = "";
		let err = "";
		let killed = false;
		p.stdout.on("data", (d) => (out += d));
		p.stderr.on("data", (d) => (err += d));
		// The agent and what it started (the MCP server), by process group.
		const timer = setTimeout(() => {
			killed = true;
			try {
				process.kill(-p.pid, "SIGKILL");
			} catch {}
		}, timeoutMs);
		p.on("error", (e) => {
			clearTimeout(timer);
			resolve({ code: -1, out, err: String(e), killed });
		});
		p.on("close", (code) => {
			clearTimeout(timer);
			try {
				process.kill(-p.pid, "SIGKILL");
			} catch {}
			resolve({ code, out, err, killed });
		});
	});
}

function tail(s) {
	return String(s || "").trim().split("\n").slice(-15).join("\n").slice(-3000);
}

const outcomes = [];
const queue = [...selected];
await Promise.all(
	Array.from({ length: Math.min(JOBS, queue.length) }, async () => {
		for (let a; (a = queue.shift()); ) {
			const o = await runAgent(a).catch((e) => ({ agent: a, failures: [`the test itself failed: ${e.stack || e}`] }));
			outcomes.push(o);
			report(o);
		}
	}),
);
const failed = outcomes.filter((o) => o.failures.length).length;
console.log(`agents-test: ${outcomes.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
