#!/usr/bin/env node
// verdicts.mjs RESULTS_JSON: one line per judged check of an mcpconform
// results.json, "transport version check-id status", sorted, for
// interop/expected.sh to compare with the expected results.
import { readFileSync } from 'node:fs';

const results = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const lines = [];
for (const s of results.scenarios ?? []) {
  for (const c of s.checks ?? []) lines.push(`${s.transport} ${s.specVersion} ${c.id} ${c.status}`);
}
console.log(lines.sort().join('\n'));
