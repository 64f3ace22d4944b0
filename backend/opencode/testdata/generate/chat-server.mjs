// A scripted local model server speaking the OpenAI Chat Completions API
// (POST /v1/chat/completions with "stream": true, server-sent events of
// chat.completion.chunk objects, as documented at
// https://platform.openai.com/docs/api-reference/chat-streaming), for driving
// the real OpenCode binary offline through its "@ai-sdk/openai-compatible"
// provider, and the real GitHub Copilot CLI through its BYOK provider
// (COPILOT_PROVIDER_TYPE=openai, COPILOT_PROVIDER_BASE_URL; the Copilot
// generator imports this file). GET /v1/models answers with the scripted
// model list.
//
// Each request is answered from a script: the request's "prompt" is the text
// of the last user message that is not only harness context, and the step is
// the number of assistant messages after it. script(prompt, step, request)
// returns a reply { reasoning?, text?, tools?: [{name, arguments}], usage?:
// {prompt, cached, completion, reasoning}, error?: {status, message},
// delayMs? } or
// undefined (then the server answers with a short text and records the
// request as unscripted).
import http from "node:http";
import { createHash } from "node:crypto";

/** Deterministic id: prefix + base36 of sha256(seed). */
export function stableID(prefix, seed, n = 24) {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
	const b = createHash("sha256").update(seed).digest();
	let s = "";
	for (let i = 0; i < n; i++) s += alphabet[b[i % b.length] % 36];
	return prefix + s;
}

/** The text of a message's content (a string or an array of parts). */
export function contentText(content) {
	if (typeof content === "string") return content;
	if (!Array.isArray(content)) return "";
	return content
		.filter((c) => c && (c.type === "text" || c.type === "input_text"))
		.map((c) => c.text)
		.join("\n");
}

/** Finds the prompt of a request and the step within it. */
export function promptAndStep(body, isContext = () => false) {
	const msgs = body.messages || [];
	for (let i = msgs.length - 1; i >= 0; i--) {
		const m = msgs[i];
		if (m.role !== "user") continue;
		const text = contentText(m.content);
		if (!text.trim() || isContext(text)) continue;
		const step = msgs.slice(i + 1).filter((x) => x.role === "assistant").length;
		return { prompt: text, step };
	}
	return { prompt: "", step: 0 };
}

/**
 * opts: models (for GET /v1/models), isContext(text) (user texts that are
 * not prompts), dump(request) (sees every request). Reasoning goes out as
 * delta.reasoning_content.
 */
export function startServer(script, log, opts = {}) {
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
			if (opts.dump) opts.dump({ n, method: req.method, url: req.url, headers: req.headers, body: parsed ?? body });
			if (req.method === "GET" && /\/models\/?$/.test(req.url)) {
				log.push({ n, method: req.method, url: req.url, answered: 200 });
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ object: "list", data: (opts.models || []).map((id) => ({ id, object: "model", created: 1767225600, owned_by: "local" })) }));
				return;
			}
			if (req.method !== "POST" || !req.url.includes("/chat/completions") || !parsed) {
				log.push({ n, method: req.method, url: req.url, answered: 404 });
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: "not here", type: "invalid_request_error", code: "not_found" } }));
				return;
			}
			const { prompt, step } = promptAndStep(parsed, opts.isContext);
			let reply = script(prompt, step, parsed);
			const entry = { n, url: req.url, model: parsed.model, stream: !!parsed.stream, prompt: prompt.slice(0, 120), step, messages: (parsed.messages || []).length, tools: (parsed.tools || []).map((t) => t.function?.name ?? t.name) };
			if (!reply) {
				entry.unscripted = true;
				reply = { text: "(unscripted request)" };
			}
			if (reply.error) {
				entry.error = reply.error;
				log.push(entry);
				res.writeHead(reply.error.status, { "content-type": "application/json", "x-request-id": stableID("req_", `err:${n}`) });
				res.end(JSON.stringify({ error: { message: reply.error.message, type: reply.error.type ?? "invalid_request_error", code: reply.error.code ?? null } }));
				return;
			}
			const id = stableID("chatcmpl-", `${prompt}:${step}:${n}`);
			const created = 1767225600 + n;
			const u = { prompt: 1000, cached: 0, completion: 20, reasoning: 0, ...(reply.usage || {}) };
			const usage = {
				prompt_tokens: u.prompt,
				completion_tokens: u.completion,
				total_tokens: u.prompt + u.completion,
				prompt_tokens_details: { cached_tokens: u.cached },
				completion_tokens_details: { reasoning_tokens: u.reasoning },
			};
			const calls = (reply.tools || []).map((t, k) => ({ id: stableID("call_", `${id}:${k}`), name: t.name, arguments: typeof t.arguments === "string" ? t.arguments : JSON.stringify(t.arguments) }));
			const finish = calls.length ? "tool_calls" : "stop";
			entry.id = id;
			entry.usage = usage;
			entry.finish_reason = finish;
			entry.calls = calls.map((c) => ({ id: c.id, name: c.name }));
			log.push(entry);
			// reply.delayMs holds the answer back, as a slow model would.
			setTimeout(() => respond(), reply.delayMs || 0);
			function respond() {
			if (!parsed.stream) {
				res.writeHead(200, { "content-type": "application/json" });
				const message = { role: "assistant", content: reply.text ?? null };
				if (reply.reasoning) message.reasoning_content = reply.reasoning;
				if (calls.length) message.tool_calls = calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } }));
				res.end(JSON.stringify({ id, object: "chat.completion", created, model: parsed.model, choices: [{ index: 0, message, finish_reason: finish }], usage }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			const chunk = (delta, finish_reason = null, extra = {}) =>
				res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: parsed.model, choices: [{ index: 0, delta, finish_reason }], ...extra })}\n\n`);
			chunk({ role: "assistant", content: "" });
			if (reply.reasoning) for (const part of chunks(reply.reasoning)) chunk({ reasoning_content: part });
			if (reply.text) for (const part of chunks(reply.text)) chunk({ content: part });
			calls.forEach((c, index) => {
				chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.name, arguments: "" } }] });
				for (const part of chunks(c.arguments)) chunk({ tool_calls: [{ index, function: { arguments: part } }] });
			});
			chunk({}, finish);
			// With stream_options.include_usage the usage comes in a last chunk
			// with no choices, as the real API sends it.
			res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: parsed.model, choices: [], usage })}\n\n`);
			res.write("data: [DONE]\n\n");
			res.end();
			}
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
