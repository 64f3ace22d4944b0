// The four provider protocols the agents speak, as the scripted model needs
// them: which tools a request offers, which tool results it carries (with the
// name of the call each answers), and how to answer with a tool call or a
// text in the reply shape of the generators' servers, which this test reuses
// (backend/<agent>/testdata/generate*/…-server.mjs).

/** The servers, one per protocol, with the protocol's request reading.
 * tools(body) gives {name, namespace?, full} (full: the name with its
 * namespace, the one results are named by); results(body) gives {name (full),
 * content} in request order. */
export const protocols = {
	// Anthropic Messages (Claude Code): tools[].name; tool_use blocks in
	// assistant messages, tool_result blocks in user messages.
	anthropic: {
		server: "../../backend/claudecode/testdata/generate/anthropic-server.mjs",
		tools: (body) => (body.tools || []).map((t) => ({ name: t.name, full: t.name })),
		texts: (body) => (body.messages || []).filter((m) => m.role === "user").flatMap((m) => blocks(m.content).filter((b) => b.type === "text").map((b) => b.text)),
		results(body) {
			const names = new Map();
			const out = [];
			for (const m of body.messages || [])
				for (const b of blocks(m.content)) {
					if (b.type === "tool_use") names.set(b.id, b.name);
					if (b.type === "tool_result") out.push({ name: names.get(b.tool_use_id), content: b.content });
				}
			return out;
		},
		call: (tool, args) => ({ tools: [{ name: tool.name, input: args }] }),
		text: (text) => ({ text }),
	},
	// OpenAI Responses (Codex): tools[].name, or a namespace's tools[], or
	// a tool of the API's own by its type (tool_search, answered by
	// responses-server.mjs); the input's *_call items name the calls,
	// *_output items answer them by call_id.
	responses: {
		server: "./responses-server.mjs",
		tools: (body) => responsesTools(body),
		texts: (body) =>
			(body.input || []).filter((i) => i.type === "message" && i.role === "user").flatMap((i) => (typeof i.content === "string" ? [i.content] : (i.content || []).map((c) => c.text || ""))),
		results(body) {
			const names = new Map();
			const out = [];
			for (const it of body.input || []) {
				if (it.call_id && /_call$/.test(it.type)) names.set(it.call_id, namespaced(it.namespace, it.name || it.type.replace(/_call$/, "")));
				if (it.call_id && /_output$/.test(it.type)) out.push({ name: names.get(it.call_id), content: it.output ?? it.tools ?? it });
			}
			return out;
		},
		call: (tool, args) => (tool.hosted ? { toolSearch: args } : { calls: [{ name: tool.name, arguments: args, ...(tool.namespace ? { namespace: tool.namespace } : {}) }] }),
		text: (text) => ({ text }),
	},
	// Gemini API (Gemini CLI): tools[].functionDeclarations[].name;
	// functionCall and functionResponse parts carry the name.
	gemini: {
		server: "../../backend/gemini/testdata/generate/gemini-server.mjs",
		tools: (body) => (body.tools || []).flatMap((t) => (t.functionDeclarations || []).map((f) => ({ name: f.name, full: f.name }))),
		texts: (body) => (body.contents || []).filter((c) => c.role === "user").flatMap((c) => (c.parts || []).filter((p) => typeof p.text === "string").map((p) => p.text)),
		results: (body) => (body.contents || []).flatMap((c) => (c.parts || []).filter((p) => p.functionResponse).map((p) => ({ name: p.functionResponse.name, content: p.functionResponse.response }))),
		call: (tool, args) => ({ calls: [{ name: tool.name, args }] }),
		text: (text) => ({ text }),
	},
	// OpenAI Chat Completions (OpenCode, Copilot CLI, Cline, Qwen Code):
	// tools[].function.name; assistant tool_calls, role "tool" answers; a
	// call through Qwen Code's tool_call is named by the tool it calls.
	chat: {
		server: "../../backend/opencode/testdata/generate/chat-server.mjs",
		tools: (body) => (body.tools || []).map((t) => t.function?.name ?? t.name).map((name) => ({ name, full: name })),
		texts: (body) => (body.messages || []).filter((m) => m.role === "user").flatMap((m) => (typeof m.content === "string" ? [m.content] : blocks(m.content).map((b) => b.text || ""))),
		results(body) {
			const names = new Map();
			const out = [];
			for (const m of body.messages || []) {
				for (const c of m.tool_calls || []) names.set(c.id, proxied(c.function?.name, c.function?.arguments));
				if (m.role === "tool") out.push({ name: names.get(m.tool_call_id), content: m.content });
			}
			return out;
		},
		call: (tool, args) => ({ tools: [{ name: tool.name, arguments: args }] }),
		text: (text) => ({ text }),
	},
};

/** The name of the tool a call runs: the proxied tool's for Qwen Code's
 * tool_call {name, arguments}, else the call's own. */
function proxied(name, args) {
	if (name !== "tool_call") return name;
	try {
		return JSON.parse(args).name || name;
	} catch {
		return name;
	}
}

function blocks(content) {
	if (typeof content === "string") return [{ type: "text", text: content }];
	return Array.isArray(content) ? content.filter(Boolean) : [];
}

/** A Codex tool's name with its namespace, as Codex spells MCP tools
 * (mcp__rhizome + search: mcp__rhizome__search). */
function namespaced(namespace, name) {
	return namespace ? `${namespace.replace(/_+$/, "")}__${name}` : name;
}

/** Codex's tools: plain ones, and the tools of a namespace (as MCP tools
 * found by tool_search come back), each with its namespace. */
function responsesTools(body) {
	const out = [];
	const add = (list, namespace) => {
		for (const t of list || []) {
			if (Array.isArray(t.tools)) add(t.tools, t.name);
			else if (t.name) out.push({ name: t.name, namespace, full: namespaced(namespace, t.name) });
			// A tool of the API's own (tool_search, web_search): named by its type.
			else if (t.type) out.push({ name: t.type, full: t.type, hosted: true });
		}
	};
	add(body.tools);
	// Tools that a tool_search output put in the conversation.
	for (const it of body.input || []) if (/tool_search.*output/.test(it.type || "")) add(it.tools);
	return out;
}

/**
 * canonical turns a tool result as an agent sent it (a string, blocks, an
 * object, JSON inside JSON, JSON after a line of the agent's) into one JSON text with every JSON string inside
 * it parsed, so that `"uri":"rhizome:…"` reads the same whatever the wrapping.
 */
export function canonical(x) {
	const deep = (v) => {
		if (typeof v === "string") {
			// JSON, or JSON after a line of the agent's own (Codex: "Wall
			// time: …\nOutput:\n{…}"): the JSON parsed, the text around it kept.
			const from = v.search(/[[{]/);
			const to = Math.max(v.lastIndexOf("}"), v.lastIndexOf("]")) + 1;
			if (from >= 0 && to > from) {
				try {
					const inner = deep(JSON.parse(v.slice(from, to)));
					return from === 0 && to === v.length ? inner : [v.slice(0, from), inner, v.slice(to)];
				} catch {}
			}
			return v;
		}
		if (Array.isArray(v)) return v.map(deep);
		if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, w]) => [k, deep(w)]));
		return v;
	};
	return JSON.stringify(deep(x));
}
