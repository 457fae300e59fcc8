// SPDX-License-Identifier: MIT
// warder mcp through the official MCP TypeScript SDK (Client + StdioClientTransport), with the
// guard's attack cases, hostile client input, and the same calls side by side against the
// reference filesystem server (docs/mcp.md; semantics §8).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import {
  cli, connect, connectReference, here, connectWarder, initParams, makeWorkspace, processesWith, rawServer,
  requireModules, SECRET, sh, sleep, snapshot, text,
} from "./harness.mjs";

requireModules();
if (!cli || !fs.existsSync(cli)) {
  console.error("FAIL: WARDER_CLI does not name the warder binary");
  process.exit(1);
}

let W; // the workspace
const servers = [];
const open = async (p) => { const s = await p; servers.push(s); return s; };

before(() => { W = makeWorkspace(); });
after(async () => {
  for (const s of servers) {
    await s.close().catch(() => {});
    // a sanitizer report (ASan build) on the server's stderr fails the suite
    assert.doesNotMatch(s.stderr(), /Sanitizer|runtime error/, s.stderr());
  }
  W.cleanup();
});

// Rules for the execute and ask cases: the default preset, some commands allowed, and an
// ask on reading *.ask files.
function rulesFile() {
  const p = path.join(W.top, "rules.yaml");
  fs.writeFileSync(p, [
    "warder: 1", "extends: default", "read:", "  rules:", "    - ask: '**/*.ask'",
    "      reason: Ask before reading questions", "execute:", "  rules:",
    "    - allow: 'sleep *'", "    - allow: 'echo *'", "",
  ].join("\n"));
  return p;
}

describe("lifecycle and tool list", () => {
  test("initialize negotiates 2025-11-25 and names warder", async () => {
    const s = await open(connectWarder([W.ws]));
    const v = s.client.getServerVersion();
    assert.equal(v.name, "warder");
    assert.match(v.version, /^\d+\.\d+\.\d+/);
    assert.ok(s.client.getServerCapabilities().tools);
  });

  test("every tool has an inputSchema, an outputSchema the SDK validates with, annotations", async () => {
    const s = await open(connectWarder([W.ws]));
    const names = s.tools.map((t) => t.name).sort();
    assert.deepEqual(names, ["directory_tree", "edit_file", "execute", "grep", "list_allowed_directories",
      "list_directory", "read_file", "read_multiple_files", "read_text_file", "search_files",
      "write_file"]);
    for (const t of s.tools) {
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.equal(t.outputSchema.type, "object", t.name);
      assert.equal(typeof t.annotations.readOnlyHint, "boolean", t.name);
      assert.equal(typeof t.annotations.destructiveHint, "boolean", t.name);
      assert.equal(typeof t.annotations.idempotentHint, "boolean", t.name);
      // the SDK compiled a validator from the outputSchema: every callTool below checks with it
      const validate = s.client.getToolOutputValidator(t.name);
      assert.equal(typeof validate, "function", t.name);
      // control arm: the validator really rejects what does not match
      assert.equal(validate({ content: 42 }).valid, false, t.name);
    }
    // docs/mcp.md's tool table lists exactly these tools, with their arguments
    const doc = fs.readFileSync(path.join(here, "../../docs/mcp.md"), "utf8");
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| ([^|]*) \|/gm)];
    assert.deepEqual(rows.map((m) => m[1]).sort(), names, "docs/mcp.md lists the tools");
    for (const [, name, args] of rows) {
      const props = Object.keys(s.tools.find((t) => t.name === name).inputSchema.properties);
      if (name === "read_file") continue; // "as read_text_file"
      for (const p of props) assert.match(args, new RegExp("`" + p + "`"), `${name}: ${p} in docs/mcp.md`);
    }
    const read = s.tools.find((t) => t.name === "read_text_file");
    assert.deepEqual(Object.keys(read.inputSchema.properties).sort(), ["head", "path", "tail"]);
    assert.equal(read.annotations.readOnlyHint, true);
    const write = s.tools.find((t) => t.name === "write_file");
    assert.equal(write.annotations.destructiveHint, true);
  });

  test("execute is not listed with --no-execute, nor when the rules deny every command", async () => {
    const a = await open(connectWarder([W.ws], { extra: ["--no-execute"] }));
    assert.ok(!a.tools.some((t) => t.name === "execute"));
    const rules = path.join(W.top, "noexec.yaml");
    fs.writeFileSync(rules, "warder: 1\nextends: default\nexecute:\n  default: deny\n  rules: []\n");
    const b = await open(connectWarder([W.ws], { extra: ["--rules", rules] }));
    assert.ok(!b.tools.some((t) => t.name === "execute"));
    const c = await open(connectWarder([W.ws]));
    assert.ok(c.tools.some((t) => t.name === "execute"), "control: listed with the default preset");
  });

  test("protocol versions 2025-06-18 and 2025-03-26 are answered in kind; others get the newest", async () => {
    for (const [asked, got] of [["2025-06-18", "2025-06-18"], ["2025-03-26", "2025-03-26"],
      ["1999-01-01", "2025-11-25"]]) {
      const r = rawServer(["mcp", "--preset", "default", W.ws]);
      r.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: initParams(asked) });
      const init = await r.answer(1);
      assert.equal(init.result.protocolVersion, got);
      r.send({ jsonrpc: "2.0", method: "notifications/initialized" });
      r.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      const list = await r.answer(2);
      // outputSchema and structuredContent came with 2025-06-18
      assert.equal(list.result.tools.every((t) => !!t.outputSchema), got !== "2025-03-26", asked);
      assert.equal(await r.close(), 0);
    }
  });
});

