// A scripted local model server speaking the OpenAI Chat Completions API
// (POST /v1/chat/completions, streamed as server-sent events with
// tool_calls deltas and a final usage chunk, or as one JSON body when the
// request does not ask for a stream), for driving the real Qwen Code offline
// through OPENAI_BASE_URL.
//
// Each request is answered from a script: the request's "prompt" is the text
// of the last user message, and the step is the number of assistant messages
// after it. script(prompt, step, request) returns a reply { reasoning?, text?,
// calls?: [{name, args}], usage?: {prompt, completion, cached, reasoning},
// error?: {status, type, code, message} } or undefined (then the server
// answers with a short text and records the request as unscripted).
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

/** The text of a message's content, as one string, without the
 * <system-reminder> blocks Qwen Code puts before a prompt. */
export function text(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	let t = content.filter((b) => b && b.type === "text").map((b) => b.text);
	if (t.length > 1) t = t.filter((x) => !x.trimStart().startsWith("<system-reminder>"));
	return t.join("\n");
}

/** Finds the prompt of a request and the step within it. */
export function promptAndStep(body) {
	const msgs = body.messages || [];
	for (let i = msgs.length - 1; i >= 0; i--) {
		const m = msgs[i];
		if (m.role !== "user") continue;
		const t = text(m.content);
		if (t.trim() === "") continue;
		const step = msgs.slice(i + 1).filter((x) => x.role === "assistant").length;
		return { prompt: t, step };
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
			if (req.method === "GET" && /\/models\/?$/.test(req.url)) {
				log.push({ n, method: req.method, url: req.url, answered: 200 });
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ object: "list", data: [] }));
				return;
			}
			if (req.method !== "POST" || !/\/chat\/completions$/.test(req.url) || !parsed) {
				log.push({ n, method: req.method, url: req.url, answered: 404 });
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: `not here: ${req.url}`, type: "invalid_request_error", code: "not_found" } }));
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
				res.writeHead(reply.error.status, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: reply.error.message, type: reply.error.type, param: null, code: reply.error.code ?? null } }));
				return;
			}
			const id = stableID("chatcmpl-", `${prompt}:${step}:${n}`);
			const created = 1767225600 + n; // fixed clock: 2026-01-01 plus the request number
			const u = { prompt: 1200, completion: 20, cached: 0, reasoning: 0, ...(reply.usage || {}) };
			const usage = {
				prompt_tokens: u.prompt,
				completion_tokens: u.completion,
				total_tokens: u.prompt + u.completion,
				prompt_tokens_details: { cached_tokens: u.cached },
				...(u.reasoning ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {}),
			};
			const calls = (reply.calls || []).map((c, k) => ({ id: stableID("call_", `${id}:${k}`), type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
			const finish = calls.length ? "tool_calls" : "stop";
			entry.id = id;
			entry.usage = usage;
			entry.finish_reason = finish;
			entry.toolCalls = calls.map((c) => ({ id: c.id, name: c.function.name }));
			log.push(entry);
			const model = parsed.model;
			if (!parsed.stream) {
				const message = { role: "assistant", content: reply.text ?? null };
				if (reply.reasoning) message.reasoning_content = reply.reasoning;
				if (calls.length) message.tool_calls = calls;
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const chunk = (delta, finish_reason = null, extra = {}) => res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason, logprobs: null }], ...extra })}\n\n`);
			chunk({ role: "assistant", content: "" });
			for (const part of pieces(reply.reasoning || "")) chunk({ reasoning_content: part });
			for (const part of pieces(reply.text || "")) chunk({ content: part });
			calls.forEach((c, index) => {
				chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }] });
				for (const part of pieces(c.function.arguments)) chunk({ tool_calls: [{ index, function: { arguments: part } }] });
			});
			chunk({}, finish);
			// With stream_options.include_usage the usage comes last, with no choices.
			if (parsed.stream_options && parsed.stream_options.include_usage) res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model, choices: [], usage })}\n\n`);
			res.write("data: [DONE]\n\n");
			res.end();
		});
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Splits s into pieces of up to 40 characters, as a stream would. */
function pieces(s) {
	const out = [];
	for (let i = 0; i < s.length; i += 40) out.push(s.slice(i, i + 40));
	return out;
}
