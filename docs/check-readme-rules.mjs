#!/usr/bin/env node
// Keeps the README's rules table true to the plugin: one row per rule, the recommended
// and suggestions columns as the rule's meta and the recommended config say, and a docs
// page behind every link. Exit 1 on any drift. Run after `npm run build`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const plugin = (await import('eslint-plugin-fencelint')).default;
const readme = readFileSync(join(root, 'README.md'), 'utf8');

// | [`rule-name`](rules/docs/rules/rule-name.md) | what | ✅ | ✅ |
const ROW = /^\|\s*\[`([\w-]+)`\]\(([^)]+)\)\s*\|[^|]*\|\s*([^|]*?)\s*\|\s*([^|]*?)\s*\|\s*$/;
const rows = new Map();
for (const line of readme.split('\n')) {
  const match = ROW.exec(line);
  if (match) rows.set(match[1], { link: match[2], recommended: match[3] !== '', suggestions: match[4] !== '' });
}

const recommended = new Set(Object.keys(plugin.configs.recommended.rules).map((id) => id.replace(/^fencelint\//, '')));
const problems = [];
for (const [name, rule] of Object.entries(plugin.rules)) {
  const row = rows.get(name);
  if (!row) {
    problems.push(`${name}: in the plugin, missing from the README table`);
    continue;
  }
  if (row.recommended !== recommended.has(name)) problems.push(`${name}: README says recommended=${row.recommended}, the config says ${recommended.has(name)}`);
  const hasSuggestions = rule.meta?.hasSuggestions === true;
  if (row.suggestions !== hasSuggestions) problems.push(`${name}: README says suggestions=${row.suggestions}, meta.hasSuggestions is ${hasSuggestions}`);
  if (!existsSync(join(root, row.link))) problems.push(`${name}: docs page ${row.link} does not exist`);
}
for (const name of rows.keys()) {
  if (!(name in plugin.rules)) problems.push(`${name}: in the README table, not in the plugin`);
}

for (const problem of problems) console.log(`README rules table: ${problem}`);
console.log(`README rules table: ${rows.size} rows, ${Object.keys(plugin.rules).length} rules, ${problems.length} problems`);
process.exit(problems.length === 0 ? 0 : 1);