describe("the guard's cases through MCP", () => {
  let s;
  before(async () => { s = await open(connectWarder([W.ws])); });

  test("an allowed read returns the file", async () => {
    const r = await s.call("read_text_file", { path: "src/main.c" });
    assert.ok(!r.isError, text(r));
    assert.equal(r.structuredContent.content, fs.readFileSync(path.join(W.ws, "src/main.c"), "utf8"));
    assert.equal(text(r), r.structuredContent.content);
  });

  test(".env is denied with the rule, its reason and its source in the text", async () => {
    assert.match(fs.readFileSync(path.join(W.ws, ".env"), "utf8"), /sk-live/, "control: the secret is there");
    const r = await s.call("read_text_file", { path: ".env" });
    assert.equal(r.isError, true);
    const t = text(r);
    assert.match(t, /Denied/);
    assert.match(t, /read:0/);
    assert.match(t, /\*\*\/\.env/);
    assert.match(t, /Protect sensitive files/);
    assert.match(t, /preset:default/);
    assert.doesNotMatch(t, /sk-live/);
    assert.equal(r.structuredContent.decision.action, "deny");
    assert.equal(r.structuredContent.decision.rule.id, "read:0");
    assert.equal(r.structuredContent.error.code, "WARDER_EDENIED");
  });

  test("a symlink to .env is decided on its real form", async () => {
    assert.equal(fs.readFileSync(path.join(W.ws, "notes.txt"), "utf8"), SECRET + "\n",
      "control: a plain read through the link gets the secret");
    const r = await s.call("read_text_file", { path: "notes.txt" });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.decision.form, "real");
    assert.doesNotMatch(JSON.stringify(r), /sk-live/);
  });

  test("'..' spellings of .env are denied, and '..' cannot leave the root", async () => {
    for (const p of ["src/../.env", "./src/lib/../../.env", `${W.ws}/src/../.env`, ".//.env",
      `${W.ws}/./src/./../.env`, "src/lib/../../notes.txt"]) {
      const r = await s.call("read_text_file", { path: p });
      assert.equal(r.isError, true, p);
      assert.doesNotMatch(JSON.stringify(r), /sk-live/, p);
    }
    assert.equal(fs.readFileSync(path.join(W.ws, "../outside.txt"), "utf8"), "outside the root\n",
      "control: the file outside the root exists");
    for (const p of ["../outside.txt", "src/../../outside.txt", `${W.top}/outside.txt`]) {
      const r = await s.call("read_text_file", { path: p });
      assert.equal(r.isError, true, p);
      assert.doesNotMatch(text(r), /outside the root\n/, p);
    }
  });

  test("grep drops the hit in .env", async () => {
    assert.match(sh("grep -rn API_KEY .", W.ws).stdout, /\.env/, "control: grep -r finds .env");
    const r = await s.call("grep", { pattern: "API_KEY" });
    assert.ok(!r.isError, text(r));
    const files = r.structuredContent.matches.map((m) => m.path);
    assert.ok(files.includes(path.join(W.ws, "src/main.c")), JSON.stringify(files));
    assert.ok(!files.some((f) => f.endsWith(".env")), JSON.stringify(files));
    assert.doesNotMatch(JSON.stringify(r), /sk-live/);
    assert.ok(r.structuredContent.hidden_files >= 1);
  });

  test("execute of `cat .env` is denied, and `sh -c` would really print it", async () => {
    assert.match(sh("cat .env", W.ws).stdout, /sk-live/, "control: the shell prints the secret");
    const r = await s.call("execute", { command: "cat .env" });
    assert.equal(r.isError, true);
    assert.match(text(r), /cat \.env/);
    assert.match(text(r), /Protect sensitive files/);
    assert.doesNotMatch(JSON.stringify(r), /sk-live/);
  });

  test("list_directory, directory_tree and search_files answer like the reference's shapes", async () => {
    const ls = await s.call("list_directory", { path: "." });
    assert.match(text(ls), /^\[DIR\] src$/m);
    assert.match(text(ls), /^\[FILE\] README\.md$/m);
    const tree = await s.call("directory_tree", { path: "src" });
    assert.deepEqual(JSON.parse(text(tree)), [
      { name: "lib", type: "directory", children: [{ name: "util.c", type: "file" }] },
      { name: "main.c", type: "file" },
    ]);
    const found = await s.call("search_files", { path: ".", pattern: "**/*.c" });
    assert.deepEqual(text(found).split("\n").sort(),
      [path.join(W.ws, "src/lib/util.c"), path.join(W.ws, "src/main.c")]);
    const none = await s.call("search_files", { path: ".", pattern: "*.nothing" });
    assert.equal(text(none), "No matches found");
    const excl = await s.call("search_files", { path: ".", pattern: "**/*.c", excludePatterns: ["lib"] });
    assert.equal(text(excl), path.join(W.ws, "src/main.c"));
  });

  test("read_multiple_files reads what is allowed and names the rule for the rest", async () => {
    const r = await s.call("read_multiple_files", { paths: ["README.md", ".env"] });
    assert.ok(!r.isError);
    const t = text(r);
    assert.match(t, /^README\.md:\n# demo/);
    assert.match(t, /\n---\n\.env: Error - Denied/);
    assert.doesNotMatch(t, /sk-live/);
    assert.equal(r.structuredContent.files[1].decision.action, "deny");
  });

  test("read_text_file head and tail, and bytes that are not UTF-8", async () => {
    assert.equal(text(await s.call("read_text_file", { path: "README.md", head: 2 })), "# demo\n");
    assert.equal(text(await s.call("read_text_file", { path: "README.md", tail: 2 })), "line 5\n");
    const r = await s.call("read_text_file", { path: "latin1.txt" });
    assert.equal(r.structuredContent.encoding, "base64");
    assert.deepEqual(Buffer.from(r.structuredContent.content, "base64"),
      fs.readFileSync(path.join(W.ws, "latin1.txt")));
  });

  test("list_allowed_directories names the roots", async () => {
    const r = await s.call("list_allowed_directories", {});
    assert.equal(text(r), `Allowed directories:\n${W.ws}`);
  });
});

