// The agents this test runs, each with the set-up lines the README gives for
// `rhizome mcp` (run here as a user types them: PATH finds the agent and
// rhizome) and what keeps it offline and headless, taken from its fixture
// generator's README (backend/<agent>/testdata/generate*/README.md).
//
// Per agent:
//   pkg, bins       the npm package pinned in package.json, and the commands
//                   a user has on PATH (relative to node_modules)
//   protocol        the provider protocol its scripted model speaks
//   setup           the README's set-up commands, run in the project
//   files(ctx)      the test's own settings (model provider, offline
//                   switches), written before the set-up commands
//   commands(ctx)   the test's own set-up commands, run before the README's
//   env(ctx)        environment for every command
//   command(prompt) the headless run
// ctx: {home, work, url} (url: the scripted model server, http://127.0.0.1:PORT).

import path from "node:path";

/** The scripted model's name, where an agent needs one it does not know. */
const MODEL = "scripted-coder";

export const agents = [
	{
		id: "claude",
		name: "Claude Code",
		pkg: "@anthropic-ai/claude-code",
		bins: { claude: "@anthropic-ai/claude-code-linux-x64/claude" },
		protocol: "anthropic",
		setup: [["claude", "mcp", "add", "--scope", "user", "rhizome", "--", "rhizome", "mcp"]],
		files: () => ({}),
		env: ({ url }) => ({
			ANTHROPIC_BASE_URL: url,
			ANTHROPIC_API_KEY: "sk-ant-local-test",
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
			DISABLE_TELEMETRY: "1",
			DISABLE_AUTOUPDATER: "1",
			IS_SANDBOX: "1",
		}),
		command: (prompt) => ["claude", "-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions", prompt],
	},
	{
		id: "codex",
		name: "Codex",
		pkg: "@openai/codex",
		bins: { codex: "@openai/codex/bin/codex.js" },
		protocol: "responses",
		setup: [["codex", "mcp", "add", "rhizome", "--", "rhizome", "mcp"]],
		// Top-level keys first: `codex mcp add` appends its table after them.
		files: ({ home, url }) => ({
			[path.join(home, ".codex", "config.toml")]: `model = "gpt-5.5-codex"
model_provider = "local"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.local]
name = "Scripted local model"
base_url = "${url}/v1"
wire_api = "responses"
env_key = "LOCAL_API_KEY"
`,
		}),
		env: () => ({ LOCAL_API_KEY: "sk-local-test" }),
		command: (prompt) => ["codex", "exec", "--skip-git-repo-check", "--json", prompt],
	},
	{
		id: "gemini",
		name: "Gemini CLI",
		pkg: "@google/gemini-cli",
		bins: { gemini: "@google/gemini-cli/bundle/gemini.js" },
		protocol: "gemini",
		setup: [["gemini", "mcp", "add", "--scope", "user", "rhizome", "rhizome", "mcp"]],
		// API-key auth (the base URL alone selects an auth type 0.61.0
		// rejects), no statistics, telemetry or updates, no folder trust
		// (an untrusted folder turns --yolo off).
		files: ({ home }) => ({
			[path.join(home, ".gemini", "settings.json")]: {
				security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
				privacy: { usageStatisticsEnabled: false },
				telemetry: { enabled: false },
				general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
			},
		}),
		env: ({ url }) => ({ GEMINI_API_KEY: "local-test-key", GOOGLE_GEMINI_BASE_URL: url, GEMINI_CLI_NO_RELAUNCH: "1" }),
		command: (prompt) => ["gemini", "-m", "gemini-2.5-pro", "--yolo", "-o", "stream-json", "-p", prompt],
	},
	{
		id: "opencode",
		name: "OpenCode",
		pkg: "opencode-linux-x64",
		bins: { opencode: "opencode-linux-x64/bin/opencode" },
		protocol: "chat",
		// `opencode mcp add` asks for a local server's command interactively:
		// the README gives the config file's lines.
		setup: [],
		files: ({ home, url }) => {
			const config = path.join(home, ".config", "opencode");
			const pin = { dependencies: { "@opencode-ai/plugin": "1.18.33" } };
			return {
				[path.join(config, "opencode.json")]: {
					// The README's lines:
					mcp: { rhizome: { type: "local", command: ["rhizome", "mcp"] } },
					// The test's: the scripted model as an OpenAI-compatible provider.
					model: `local/${MODEL}`,
					small_model: `local/${MODEL}`,
					autoupdate: false,
					share: "disabled",
					permission: "allow",
					provider: {
						local: {
							npm: "@ai-sdk/openai-compatible",
							name: "Local scripted server",
							options: { baseURL: `${url}/v1`, apiKey: "sk-local-test" },
							models: { [MODEL]: { name: "Scripted Coder", tool_call: true, limit: { context: 128000, output: 8192 } } },
						},
					},
				},
				// OpenCode npm-installs @opencode-ai/plugin into its config folder
				// unless these say it is there.
				[path.join(config, "node_modules", ".keep")]: "",
				[path.join(config, "package.json")]: pin,
				[path.join(config, "package-lock.json")]: { name: "opencode", lockfileVersion: 3, requires: true, packages: { "": pin } },
			};
		},
		env: ({ home }) => ({
			XDG_CONFIG_HOME: path.join(home, ".config"),
			XDG_DATA_HOME: path.join(home, ".local", "share"),
			XDG_CACHE_HOME: path.join(home, ".cache"),
			XDG_STATE_HOME: path.join(home, ".local", "state"),
			OPENCODE_DISABLE_MODELS_FETCH: "1",
			OPENCODE_DISABLE_AUTOUPDATE: "1",
			OPENCODE_DISABLE_SHARE: "1",
			OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
			OPENCODE_DISABLE_DEFAULT_PLUGINS: "1",
		}),
		command: (prompt) => ["opencode", "run", "--format", "json", prompt],
	},
	{
		id: "copilot",
		name: "Copilot CLI",
		pkg: "@github/copilot",
		bins: { copilot: "@github/copilot-linux-x64/copilot" },
		protocol: "chat",
		setup: [["copilot", "mcp", "add", "rhizome", "--", "rhizome", "mcp"]],
		files: () => ({}),
		// Bring your own key: no GitHub sign-in; offline (no telemetry,
		// GitHub MCP server or update).
		env: ({ url }) => ({
			COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
			COPILOT_PROVIDER_TYPE: "openai",
			COPILOT_PROVIDER_API_KEY: "sk-local-test",
			COPILOT_MODEL: MODEL,
			COPILOT_PROVIDER_MAX_PROMPT_TOKENS: "100000",
			COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: "8192",
			COPILOT_OFFLINE: "true",
			COPILOT_AUTO_UPDATE: "false",
		}),
		command: (prompt) => ["copilot", "--allow-all-tools", "--output-format", "json", "--no-auto-update", "-p", prompt],
	},
	{
		id: "cline",
		name: "Cline",
		pkg: "@cline/cli-linux-x64",
		bins: { cline: "@cline/cli-linux-x64/bin/cline" },
		protocol: "chat",
		// Without --yes `cline mcp add` opens its wizard.
		setup: [["cline", "mcp", "add", "rhizome", "--yes", "--", "rhizome", "mcp"]],
		files: ({ home }) => ({
			[path.join(home, ".cline", "data", "settings", "global-settings.json")]: { telemetryOptOut: true, autoUpdateEnabled: false },
		}),
		// The scripted model as an OpenAI-compatible provider (no Cline account).
		commands: ({ url }) => [["cline", "auth", "-p", "openai", "-k", "sk-local-test", "-m", MODEL, "-b", `${url}/v1`]],
		// No update check, sessions in the CLI's own process (no hub daemon),
		// and E2E_TEST: the only switch that stops the feature-flag client
		// reaching data.cline.bot.
		env: () => ({ CLINE_NO_AUTO_UPDATE: "1", CLINE_SESSION_BACKEND_MODE: "local", E2E_TEST: "true" }),
		command: (prompt) => ["cline", "--json", prompt],
	},
	{
		id: "qwen",
		name: "Qwen Code",
		pkg: "@qwen-code/qwen-code",
		bins: { qwen: "@qwen-code/qwen-code/cli-entry.js" },
		protocol: "chat",
		setup: [["qwen", "mcp", "add", "--scope", "user", "rhizome", "rhizome", "mcp"]],
		// No statistics, telemetry or updates; no managed auto-memory (a
		// background agent with model requests of its own after the turn).
		files: ({ home }) => ({
			[path.join(home, ".qwen", "settings.json")]: {
				privacy: { usageStatisticsEnabled: false },
				telemetry: { enabled: false },
				general: { enableAutoUpdate: false },
				memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
			},
		}),
		env: ({ url }) => ({ OPENAI_API_KEY: "sk-local-test", OPENAI_BASE_URL: `${url}/v1`, OPENAI_MODEL: "qwen3-coder-plus", QWEN_CODE_SUPPRESS_YOLO_WARNING: "1" }),
		command: (prompt) => ["qwen", "--auth-type", "openai", "-m", "qwen3-coder-plus", "--yolo", "-o", "stream-json", prompt],
	},
];
