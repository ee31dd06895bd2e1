import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import plugin from '../src/index.js';

const docsDir = fileURLToPath(new URL('../docs/rules/', import.meta.url));

describe('plugin object', () => {
  it('has flat-config meta and the recommended config, with files for JavaScript and TypeScript', () => {
    expect(plugin.meta.name).toBe('eslint-plugin-fencelint');
    expect(plugin.meta.version).toBe(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
    expect(plugin.configs.recommended.plugins.fencelint).toBe(plugin);
    expect(plugin.configs.recommended.files).toEqual(['**/*.{js,mjs,cjs,jsx,ts,mts,cts,tsx}']);
    // `all` meant what `recommended` means; one name for one set.
    expect(Object.keys(plugin.configs)).toEqual(['recommended']);
  });

  for (const [name, rule] of Object.entries(plugin.rules)) {
    describe(name, () => {
      it('has a description, a docs URL and a docs page', () => {
        expect(rule.meta.docs?.description).toMatch(/^[A-Z]/);
        expect(rule.meta.docs?.url).toMatch(new RegExp(`/${name}\\.md$`));
        expect(existsSync(`${docsDir}${name}.md`)).toBe(true);
      });
      it('describes every option', () => {
        for (const schema of [rule.meta.schema].flat()) {
          const properties = (schema as { properties?: Record<string, { description?: string }> }).properties ?? {};
          for (const [option, spec] of Object.entries(properties)) expect(spec.description, option).toBeTruthy();
        }
      });
      it('is in recommended when its docs say so', () => {
        const recommended = `fencelint/${name}` in plugin.configs.recommended.rules;
        expect(recommended).toBe(rule.meta.docs?.recommended === true);
      });
    });
  }
});