describe("ask", () => {
  test("accepted through elicitation: performed once, the message names operation, target and rule", async () => {
    const s = await open(connectWarder([W.ws], { elicit: () => ({ action: "accept", content: { approve: true } }) }));
    const target = path.join(W.ws, "src/new.txt");
    const r = await s.call("write_file", { path: "src/new.txt", content: "written\n" });
    assert.ok(!r.isError, text(r));
    assert.equal(fs.readFileSync(target, "utf8"), "written\n");
    assert.equal(s.elicitations.length, 1);
    const m = s.elicitations[0];
    assert.match(m.message, /write/);
    assert.match(m.message, /src\/new\.txt/);
    assert.match(m.message, /write default \(ask\)/);
    assert.equal(m.requestedSchema.properties.approve.type, "boolean");
    fs.rmSync(target);
  });

  test("declined through elicitation: nothing is written", async () => {
    const s = await open(connectWarder([W.ws], { elicit: () => ({ action: "decline" }) }));
    const r = await s.call("write_file", { path: "src/declined.txt", content: "x" });
    assert.equal(r.isError, true);
    assert.match(text(r), /^Declined/);
    assert.equal(r.structuredContent.error.approval, "declined");
    assert.ok(!fs.existsSync(path.join(W.ws, "src/declined.txt")));
    // accept without approve:true is a decline too
    const t = await open(connectWarder([W.ws], { elicit: () => ({ action: "accept", content: { approve: false } }) }));
    const r2 = await t.call("write_file", { path: "src/declined.txt", content: "x" });
    assert.equal(r2.isError, true);
    assert.ok(!fs.existsSync(path.join(W.ws, "src/declined.txt")));
  });

  test("a client without elicitation gets 'approval required' and why", async () => {
    const s = await open(connectWarder([W.ws]));
    const r = await s.call("edit_file", { path: "README.md", edits: [{ oldText: "line 3", newText: "LINE 3" }] });
    assert.equal(r.isError, true);
    assert.match(text(r), /^Approval required/);
    assert.match(text(r), /elicitation/);
    assert.match(text(r), /edit default \(ask\)/);
    assert.equal(r.structuredContent.error.code, "WARDER_EASK");
    assert.match(fs.readFileSync(path.join(W.ws, "README.md"), "utf8"), /line 3/);
  });

  test("an elicitation that gets no answer in time is a decline", async () => {
    const s = await open(connectWarder([W.ws], {
      extra: ["--elicitation-timeout", "0.5"],
      elicit: () => new Promise((resolve) => setTimeout(() => resolve({ action: "accept", content: { approve: true } }), 3000)),
    }));
    const r = await s.call("write_file", { path: "src/late.txt", content: "x" });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.error.approval, "timeout");
    await sleep(3000); // the late accept arrives, and changes nothing
    assert.ok(!fs.existsSync(path.join(W.ws, "src/late.txt")));
  });

  test("an ask rule on read, and an edit accepted: the diff is returned and the file changed", async () => {
    const rules = rulesFile();
    fs.writeFileSync(path.join(W.ws, "q.ask"), "a question\n");
    const s = await open(connectWarder([W.ws], {
      extra: ["--rules", rules], elicit: () => ({ action: "accept", content: { approve: true } }),
    }));
    const r = await s.call("read_text_file", { path: "q.ask" });
    assert.equal(text(r), "a question\n");
    assert.match(s.elicitations[0].message, /Ask before reading questions/);
    const e = await s.call("edit_file", { path: "README.md", edits: [{ oldText: "line 4", newText: "LINE 4" }] });
    assert.ok(!e.isError, text(e));
    assert.match(text(e), /-line 4\n\+LINE 4/);
    assert.match(fs.readFileSync(path.join(W.ws, "README.md"), "utf8"), /LINE 4/);
    fs.writeFileSync(path.join(W.ws, "README.md"), "# demo\n\nline 3\nline 4\nline 5\n");
  });
});

