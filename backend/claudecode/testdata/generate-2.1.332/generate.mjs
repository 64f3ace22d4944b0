// Generates the real Claude Code 2.1.332 session logs (the version pinned in
// this folder's package.json) with the generator of ../generate/ (the same
// runs, the same scripted server, see ../generate/generate.mjs), into
// ../claude-home-2.1.332/ and ../expected-2.1.332.json; the 2.1.197 output
// (../claude-home/, ../expected.json) is left as it is.
//
//   npm ci && node generate.mjs

import path from "node:path";
import { fileURLToPath } from "node:url";
import { generate } from "../generate/generate.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
await generate({ pkgDir: HERE, out: path.resolve(HERE, "..", "claude-home-2.1.332"), expected: path.resolve(HERE, "..", "expected-2.1.332.json") });
