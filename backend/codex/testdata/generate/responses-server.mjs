// A scripted local model server speaking the OpenAI Responses API
// (POST /v1/responses with "stream": true, server-sent events as documented at
// https://platform.openai.com/docs/api-reference/responses-streaming), for
// driving the real Codex CLI offline.
//
// Each request is answered from a script: the request's "prompt" is the text
// of the last user message of its input that is not harness context, and the
// step is the number of assistant outputs (messages or function calls) after
// it. script(prompt, step, request) returns a reply { reasoning?, text?,
// calls?: [{name, arguments, namespace?}], usage?: {input, cached, output,
// reasoning} } or undefined (then a short text, and the request is recorded as
// unscripted).
import http from "node:http";
import { createHash } from "node:crypto";

export function stableID(prefix, seed, n = 24) {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz";
	const b = createHash("sha256").update(seed).digest();
	let s = "";
	for (let i = 0; i < n; i++) s += alphabet[b[i % b.length] % 36];
	return prefix + s;
}

function itemTexts(item) {
	if (!item || item.type !== "message") return [];
	if (typeof item.content === "string") return [item.content];
	return (item.content || []).filter((c) => c && (c.type === "input_text" || c.type === "output_text")).map((c) => c.text);
}

/** Harness context Codex sends as user messages (not typed prompts). */
export function isContext(text) {
	const t = text.trimStart();
	return t.startsWith("<environment_context>") || t.startsWith("# AGENTS.md") || t.startsWith("<user_instructions>") || t.startsWith("<permissions") || t.startsWith("<turn_aborted>") || t.startsWith("<skills_instructions>") || t.startsWith("<subagent_notification>") || t.startsWith("<image ") || t.startsWith("</image>");
}

export function promptAndStep(body) {
	const input = Array.isArray(body.input) ? body.input : [];
	for (let i = input.length - 1; i >= 0; i--) {
		const it = input[i];
		if (it.type !== "message" || it.role !== "user") continue;
		const real = itemTexts(it).filter((t) => !isContext(t) && t.trim() !== "");
		if (!real.length) continue;
		const step = input.slice(i + 1).filter((x) => (x.type === "message" && x.role === "assistant") || x.type === "function_call" || x.type === "custom_tool_call").length;
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
			if (req.method !== "POST" || !req.url.includes("/responses") || !parsed) {
				log.push({ n, method: req.method, url: req.url, answered: 404 });
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { message: "not here", type: "invalid_request_error" } }));
				return;
			}
			const { prompt, step } = promptAndStep(parsed);
			let reply = script(prompt, step, parsed);
			const entry = { n, url: req.url, model: parsed.model, prompt: prompt.slice(0, 160), step, inputItems: (parsed.input || []).length };
			if (!reply) {
				entry.unscripted = true;
				reply = { text: "(unscripted request)" };
			}
			const rid = stableID("resp_", `${prompt}:${step}:${n}`);
			const u = { input: 1000, cached: 0, output: 50, reasoning: 0, ...(reply.usage || {}) };
			const usage = { input_tokens: u.input, input_tokens_details: { cached_tokens: u.cached }, output_tokens: u.output, output_tokens_details: { reasoning_tokens: u.reasoning }, total_tokens: u.input + u.output };
			const items = [];
			if (reply.reasoning) items.push({ id: stableID("rs_", rid + "r"), type: "reasoning", summary: [{ type: "summary_text", text: reply.reasoning }], encrypted_content: Buffer.from("opaque reasoning " + rid).toString("base64") });
			if (reply.text) items.push({ id: stableID("msg_", rid + "m"), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: reply.text, annotations: [] }] });
			for (const [k, c] of (reply.calls || []).entries()) {
				if (c.custom) {
					items.push({ id: stableID("ctc_", `${rid}:${k}`), type: "custom_tool_call", status: "completed", call_id: stableID("call_", `${rid}:${k}`), name: c.name, input: c.input });
					continue;
				}
				const call = { id: stableID("fc_", `${rid}:${k}`), type: "function_call", status: "completed", call_id: stableID("call_", `${rid}:${k}`), name: c.name, arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments) };
				if (c.namespace) call.namespace = c.namespace;
				items.push(call);
			}
			entry.responseId = rid;
			entry.usage = usage;
			entry.items = items.map((i) => ({ type: i.type, name: i.name, call_id: i.call_id }));
			log.push(entry);
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			let seq = 0;
			const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
			const base = { id: rid, object: "response", created_at: 1790000000 + n, model: parsed.model, status: "in_progress", output: [] };
			ev("response.created", { response: base });
			ev("response.in_progress", { response: base });
			items.forEach((item, output_index) => {
				if (item.type === "message") {
					ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
					ev("response.content_part.added", { item_id: item.id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
					for (const d of chunks(item.content[0].text)) ev("response.output_text.delta", { item_id: item.id, output_index, content_index: 0, delta: d });
					ev("response.output_text.done", { item_id: item.id, output_index, content_index: 0, text: item.content[0].text });
					ev("response.content_part.done", { item_id: item.id, output_index, content_index: 0, part: item.content[0] });
				} else if (item.type === "function_call") {
					ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
					for (const d of chunks(item.arguments)) ev("response.function_call_arguments.delta", { item_id: item.id, output_index, delta: d });
					ev("response.function_call_arguments.done", { item_id: item.id, output_index, arguments: item.arguments });
				} else if (item.type === "custom_tool_call") {
					ev("response.output_item.added", { output_index, item: { ...item, status: "in_progress", input: "" } });
					for (const d of chunks(item.input)) ev("response.custom_tool_call_input.delta", { item_id: item.id, output_index, delta: d });
					ev("response.custom_tool_call_input.done", { item_id: item.id, output_index, input: item.input });
				} else {
					ev("response.output_item.added", { output_index, item: { ...item, summary: [] } });
					ev("response.reasoning_summary_part.added", { item_id: item.id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
					ev("response.reasoning_summary_text.delta", { item_id: item.id, output_index, summary_index: 0, delta: item.summary[0].text });
					ev("response.reasoning_summary_text.done", { item_id: item.id, output_index, summary_index: 0, text: item.summary[0].text });
					ev("response.reasoning_summary_part.done", { item_id: item.id, output_index, summary_index: 0, part: item.summary[0] });
				}
				ev("response.output_item.done", { output_index, item });
			});
			ev("response.completed", { response: { ...base, status: "completed", output: items, usage } });
			res.end();
		});
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function chunks(s) {
	const out = [];
	for (let i = 0; i < s.length; i += 40) out.push(s.slice(i, i + 40));
	return out.length ? out : [""];
}