describe("execute", () => {
  test("cancelling `sleep` kills its process group and sends no answer", async () => {
    const s = await open(connectWarder([W.ws], { extra: ["--rules", rulesFile()] }));
    const ac = new AbortController();
    const needle = "sleep 31.4159";
    const call = s.call("execute", { command: needle }, { signal: ac.signal });
    let seen = [];
    for (let i = 0; i < 50 && !seen.length; i++) { await sleep(100); seen = processesWith(needle); }
    assert.ok(seen.length > 0, "control: the command is running");
    ac.abort();
    await assert.rejects(call);
    for (let i = 0; i < 50 && processesWith(needle).length; i++) await sleep(100);
    assert.deepEqual(processesWith(needle), [], "nothing of the command is left");
    // the server keeps serving
    const r = await s.call("execute", { command: "echo still here" });
    assert.match(text(r), /still here/);
    assert.equal(r.structuredContent.exit_status, 0);
  });

  test("progress notifications while a command runs, when the client asked for them", async () => {
    const s = await open(connectWarder([W.ws], { extra: ["--rules", rulesFile()] }));
    const progress = [];
    const r = await s.call("execute", { command: "sleep 1.6" }, { onprogress: (p) => progress.push(p) });
    assert.ok(!r.isError, text(r));
    assert.ok(progress.length >= 1, "at least one progress notification");
    assert.match(progress[0].message, /execute: running/);
  });
});

