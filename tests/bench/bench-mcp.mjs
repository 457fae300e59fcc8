// SPDX-License-Identifier: MIT
// tools/call round trip of read_text_file on a 4 KiB file: warder mcp against the reference
// filesystem server, through the same SDK client, in the same run. Prints per-call medians,
// p99 and the ratio; asserts nothing on time.
// Usage: node tests/bench/bench-mcp.mjs [CALLS]   (WARDER_CLI names the warder binary)
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";

import { connectReference, connectWarder, makeWorkspace, requireModules, text } from "../mcp/harness.mjs";

requireModules();
const calls = Number(process.argv[2] || 2000);
const W = makeWorkspace();
const file = path.join(W.ws, "4k.txt");
const line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"; // 64 bytes
fs.writeFileSync(file, line.repeat(64));

async function rounds(name, server, n, into) {
  const args = { path: file };
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const r = await server.call("read_text_file", args);
    into.push(performance.now() - start);
    if (text(r) !== expect) throw new Error(`${name}: wrong content`);
  }
}

function report(name, t) {
  t.sort((a, b) => a - b);
  const q = (p) => t[Math.min(t.length - 1, Math.floor(p * t.length))] * 1000;
  const r = { name, p50: q(0.5), p99: q(0.99), rps: 1000 / (t.reduce((a, b) => a + b, 0) / t.length) };
  console.log(`${name.padEnd(10)} p50 ${r.p50.toFixed(1).padStart(7)} us   p99 ${r.p99.toFixed(1).padStart(8)} us   ${r.rps.toFixed(0).padStart(6)} calls/s`);
  return r;
}

const expect = fs.readFileSync(file, "utf8");
const war = await connectWarder([W.ws]);
const ref = await connectReference([W.ws]);
console.log(`read_text_file of a 4096-byte file, ${calls} calls each, one SDK client (stdio),`);
console.log("in alternating rounds of 100 so that a busy machine weighs on both alike");
const tw = [], tr = [];
await rounds("warder", war, 200, []); // warm up
await rounds("reference", ref, 200, []);
for (let done = 0; done < calls; done += 100) {
  await rounds("warder", war, 100, tw);
  await rounds("reference", ref, 100, tr);
}
await war.close();
await ref.close();
const a = report("warder", tw), b = report("reference", tr);
console.log(`reference / warder: p50 ${(b.p50 / a.p50).toFixed(2)}x, calls/s ${(a.rps / b.rps).toFixed(2)}x (target >= 3x)`);
W.cleanup();
