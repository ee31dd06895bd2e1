import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// This package is CommonJS (VS Code loads the client with require), so no import.meta here.
const root = join(__dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const properties: Record<string, { description?: string; markdownDescription?: string; default?: unknown }> =
  manifest.contributes.configuration.properties;
const sources = ['src/extension.ts', ...readdirSync(join(root, 'src/commands')).map((f) => `src/commands/${f}`)]
  .map((file) => readFileSync(join(root, file), 'utf8'))
  .join('\n');

describe('extension manifest', () => {
  it('describes every setting the language server reads', () => {
    for (const setting of ['enable', 'run', 'rules', 'tokenColumn', 'models', 'useWorkspaceConfig', 'fixAll.includeSuggestions']) {
      const property = properties[`fencelint.${setting}`];
      expect(property, `fencelint.${setting}`).toBeDefined();
      expect(property.description ?? property.markdownDescription, `fencelint.${setting}`).toMatch(/\w{4,}/);
      expect(property, `fencelint.${setting} needs a default`).toHaveProperty('default');
    }
  });

  it('fencelint.models carries the schema of settings.fencelint, so the settings editor checks locks, sinks and token sources too', async () => {
    const { SETTINGS_SCHEMA } = await import('../../rules/src/core/settings-schema.js');
    const models = manifest.contributes.configuration.properties['fencelint.models'];
    expect(models.properties).toEqual(JSON.parse(JSON.stringify(SETTINGS_SCHEMA.properties)));
    expect(models.additionalProperties).toBe(false);
    // The description promises what the schema has, no more.
    for (const key of ['locks', 'sinks', 'tokenSources', 'tokenColumn', 'project']) expect(models.markdownDescription).toContain(`\`${key}\``);
    for (const key of Object.keys(models.properties)) expect(models.markdownDescription).toContain(`\`${key}\``);
  });

  it('leaves tokenColumn empty by default so the rule can infer the column from the file', () => {
    expect(properties['fencelint.tokenColumn'].default).toBe('');
  });

  it('restricts in untrusted folders every setting that changes what gets reported or runs workspace code', () => {
    const trust = manifest.capabilities.untrustedWorkspaces;
    expect(trust.supported).toBe('limited');
    expect(trust.restrictedConfigurations).toEqual(
      expect.arrayContaining(['fencelint.rules', 'fencelint.tokenColumn', 'fencelint.models', 'fencelint.useWorkspaceConfig']),
    );
    for (const restricted of trust.restrictedConfigurations) expect(Object.keys(properties)).toContain(restricted);
  });

  it('registers every contributed command, titled "Fencelint: …" in the palette', () => {
    const titles = manifest.contributes.commands.map((c: { category: string; title: string }) => `${c.category}: ${c.title}`);
    expect(titles).toEqual(
      expect.arrayContaining(['Fencelint: Lint workspace', 'Fencelint: Show token flow', 'Fencelint: Restart server', 'Fencelint: Open rule documentation']),
    );
    for (const { command } of manifest.contributes.commands) expect(sources).toContain(`registerCommand('${command}'`);
  });

  it('enables the runtime check, which runs the workspace\'s own checker, in trusted workspaces only', () => {
    const command = manifest.contributes.commands.find((c: { command: string }) => c.command === 'fencelint.runtimeCheck');
    expect(`${command.category}: ${command.title}`).toBe('Fencelint: Confirm with runtime check');
    expect(command.enablement).toBe('isWorkspaceTrusted');
    for (const item of manifest.contributes.menus['editor/context'].filter((m: { command: string }) => m.command === 'fencelint.runtimeCheck')) {
      expect(item.when).toContain('isWorkspaceTrusted');
    }
  });

  it('ships the docs pages of this version, for "Show documentation" offline', () => {
    const pages = readdirSync(join(root, '../rules/docs/rules'));
    expect(pages.length).toBeGreaterThan(0);
    for (const page of pages) expect(readFileSync(join(root, 'dist/docs/rules', page), 'utf8')).toBe(readFileSync(join(root, '../rules/docs/rules', page), 'utf8'));
    expect(readFileSync(join(root, '.vscodeignore'), 'utf8')).toMatch(/^!dist\/docs\/\*\*$/m);
    expect(sources).toContain("executeCommand('markdown.showPreview', page)");
  });

  it('never registers a command id the server announces itself', () => {
    expect(sources).not.toContain("registerCommand('fencelint.server.");
  });

  it('loads the CommonJS client bundle and activates on the linted languages', () => {
    expect(manifest.main).toBe('./dist/client.js');
    expect(manifest.engines.vscode).toBe('^1.91.0');
    expect(manifest.activationEvents).toEqual(
      expect.arrayContaining(['onLanguage:typescript', 'onLanguage:typescriptreact', 'onLanguage:javascript', 'onLanguage:javascriptreact']),
    );
  });
});
