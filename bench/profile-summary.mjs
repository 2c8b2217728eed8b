#!/usr/bin/env node
/**
 * Where a .cpuprofile spends its time: self time by function (top N), and total time by file
 * (grouped: this project's dist/ files by name, node_modules by package, node internals).
 *
 *   node bench/profile-summary.mjs FILE.cpuprofile [N]
 */
import { readFileSync } from 'node:fs';

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.mjs FILE.cpuprofile [N]');
  process.exit(2);
}
const top = Number(topArg ?? 25);
const profile = JSON.parse(readFileSync(file, 'utf8'));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const id = profile.samples[i];
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

function place(url) {
  if (!url) return '(native/V8)';
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist && !url.includes('node_modules')) return `dist/${dist[1]}`;
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1];
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\/.*\/(bench\/)/, '$1');
}

const fnSelf = new Map();
const fileSelf = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const where = place(callFrame.url);
  const name = `${callFrame.functionName || '(anonymous)'}  ${where}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
  fnSelf.set(name, (fnSelf.get(name) ?? 0) + us);
  fileSelf.set(where, (fileSelf.get(where) ?? 0) + us);
}

const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
const ms = (us) => `${(us / 1000).toFixed(0).padStart(7)} ms`;
console.log(`${file}: ${(totalUs / 1000).toFixed(0)} ms sampled\n\nself time by function (top ${top}):`);
for (const [name, us] of [...fnSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)} ${pct(us)}  ${name}`);
console.log('\nself time by file or package:');
for (const [name, us] of [...fileSelf].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)} ${pct(us)}  ${name}`);

// Total (inclusive) time of this project's own functions: what each step of a request costs with
// everything it calls. Async continuations appear as their own roots, so a function's figure is
// the synchronous work under it, per resumption.
const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const fnTotal = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const { callFrame } = byId.get(cur);
    const where = place(callFrame.url);
    if (!where.startsWith('dist/')) continue;
    const name = `${callFrame.functionName || '(anonymous)'}  ${where}:${callFrame.lineNumber + 1}`;
    if (seen.has(name)) continue;
    seen.add(name);
    fnTotal.set(name, (fnTotal.get(name) ?? 0) + us);
  }
}
console.log(`\ntotal time of the project's functions (top ${top}):`);
for (const [name, us] of [...fnTotal].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${ms(us)} ${pct(us)}  ${name}`);