describe("several roots", () => {
  test("--root may be repeated, before or after the command's name, in the order given", async () => {
    for (const args of [["--root", W.ws, "mcp", "--preset", "default", "--root", W.other],
                        ["mcp", "--preset", "default", "--root", W.ws, "--root", W.other],
                        ["mcp", "--preset", "default", "--root", W.ws, W.other]]) {
      const s = await open(connect(cli, args));
      assert.equal(text(await s.call("list_allowed_directories", {})),
                   `Allowed directories:\n${W.ws}\n${W.other}`, args.join(" "));
    }
  });

  test("each root is served, a link from one root into another is refused, outside is refused", async () => {
    const s = await open(connectWarder([W.ws, W.other]));
    assert.equal(text(await s.call("list_allowed_directories", {})), `Allowed directories:\n${W.ws}\n${W.other}`);
    const hello = await s.call("read_text_file", { path: path.join(W.other, "hello.txt") });
    assert.equal(text(hello), "hello from the other root\n");
    assert.equal(fs.readFileSync(path.join(W.other, "env-link"), "utf8"), SECRET + "\n", "control");
    const link = await s.call("read_text_file", { path: path.join(W.other, "env-link") });
    assert.equal(link.isError, true);
    assert.doesNotMatch(JSON.stringify(link), /sk-live/);
    const rel = await s.call("read_text_file", { path: "README.md" }); // the first root
    assert.match(text(rel), /# demo/);
    const out = await s.call("read_text_file", { path: path.join(W.top, "outside.txt") });
    assert.equal(out.isError, true);
  });
});

describe("hostile client input", () => {
  test("wrong types, missing arguments, unknown tools and arguments: clear errors, nothing touched", async () => {
    const before = snapshot(W.top);
    const s = await open(connectWarder([W.ws]));
    const cases = [
      ["read_text_file", { path: 5 }, /"path" must be a string/],
      ["read_text_file", {}, /"path" is required/],
      ["read_text_file", { path: "README.md", head: -1 }, /"head" must be a whole number/],
      ["read_text_file", { path: "README.md", head: 1, tail: 1 }, /Cannot specify both head and tail/],
      ["write_file", { path: "x.txt" }, /"content" is required/],
      ["write_file", { path: "x.txt", content: { a: 1 } }, /"content" must be a string/],
      ["edit_file", { path: "README.md", edits: "nope" }, /"edits" must be an array/],
      ["edit_file", { path: "README.md", edits: [{ oldText: 1, newText: "" }] }, /not a string/],
      ["read_multiple_files", { paths: [] }, /"paths" must hold from 1/],
      ["grep", { pattern: "a", extra: true }, /unknown argument "extra"/],
      ["read_text_file", { path: "a\u0000b" }, /WARDER_EINVAL/],
      ["read_text_file", { path: ".env\u0000.txt" }, /WARDER_EINVAL/],
      ["grep", { pattern: "(" }, /Error/],
    ];
    for (const [name, args, re] of cases) {
      const r = await s.call(name, args);
      assert.equal(r.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.match(text(r), re, `${name} ${JSON.stringify(args)}`);
    }
    await assert.rejects(s.call("no_such_tool", {}), /Unknown tool/);
    assert.deepEqual(snapshot(W.top), before, "nothing was touched");
  });

  test("raw lines: calls before initialize, a 100 MB line, invalid UTF-8, NUL; the server keeps serving", async () => {
    const before = snapshot(W.top);
    const r = rawServer(["mcp", "--preset", "default", W.ws]);
    r.send({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "read_text_file", arguments: { path: ".env" } } });
    const early = await r.answer(1);
    assert.equal(early.error.code, -32600);
    assert.match(early.error.message, /not initialized/);
    r.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    assert.equal((await r.answer(2)).error.code, -32600);
    r.send({ jsonrpc: "2.0", id: 3, method: "ping" }); // ping is allowed at any time
    assert.deepEqual((await r.answer(3)).result, {});
    r.send({ jsonrpc: "2.0", id: 4, method: "initialize", params: initParams() });
    assert.equal((await r.answer(4)).result.protocolVersion, "2025-11-25");
    r.send({ jsonrpc: "2.0", id: 5, method: "initialize", params: initParams() });
    assert.equal((await r.answer(5)).error.code, -32600, "a second initialize");
    r.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    // 100 MB on one line: refused as it crosses the limit, the rest discarded
    const big = Buffer.alloc(100 << 20, 0x61);
    await r.writeRaw(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":6,"method":"ping","x":"'), big, Buffer.from('"}\n')]));
    const refused = await r.next((m) => m.error && /longer than/.test(m.error.message), 60000);
    assert.equal(refused.error.code, -32600);
    // bytes that are not UTF-8 in a line
    await r.writeRaw(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"'),
      Buffer.from([0xff, 0xfe]), Buffer.from('"}}}\n')]));
    assert.equal((await r.next((m) => m.error && m.error.code === -32700)).error.code, -32700);
    r.send({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "read_text_file", arguments: { path: "\u0000" } } });
    assert.equal((await r.answer(8)).result.isError, true);
    r.send({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: 42 } });
    assert.equal((await r.answer(9)).error.code, -32602);
    r.send({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "read_text_file", arguments: [] } });
    assert.equal((await r.answer(10)).error.code, -32602);
    r.send({ jsonrpc: "2.0", id: 13, method: "notifications/cancelled", params: { requestId: 1 } });
    assert.equal((await r.answer(13)).error.code, -32600, "a notification sent with an id");
    r.send({ jsonrpc: "2.0", id: 11, method: "resources/list" });
    assert.equal((await r.answer(11)).error.code, -32601);
    r.send({ jsonrpc: "2.0", id: 12, method: "tools/call", params: { name: "read_text_file", arguments: { path: "README.md" } } });
    const ok = await r.answer(12);
    assert.match(ok.result.content[0].text, /# demo/, "still serving");
    assert.equal(await r.close(), 0);
    assert.doesNotMatch(r.stderr(), /Sanitizer|runtime error/);
    assert.deepEqual(snapshot(W.top), before, "nothing was touched");
  });
});

