// SPDX-License-Identifier: MIT
// What the MCP tests and the benchmark share: the workspace, the official SDK client over
// stdio (for warder mcp and for the reference filesystem server), and a raw line client.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";

export const here = path.dirname(fileURLToPath(import.meta.url));

// The pinned modules (tests/mcp/package-lock.json) live outside the source tree, where
// scripts/setup.sh installs them with `npm ci`: $WARDER_NODE_PREFIX/node_modules, by default
// ${XDG_CACHE_HOME:-~/.cache}/warder/mcp-node/node_modules. Third-party code never sits among
// the project's files. They are required where scripts/test.sh runs the suite (it sets
// WARDER_REQUIRE_NODE=1); a developer's `meson test` without them skips (exit 77) with the
// reason.
export const prefix = process.env.WARDER_NODE_PREFIX ||
  path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "warder", "mcp-node");
const modules = path.join(prefix, "node_modules");
const sdkDir = path.join(modules, "@modelcontextprotocol", "sdk");
const serverFs = path.join(modules, "@modelcontextprotocol", "server-filesystem");

export function requireModules() {
  const missing = [sdkDir, serverFs].filter((d) => !fs.existsSync(path.join(d, "package.json")))
    .map((d) => path.relative(modules, d));
  if (!missing.length) return;
  const why = `the pinned modules are not installed in ${modules} (${missing.join(", ")}): ` +
    "run scripts/setup.sh";
  if (process.env.WARDER_REQUIRE_NODE === "1") {
    console.error(`FAIL: ${why}`);
    process.exit(1);
  }
  console.log(`SKIP: ${why}`);
  process.exit(77);
}

// An ES module of the SDK by its file (the package's "import" export of that path).
const sdkModule = (rel) => import(pathToFileURL(path.join(sdkDir, "dist", "esm", rel)).href);

export const cli = process.env.WARDER_CLI;
export const reference = path.join(serverFs, "dist", "index.js");
export const SECRET = "API_KEY=sk-live-4f9c2a7e1d";

// A workspace as an agent meets it: a source file, a .env with a key, a link to it, a file
// outside the root, a second root with a link back into the first.
export function makeWorkspace() {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "warder-mcp-")));
  const ws = path.join(top, "ws");
  const other = path.join(top, "other");
  fs.mkdirSync(path.join(ws, "src", "lib"), { recursive: true });
  fs.mkdirSync(other);
  fs.writeFileSync(path.join(ws, ".env"), SECRET + "\n");
  fs.writeFileSync(path.join(ws, "src", "main.c"),
    "#include <stdio.h>\n/* reads API_KEY from the environment */\nint main(void)\n{\n" +
    "        return 0;\n}\n");
  fs.writeFileSync(path.join(ws, "src", "lib", "util.c"), "int util(void) { return 1; }\n");
  fs.writeFileSync(path.join(ws, "README.md"), "# demo\n\nline 3\nline 4\nline 5\n");
  fs.writeFileSync(path.join(ws, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  fs.symlinkSync(".env", path.join(ws, "notes.txt"));
  fs.writeFileSync(path.join(top, "outside.txt"), "outside the root\n");
  fs.writeFileSync(path.join(other, "hello.txt"), "hello from the other root\n");
  fs.symlinkSync(path.join(ws, ".env"), path.join(other, "env-link"));
  return { top, ws, other, cleanup: () => fs.rmSync(top, { recursive: true, force: true }) };
}

// Every file's bytes and every link's target under `dir`, to show nothing was touched.
export function snapshot(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name < b.name ? -1 : 1)) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) out[p] = "-> " + fs.readlinkSync(p);
      else if (e.isDirectory()) walk(p);
      else out[p] = fs.readFileSync(p).toString("base64");
    }
  };
  walk(dir);
  return out;
}

async function sdk() {
  const { Client } = await sdkModule("client/index.js");
  const { StdioClientTransport } = await sdkModule("client/stdio.js");
  const types = await sdkModule("types.js");
  return { Client, StdioClientTransport, types };
}

// An SDK client connected to `command args`; `elicit` (optional) answers elicitation/create
// and declares the capability. The server's stderr is kept (sanitizer reports end up there).
export async function connect(command, args, { elicit, cwd } = {}) {
  const { Client, StdioClientTransport, types } = await sdk();
  const client = new Client({ name: "warder-mcp-test", version: "1.0.0" },
    { capabilities: elicit ? { elicitation: {} } : {} });
  const elicitations = [];
  if (elicit) {
    client.setRequestHandler(types.ElicitRequestSchema, async (req) => {
      elicitations.push(req.params);
      return elicit(req.params);
    });
  }
  const transport = new StdioClientTransport({ command, args, cwd, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => { stderr += d; });
  await client.connect(transport);
  const tools = (await client.listTools()).tools; // caches the outputSchema validators
  return {
    client, tools, elicitations, transport,
    stderr: () => stderr,
    call: (name, args, options) => client.callTool({ name, arguments: args }, undefined, options),
    close: () => client.close(),
  };
}

export const warderArgs = (roots, extra = []) =>
  ["mcp", ...(extra.includes("--rules") ? [] : ["--preset", "default"]), ...extra, ...roots];

export function connectWarder(roots, opts = {}) {
  return connect(cli, warderArgs(roots, opts.extra), opts);
}

export function connectReference(roots) {
  return connect(process.execPath, [reference, ...roots]);
}

// The text of a tool result.
export const text = (r) => r.content.map((c) => c.text ?? "").join("");

// A raw client: newline-delimited JSON-RPC on the server's stdin/stdout.
export function rawServer(args) {
  const child = spawn(cli, args, { stdio: ["pipe", "pipe", "pipe"] });
  const lines = [];
  const waiters = [];
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  readline.createInterface({ input: child.stdout }).on("line", (l) => {
    const msg = JSON.parse(l);
    const w = waiters.findIndex((x) => x.pred(msg));
    if (w >= 0) waiters.splice(w, 1)[0].resolve(msg);
    else lines.push(msg);
  });
  const next = (pred, ms = 10000) => {
    const i = lines.findIndex(pred);
    if (i >= 0) return Promise.resolve(lines.splice(i, 1)[0]);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error("no answer in time; stderr: " + stderr)), ms);
      waiters.push({ pred, resolve: (m) => { clearTimeout(t); resolve(m); } });
    });
  };
  return {
    child,
    stderr: () => stderr,
    writeRaw: (buf) => new Promise((resolve) => child.stdin.write(buf, resolve)),
    send: (obj) => child.stdin.write(JSON.stringify(obj) + "\n"),
    answer: (id, ms) => next((m) => m.id === id, ms),
    next,
    close: () => new Promise((resolve) => { child.on("exit", (code) => resolve(code)); child.stdin.end(); }),
  };
}

export const initParams = (version = "2025-11-25", capabilities = {}) => ({
  protocolVersion: version, capabilities, clientInfo: { name: "raw", version: "1" },
});

// Processes whose command line contains `needle` (from /proc; -1 for the caller itself).
export function processesWith(needle) {
  const found = [];
  for (const pid of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
      if (cmd.includes(needle)) found.push(Number(pid));
    } catch { /* gone */ }
  }
  return found;
}

export const sh = (cmd, cwd) => spawnSync("/bin/sh", ["-c", cmd], { cwd, encoding: "utf8" });
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
