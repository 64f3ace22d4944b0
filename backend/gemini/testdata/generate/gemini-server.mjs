// A scripted local model server speaking the Gemini API (generativelanguage
// v1beta: POST /v1beta/models/{model}:streamGenerateContent?alt=sse,
// :generateContent and :countTokens), for driving the real Gemini CLI offline
// through GOOGLE_GEMINI_BASE_URL.
//
// Each generate request is answered from a script: the request's "prompt" is
// the text of the last user content that is not only function responses, and
// the step is the number of model contents after it. script(prompt, step,
// request, kind) (kind is "stream" or "generate") returns a reply
// { thoughts?: [text], text?, calls?: [{name, args}], usage?: {prompt,
// candidates, cached, thoughts}, error?: {status, code, message} } or
// undefined (then the server answers with a short text and records the request
// as unscripted). countTokens answers a rough count (characters / 4) unless
// countTokens(request) returns a number.
import http from "node:http";
import { createHash } from "node:crypto";

/** Deterministic id: prefix + base62 of sha256(seed). */
export function stableID(prefix, seed, n = 22) {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
	const b = createHash("sha256").update(seed).digest();
	let s = "";
	for (let i = 0; i < n; i++) s += alphabet[b[i % b.length] % 62];
	return prefix + s;
}

const isResponseOnly = (c) => (c.parts || []).length > 0 && (c.parts || []).every((p) => p.functionResponse || (p.text !== undefined && p.text.trim() === ""));

/** Finds the prompt of a request and the step within it. */
export function promptAndStep(body) {
	const contents = body.contents || [];
	for (let i = contents.length - 1; i >= 0; i--) {
		const c = contents[i];
		if (c.role !== "user" || isResponseOnly(c)) continue;
		// The CLI's <session_context> part leads the first user content.
		let texts = (c.parts || []).filter((p) => typeof p.text === "string" && !p.thought).map((p) => p.text);
		if (texts.length > 1) texts = texts.filter((t) => !t.startsWith("<session_context>"));
		const text = texts.join("\n");
		if (text.trim() === "") continue;
		const step = contents.slice(i + 1).filter((x) => x.role === "model").length;
		return { prompt: text, step };
	}
	return { prompt: "", step: 0 };
}

function countChars(body) {
	return JSON.stringify(body.contents || []).length;
}

export function startServer(script, log, countTokens = () => undefined) {
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
			const m = req.url.match(/^\/(v1beta|v1|v1alpha)\/models\/([^:/?]+):(streamGenerateContent|generateContent|countTokens)(\?.*)?$/);
			if (req.method !== "POST" || !m || !parsed) {
				log.push({ n, method: req.method, url: req.url, answered: 404 });
				res.writeHead(404, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { code: 404, message: `not here: ${req.url}`, status: "NOT_FOUND" } }));
				return;
			}
			const [, , model, method] = m;
			if (method === "countTokens") {
				const total = countTokens(parsed) ?? Math.ceil(countChars(parsed) / 4);
				log.push({ n, url: req.url, method, model, totalTokens: total });
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ totalTokens: total }));
				return;
			}
			const kind = method === "streamGenerateContent" ? "stream" : "generate";
			const { prompt, step } = promptAndStep(parsed);
			let reply = script(prompt, step, parsed, kind);
			const entry = { n, url: req.url.replace(/\?.*$/, ""), method, model, prompt: prompt.slice(0, 120), step, contents: (parsed.contents || []).length };
			if (!reply) {
				entry.unscripted = true;
				reply = { text: "(unscripted request)" };
			}
			if (reply.error) {
				entry.error = reply.error;
				log.push(entry);
				res.writeHead(reply.error.code, { "content-type": "application/json" });
				res.end(JSON.stringify({ error: { code: reply.error.code, message: reply.error.message, status: reply.error.status } }));
				return;
			}
			const responseId = stableID("", `${prompt}:${step}:${n}`);
			const u = { prompt: 1200, candidates: 20, cached: 0, thoughts: 0, ...(reply.usage || {}) };
			const usageMetadata = {
				promptTokenCount: u.prompt,
				candidatesTokenCount: u.candidates,
				totalTokenCount: u.prompt + u.candidates + u.thoughts,
				...(u.cached ? { cachedContentTokenCount: u.cached, cacheTokensDetails: [{ modality: "TEXT", tokenCount: u.cached }] } : {}),
				promptTokensDetails: [{ modality: "TEXT", tokenCount: u.prompt }],
				...(u.thoughts ? { thoughtsTokenCount: u.thoughts } : {}),
			};
			// One part list per streamed chunk, as the real API splits them:
			// thoughts first, then text in pieces, then each function call whole.
			const chunks = [];
			for (const t of reply.thoughts || []) chunks.push([{ text: t, thought: true }]);
			if (reply.text) for (const piece of pieces(reply.text)) chunks.push([{ text: piece }]);
			if ((reply.calls || []).length) chunks.push(reply.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })));
			if (chunks.length === 0) chunks.push([{ text: "" }]);
			entry.responseId = responseId;
			entry.usage = usageMetadata;
			entry.parts = chunks.flat().map((p) => (p.functionCall ? { functionCall: p.functionCall.name } : p.thought ? { thought: true } : { text: true }));
			log.push(entry);
			const modelVersion = model;
			if (kind === "generate") {
				const parts = [];
				for (const c of chunks) for (const p of c) {
					const last = parts[parts.length - 1];
					if (p.text !== undefined && !p.thought && last && last.text !== undefined && !last.thought) last.text += p.text;
					else parts.push({ ...p });
				}
				res.writeHead(200, { "content-type": "application/json" });
				res.end(JSON.stringify({ candidates: [{ content: { role: "model", parts }, finishReason: "STOP", index: 0 }], usageMetadata, modelVersion, responseId }));
				return;
			}
			res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
			chunks.forEach((parts, i) => {
				const last = i === chunks.length - 1;
				const cand = { content: { role: "model", parts }, index: 0 };
				if (last) cand.finishReason = "STOP";
				// Intermediate chunks report the prompt side only, the last one the totals.
				const usage = last ? usageMetadata : { promptTokenCount: u.prompt, totalTokenCount: u.prompt, promptTokensDetails: usageMetadata.promptTokensDetails };
				res.write(`data: ${JSON.stringify({ candidates: [cand], usageMetadata: usage, modelVersion, responseId })}\r\n\r\n`);
			});
			res.end();
		});
	});
	return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Splits s into pieces of up to 60 characters, as a stream would. */
function pieces(s) {
	const out = [];
	for (let i = 0; i < s.length; i += 60) out.push(s.slice(i, i + 60));
	return out;
}