describe("side by side with the reference filesystem server", () => {
  test("the same calls: the reference returns .env, warder refuses; an ordinary file is the same", async () => {
    const ref = await open(connectReference([W.ws]));
    const war = await open(connectWarder([W.ws]));
    const refEnv = await ref.call("read_text_file", { path: path.join(W.ws, ".env") });
    assert.equal(text(refEnv), SECRET + "\n", "the reference server hands out the secret");
    const warEnv = await war.call("read_text_file", { path: path.join(W.ws, ".env") });
    assert.equal(warEnv.isError, true);
    assert.doesNotMatch(JSON.stringify(warEnv), /sk-live/);
    const refLink = await ref.call("read_text_file", { path: path.join(W.ws, "notes.txt") });
    assert.equal(text(refLink), SECRET + "\n", "the reference follows the link to the secret");
    assert.equal((await war.call("read_text_file", { path: path.join(W.ws, "notes.txt") })).isError, true);
    for (const [name, args] of [
      ["read_text_file", { path: path.join(W.ws, "src/main.c") }],
      ["read_file", { path: path.join(W.ws, "src/main.c") }],
      ["read_text_file", { path: path.join(W.ws, "README.md"), head: 3 }],
      ["read_text_file", { path: path.join(W.ws, "README.md"), tail: 2 }],
      ["write_file", { path: path.join(W.ws, "side.txt"), content: "x" }],
      ["edit_file", { path: path.join(W.ws, "README.md"), edits: [{ oldText: "line 4", newText: "LINE 4" }], dryRun: true }],
      ["read_multiple_files", { paths: [path.join(W.ws, "README.md"), path.join(W.ws, "src/lib/util.c")] }],
    ]) {
      const a = await ref.call(name, args);
      const b = await war.call(name, args);
      if (name === "write_file") {
        // warder asks before a write under the default preset; the reference just writes
        assert.equal(text(a), `Successfully wrote to ${args.path}`);
        assert.match(text(b), /^Approval required/);
        continue;
      }
      assert.ok(!a.isError && !b.isError, `${name}: ${text(a)} / ${text(b)}`);
      assert.equal(text(b), text(a), name);
    }
    const la = (await ref.call("list_directory", { path: path.join(W.ws, "src") }));
    const lb = (await war.call("list_directory", { path: path.join(W.ws, "src") }));
    assert.deepEqual(text(lb).split("\n").sort(), text(la).split("\n").sort());
    assert.equal(text(await war.call("list_allowed_directories", {})), text(await ref.call("list_allowed_directories", {})));
  });
});
