// A scripted local model server speaking the Anthropic Messages API
// (POST /v1/messages, streaming server-sent events, as documented at
// https://docs.anthropic.com/en/api/messages-streaming), for driving the real
// Claude Code binary offline.
//
// Each request is answered from a script: the request's "prompt" is the text
// of the last user message that is not only tool results or reminders, and
// the step is the number of assistant messages after it. script(prompt, step,
// request) returns a reply { thinking?, text?, tools?: [{name, input}], usage?,
// error?: {status, type, message} } or undefined (then the server answers with
// a short text and records the request as unscripted).
import http from "node:http";
import { createHash } from "node:crypto";

/** Deterministic id: prefix + base62 of sha256(seed). */
export function stableID(prefix, seed, n = 24) {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	const b = createHash("sha256").update(seed).digest();
	let s = "";
	for (let i = 0; i < n; i++) s += alphabet[b[i % b.length] % 62];
	return prefix + s;
}

/** The text blocks of a message's content, as strings. */
export function texts(content) {
	if (typeof content === "string") return [content];
	if (!Array.isArray(content)) return [];
	return content.filter((b) => b && b.type === "text").map((b) => b.text);
}

/** Finds the prompt of a request and the step within it. */
export function promptAndStep(body) {
	const msgs = body.messages || [];
	for (let i = msgs.length - 1; i >= 0; i--) {
		const m = msgs[i];
		if (m.role !== "user") continue;
		const real = texts(m.content).filter((t) => !t.startsWith("<system-reminder>") && t.trim() !== "");
		if (real.length === 0) continue;
		const step = msgs.slice(i + 1).filter((x) => x.role === "assistant").length;
		return { prompt: real.join("\n"), step };
	}
	return { prompt: "", step: 0 };
}

export function startServer(script, log) {
	let n = 0;
	const server = http.createServer((req, res) => {
		let body = "";
		req.on("data", (c) => (body += c));
		req.on("end", () => {
			n++;
			let parsed = null;
			try {
				parsed = body ? JSON.parse(body) : null;
			} catch {}
			if (req.method !== "POST" || !req.url.startsWith("/v1/messages") || !parsed) {
				log.push({ n, method: req.method, url: req.url, answered: 404 });
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not here" } }));
				return;
			}
			const { prompt, step } = promptAndStep(parsed);
			let reply = script(prompt, step, parsed);
			const entry = { n, url: req.url, model: parsed.model, stream: !!parsed.stream, prompt: prompt.slice(0, 120), step, messages: (parsed.messages || []).length };
			if (!reply) {
				entry.unscripted = true;
				reply = { text: "(unscripted request)" };
			}
			if (reply.error) {
				entry.error = reply.error;
				log.push(entry);
				res.writeHead(reply.error.status, { "content-type": "application/json", "request-id": stableID("req_", `err:${n}`) });
				res.end(JSON.stringify({ type: "error", error: { type: reply.error.type, message: reply.error.message } }));
				return;
			}
			const id = stableID("msg_", `${prompt}:${step}:${n}`);
			const requestID = stableID("req_", `${prompt}:${step}:${n}`);
			const usage = {
				input_tokens: 3,
				cache_creation_input_tokens: 0,
				cache_read_input_tokens: 0,
				cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
				output_tokens: 20,
				...(reply.usage || {}),
			};
			usage.cache_creation_input_tokens = usage.cache_creation.ephemeral_5m_input_tokens + usage.cache_creation.ephemeral_1h_input_tokens;
			const blocks = [];
			if (reply.thinking) blocks.push({ type: "thinking", thinking: reply.thinking, signature: stableID("sig", id + "t", 64) });
			if (reply.text) blocks.push({ type: "text", text: reply.text });
			for (const [k, t] of (reply.tools || []).entries()) blocks.push({ type: "tool_use", id: stableID("toolu_", `${id}:${k}`), name: t.name, input: t.input });
			const stop = (reply.tools || []).length ? "tool_use" : "end_turn";
			entry.id = id;
			entry.requestId = requestID;
			entry.usage = usage;
			entry.stop_reason = stop;
			entry.blocks = blocks.map((b) => (b.type === "tool_use" ? { type: b.type, id: b.id, name: b.name } : { type: b.type }));
			log.push(entry);
			if (!parsed.stream) {
				res.writeHead(200, { "content-type": "application/json", "request-id": requestID });
				res.end(JSON.stringify({ id, type: "message", role: "assistant", model: parsed.model, content: blocks, stop_reason: stop, stop_sequence: null, usage }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", "request-id": requestID });
			const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
			// message_start carries the input side of the usage and a first
			// output count, as the real API does; message_delta the final one.
			ev("message_start", { message: { id, type: "message", role: "assistant", model: parsed.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
			ev("ping", {});
			blocks.forEach((b, index) => {
				if (b.type === "thinking") {
					ev("content_block_start", { index, content_block: { type: "thinking", thinking: "", signature: "" } });
					for (const part of chunks(b.thinking)) ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking: part } });
					ev("content_block_delta", { index, delta: { type: "signature_delta", signature: b.signature } });
				} else if (b.type === "text") {
					ev("content_block_start", { index, content_block: { type: "text", text: "" } });
					for (const part of chunks(b.text)) ev("content_block_delta", { index, delta: { type: "text_delta", text: part } });
				} else {
					ev("content_block_start", { index, content_block: { type: "tool_use", id: b.id, name: b.name, input: {} } });
					for (const part of chunks(JSON.stringify(b.input))) ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: part } });
				}
				ev("content_block_stop", { index });
			});
			ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { input_tokens: usage.input_tokens, cache_creation_input_tokens: usage.cache_creation_input_tokens, cache_read_input_tokens: usage.cache_read_input_tokens, output_tokens: usage.output_tokens } });
			ev("message_stop", {});
			res.end();
		});
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Splits s into pieces of up to 40 characters, as a stream would. */
function chunks(s) {
	const out = [];
	for (let i = 0; i < s.length; i += 40) out.push(s.slice(i, i + 40));
	return out.length ? out : [""];
}
