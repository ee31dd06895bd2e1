import { it } from 'vitest';
import { project } from './project-helpers.js';
import { readFileSync } from 'node:fs';

it('scratch', async () => {
  const files = JSON.parse(readFileSync('/tmp/scr/files.json', 'utf8'));
  const p = project(files);
  try {
    const results = await p.lint(...Object.keys(files).filter((f) => !f.endsWith('.json')));
    for (const [file, messages] of results) for (const m of messages) console.log(`${file}:${m.line} ${m.ruleId} ${m.message}`);
  } finally {
    p.remove();
  }
});
