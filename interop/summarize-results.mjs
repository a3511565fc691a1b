#!/usr/bin/env node
// summarize-results.mjs RESULTS_JSON: print a line of counts per transport and
// version of an mcpconform results.json (passed / failed / warnings /
// skipped / errors), then every check that failed, warned or was not judged.
// Used by the interop scripts that judge a client or a protected or
// authorization server.
import { readFileSync } from 'node:fs';

const results = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const rows = new Map();
const bad = [];
for (const s of results.scenarios ?? []) {
  const key = `${s.transport} ${s.specVersion}`;
  const row = rows.get(key) ?? { passed: 0, failed: 0, warning: 0, skipped: 0, error: 0 };
  for (const c of s.checks ?? []) {
    row[c.status in row ? c.status : 'error']++;
    // results.json writes "errored" for a check that could not be judged.
    if (['failed', 'warning', 'error', 'errored'].includes(c.status)) {
      const msg = (c.message ?? '').split('\n').join(' / ').slice(0, 240);
      bad.push(`  ${c.status.toUpperCase()} ${key} ${c.level} ${c.id}: ${msg}`);
    }
  }
  rows.set(key, row);
}
for (const [key, r] of rows) {
  console.log(`  ${key}: ${r.passed} passed, ${r.failed} failed, ${r.warning} warnings, ${r.skipped} skipped, ${r.error} errors`);
}
for (const line of bad) console.log(line);
