// The Codex generator's scripted Responses API server
// (backend/codex/testdata/generate/responses-server.mjs) with one reply it
// lacks: a tool_search_call, Codex's client-side tool search, behind which
// Codex 0.169 offers MCP tools (they are not in the first request's tools).
// A script reply { toolSearch: {query, limit} } is answered here as one
// tool_search_call output item (execution "client", as Codex's own tests
// stream it); every other reply goes to the generator's server unchanged.
import { Readable } from "node:stream";
import { startServer as startGeneratorServer, stableID } from "../../backend/codex/testdata/generate/responses-server.mjs";

export async function startServer(script, log) {
	// The reply decided here for a request, handed to the generator's server
	// when it asks the script about the same request.
	const decided = new Map();
	const server = await startGeneratorServer((prompt, step, body) => {
		const key = JSON.stringify(body);
		return decided.has(key) ? decided.get(key) : script(prompt, step, body);
	}, log);
	const generator = server.listeners("request")[0];
	server.removeAllListeners("request");
	server.on("request", (req, res) => {
		const chunks = [];
		req.on("data", (c) => chunks.push(c));
		req.on("end", () => {
			const raw = Buffer.concat(chunks);
			let body = null;
			try {
				body = JSON.parse(raw.toString("utf8"));
			} catch {}
			const reply = body && req.method === "POST" && req.url.includes("/responses") ? script("", 0, body) : undefined;
			if (reply && reply.toolSearch) return toolSearch(res, body, reply.toolSearch, log);
			const key = body && JSON.stringify(body);
			if (key) decided.set(key, reply);
			// The generator's server reads the request again from a copy.
			const copy = Readable.from([raw]);
			Object.assign(copy, { method: req.method, url: req.url, headers: req.headers });
			res.on("close", () => key && decided.delete(key));
			generator(copy, res);
		});
	});
	return server;
}

/** Streams one tool_search_call item as the response. */
function toolSearch(res, body, args, log) {
	const n = log.length + 1;
	const rid = stableID("resp_", `tool_search:${JSON.stringify(args)}:${n}`);
	const item = { id: stableID("ts_", rid), type: "tool_search_call", status: "completed", call_id: stableID("call_", rid), execution: "client", arguments: args };
	const usage = { input_tokens: 1000, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 1020 };
	log.push({ n, url: "/v1/responses", model: body.model, items: [{ type: item.type, call_id: item.call_id }] });
	res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
	let seq = 0;
	const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
	const base = { id: rid, object: "response", created_at: 1790000000 + n, model: body.model, status: "in_progress", output: [] };
	ev("response.created", { response: base });
	ev("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress" } });
	ev("response.output_item.done", { output_index: 0, item });
	ev("response.completed", { response: { ...base, status: "completed", output: [item], usage } });
	res.end();
}
