// A minimal JSON-RPC client for `codex app-server` over stdio (one JSON
// object per line), enough to drive thread operations that `codex exec`
// does not offer (name, revert, archive).
import { spawn } from "node:child_process";

export function startAppServer(bin, args, opts) {
	const p = spawn(process.execPath, [bin, "app-server", ...args], { ...opts, stdio: ["pipe", "pipe", "pipe"] });
	let buf = "";
	let next = 1;
	const waiting = new Map();
	const notes = [];
	const noteWaiters = [];
	let stderr = "";
	p.stderr.on("data", (d) => (stderr += d));
	p.stdout.on("data", (d) => {
		buf += d;
		let i;
		while ((i = buf.indexOf("\n")) >= 0) {
			const line = buf.slice(0, i);
			buf = buf.slice(i + 1);
			if (!line.trim()) continue;
			const msg = JSON.parse(line);
			if (msg.id !== undefined && waiting.has(msg.id)) {
				const { resolve, reject } = waiting.get(msg.id);
				waiting.delete(msg.id);
				if (msg.error) reject(new Error(`${JSON.stringify(msg.error)}`));
				else resolve(msg.result);
			} else if (msg.method) {
				if (msg.id !== undefined) {
					// A server request (approvals): decline politely.
					p.stdin.write(JSON.stringify({ id: msg.id, result: { decision: "approved" } }) + "\n");
				}
				notes.push(msg);
				for (const w of noteWaiters.splice(0)) w();
			}
		}
	});
	const request = (method, params) =>
		new Promise((resolve, reject) => {
			const id = next++;
			waiting.set(id, { resolve, reject });
			p.stdin.write(JSON.stringify({ id, method, params }) + "\n");
		});
	const notify = (method, params) => p.stdin.write(JSON.stringify({ method, params }) + "\n");
	/** Resolves when a notification matching pred has arrived (at or after index from). */
	const waitFor = async (pred, from = 0, timeoutMs = 60000) => {
		const start = Date.now();
		for (;;) {
			const found = notes.slice(from).find(pred);
			if (found) return found;
			if (Date.now() - start > timeoutMs) throw new Error("timeout waiting for notification; stderr: " + stderr.slice(-2000));
			await new Promise((r) => {
				noteWaiters.push(r);
				setTimeout(r, 200);
			});
		}
	};
	const close = () =>
		new Promise((resolve) => {
			p.on("close", resolve);
			p.stdin.end();
			setTimeout(() => p.kill("SIGTERM"), 3000);
		});
	return { request, notify, waitFor, notes, close, stderr: () => stderr };
}
