// The packaged extension in code-server (VS Code 1.100), driven through Debian's Chromium.
// code-server is already running (run.sh starts it once per suite); every scenario gets a
// fresh copy of the fixture folder and a fresh browser profile, and keeps a screenshot of
// each step in $E2E_ARTIFACTS. One result line per scenario goes to $E2E_RESULTS.
//
//   E2E_PORT=8931 E2E_RUN=<dir> E2E_ARTIFACTS=<dir> E2E_RESULTS=<file> node vscode/scenarios.mjs
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const PORT = required('E2E_PORT');
const RUN = required('E2E_RUN');
const ARTIFACTS = required('E2E_ARTIFACTS');
const RESULTS = required('E2E_RESULTS');
const FIXTURE = resolve(fileURLToPath(import.meta.url), '../../fixture');
/** A write whose parameters the analysis cannot all name: the runtime check asks for their roles. */
const ROLES_FIXTURE = resolve(fileURLToPath(import.meta.url), '../../fixture-roles');
const FILE = 'save-resource.ts';
const RULE = 'fencelint/require-fence-condition';
// The preferred quick fix of fencelint/require-fence-condition, and the fixture after it:
// the condition in the WHERE, the token stored in SET, the token appended to the parameters.
const QUICK_FIX_TITLE = /Compare and store `fence_token` with `fenceToken` in this write/;
const FIXED_CONDITION = 'AND fence_token < $3';
const RUNTIME_CHECK_TITLE = 'Confirm with runtime check';
/** The repository's checker (built by the root `npm run build`), installed into a workspace as npm would link it. */
const CHECKER = resolve(fileURLToPath(import.meta.url), '../../../checker');
const EXPECTED_FIXED = readFileSync(resolve(fileURLToPath(import.meta.url), '../../expected', FILE), 'utf8');

function required(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}

/** Copies the fixture into a fresh folder, so a fix applied by one run never leaks into the next. */
function freshWorkspace(name, fixture = FIXTURE) {
  const dir = join(RUN, 'workspaces', name);
  mkdirSync(dir, { recursive: true });
  cpSync(fixture, dir, { recursive: true });
  return dir;
}

/** Folder settings that turn fencelint's rule off; honoured only in a trusted folder. */
function turnRuleOffInFolder(workspace) {
  mkdirSync(join(workspace, '.vscode'), { recursive: true });
  writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'fencelint.rules': { [RULE]: 'off' } }, null, 2));
}

/**
 * Opens the folder in a fresh browser profile and answers VS Code's workspace trust prompt
 * (workspace trust is on in this suite, so the untrusted case is tested for real).
 */
async function openWorkbench(workspace, { trust = true } = {}) {
  const context = await chromium.launchPersistentContext(mkdtempSync(join(RUN, 'chromium-')), {
    executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`http://127.0.0.1:${PORT}/?folder=${encodeURIComponent(workspace)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  const answer = trust ? 'Yes, I trust the authors' : "No, I don't trust the authors";
  await page.getByRole('button', { name: answer }).click({ timeout: 60_000 });
  await page.locator('#status\\.problems').waitFor({ timeout: 60_000 });
  return { context, page };
}

/**
 * Opens a file through Quick Open. Right after another editor opens, the shortcut can be lost
 * while the editor takes focus (the quick input never shows): close and press it again.
 */
async function openFile(page, name) {
  const input = page.locator('.quick-input-widget input');
  await until(`Quick Open to find ${name}`, async () => {
    await page.keyboard.press('Control+P');
    try {
      await input.waitFor({ state: 'visible', timeout: 5_000 });
      await input.fill(name);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: 10_000 });
      return true;
    } catch (error) {
      await page.keyboard.press('Escape');
      throw error;
    }
  }, 90_000);
  await page.keyboard.press('Enter');
  await page.locator(`.tab[aria-label*="${name}"]`).waitFor({ timeout: 30_000 });
}

/**
 * Runs a command from the palette (Quick Open in command mode), as a user would. Right after
 * the window loads, contributed commands may not be listed yet: close and retry until they are.
 */
async function runCommand(page, title) {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  await until(`"${title}" in the command palette`, async () => {
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill(`>${title}`);
    try {
      await row.waitFor({ timeout: 3_000 });
      return true;
    } catch (error) {
      await page.keyboard.press('Escape');
      throw error;
    }
  }, 60_000);
  await page.keyboard.press('Enter');
}

/** fencelint's status bar item; VS Code prefixes the item id with the extension id. */
const statusItem = (page) => page.locator('.statusbar-item[id$="fencelint.status"] a').first();

/** Polls until check() returns a truthy value; the last error explains a timeout. */
/**
 * Opens the Problems panel, pressing its shortcut again until the panel shows: pressed while
 * the Output view is taking focus, the shortcut is sometimes lost on a loaded machine.
 */
async function openProblems(page, timeoutMs = 60_000) {
  const panel = page.locator('.markers-panel');
  await until('the Problems panel', async () => {
    if (await panel.isVisible()) return true;
    await page.keyboard.press('Control+Shift+M');
    await panel.waitFor({ state: 'visible', timeout: 5_000 });
    return true;
  }, timeoutMs);
}

/**
 * Waits for Problems-panel rows holding `text` and returns their locator. A list laid out while
 * another view held the panel can stay empty after it shows (seen on loaded machines): when the
 * rows do not come, close the panel and open it again so it renders afresh.
 */
async function problemRows(page, text, timeoutMs = 90_000) {
  const rows = page.locator('.markers-panel .monaco-list-row', { hasText: text });
  let misses = 0;
  await until(`a "${text}" row in the Problems panel`, async () => {
    await openProblems(page, 30_000);
    if ((await rows.count()) > 0) return true;
    if (++misses % 15 === 0) {
      await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel').waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => {});
    }
    const status = await page.locator('#status\\.problems').getAttribute('aria-label').catch(() => null);
    throw new Error(`none yet (status bar: ${status ?? 'unknown'})`);
  }, timeoutMs);
  return rows;
}

async function until(what, check, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

const squiggle = (page) => page.locator('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error').first();

async function centerOf(locator) {
  const box = await locator.boundingBox();
  if (!box) throw new Error('element has no box');
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** The text of every frame of the page (webviews are nested iframes) that contains `text`. */
async function frameWithText(page, text) {
  for (const frame of page.frames()) {
    const body = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
    if (body.includes(text)) return { frame, body };
  }
  return undefined;
}

/** Folder settings and files some scenarios need before the window opens (trusted folders only). */
const preparations = {
  'workspace ESLint config'(workspace) {
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'fencelint.useWorkspaceConfig': true }, null, 2));
    // The project's own ESLint config lints TypeScript but ignores generated code.
    writeFileSync(join(workspace, 'eslint.config.mjs'), "export default [{ ignores: ['src/generated/**'] }, { files: ['**/*.ts'] }];\n");
    mkdirSync(join(workspace, 'src', 'generated'), { recursive: true });
    cpSync(join(workspace, 'src', FILE), join(workspace, 'src', 'generated', 'resource-copy.ts'));
  },
  'misspelt rule name'(workspace) {
    mkdirSync(join(workspace, '.vscode'), { recursive: true });
    writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'fencelint.rules': { 'fencelint/require-fence-conditon': 'off' } }, null, 2));
  },
  'large document'(workspace) {
    writeFileSync(join(workspace, 'src', LARGE_FILE), largeService(360));
  },
};

const LARGE_FILE = 'large-service.ts';

/** A service module over 256 KB (the size the server lints on its worker thread): unfenced saves beside validation code. */
function largeService(copies) {
  const parts = ["import Redlock from 'redlock';\nimport { Pool } from 'pg';\nconst pool = new Pool();\nconst redlock = new Redlock([]);\n"];
  for (let i = 0; i < copies; i++) {
    parts.push(`
export function checkInput${i}(input: { key: string; value: string }): string[] {
  const problems: string[] = [];
  if (input.key.length === 0) problems.push('key ${i} is empty');
  if (input.key.length > 128) problems.push('key ${i} is longer than 128 characters');
  if (input.value.length > 10_000) problems.push('value ${i} is longer than 10,000 characters');
  if (/\\s/.test(input.key)) problems.push('key ${i} contains white space');
  return problems;
}

export async function save${i}(key: string, value: string) {
  const lock = await redlock.acquire([\`lock:${i}:\${key}\`], 5000);
  try {
    await pool.query('UPDATE resource_state SET value = $1 WHERE resource_key = $2', [value, key]);
  } finally { await lock.release(); }
}
`);
  }
  return parts.join('');
}

/** The text of fencelint's output channel (opened from the palette). */
async function outputText(page) {
  const output = page.locator('.output-view .monaco-editor .view-lines').first();
  // Long lines wrap: one space for any run of white space, line breaks included.
  return (await output.innerText()).replace(/[\s\u00a0]+/g, ' ');
}

const scenarios = {
  /** The extension activates on a TypeScript file, starts its server, and the status bar reports a finished lint. */
  async 'vscode: the extension activates and the status bar reports the lint'({ page, shot }) {
    await openFile(page, FILE);
    const label = await until('the status bar to report a finished lint', async () => {
      const text = await statusItem(page).getAttribute('aria-label');
      return text && /^fencelint idle, last lint: save-resource\.ts in \d+ ms/.test(text) ? text : undefined;
    }, 60_000);
    await shot('status-bar');
    return label;
  },

  /** Restricted Mode: the extension still runs (limited support) and ignores the folder's severities. */
  async 'vscode: untrusted folder: the folder settings are ignored and the finding shows'({ page, shot, workspace }) {
    await page.locator('#status\\.workspaceTrust, .statusbar-item[aria-label*="Restricted Mode"]').first().waitFor({ timeout: 30_000 });
    await openFile(page, FILE);
    await squiggle(page).waitFor({ timeout: 60_000 });
    await problemRows(page, RULE);
    await shot('restricted-mode-finding');
    return 'Restricted Mode, rule turned off in .vscode/settings.json, finding shown';
  },

  /** In Restricted Mode the lightbulb on the finding offers the fixes but not the runtime check, which runs workspace code. */
  async 'vscode: untrusted folder: Confirm with runtime check is not offered'({ page, shot }) {
    await openFile(page, FILE);
    const underline = squiggle(page);
    await underline.waitFor({ timeout: 60_000 });
    const fixRow = page.locator('.action-widget .monaco-list-row', { hasText: QUICK_FIX_TITLE }).first();
    for (let attempt = 1; ; attempt++) {
      await page.mouse.click(...Object.values(await centerOf(underline)));
      await page.keyboard.press('Control+.');
      try {
        await fixRow.waitFor({ timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await page.keyboard.press('Escape');
      }
    }
    await shot('menu-without-runtime-check');
    const offered = await page.locator('.action-widget .monaco-list-row', { hasText: RUNTIME_CHECK_TITLE }).count();
    if (offered !== 0) throw new Error('"Confirm with runtime check" is offered in Restricted Mode');
    return 'fence fix offered, runtime check not offered';
  },

  /** The same folder settings, trusted: the rule is off, the lint finishes and reports nothing. */
  async 'vscode: trusted folder: the folder settings turn the rule off'({ page, shot }) {
    await openFile(page, FILE);
    await until('the status bar to report a finished lint', async () =>
      /last lint: save-resource\.ts/.test((await statusItem(page).getAttribute('aria-label')) ?? ''), 60_000);
    await page.keyboard.press('Control+Shift+M');
    await page.locator('.markers-panel', { hasText: 'No problems have been detected' }).waitFor({ timeout: 30_000 });
    if ((await squiggle(page).count()) !== 0) throw new Error('a squiggle is shown although the folder turned the rule off');
    await shot('rule-off');
    return 'rule turned off in .vscode/settings.json, no finding';
  },

  /** "Restart server": a second server starts (the output channel says so twice) and reports the finding again. */
  async 'vscode: Restart server starts a fresh server that reports the finding again'({ page, shot }) {
    await openFile(page, FILE);
    await squiggle(page).waitFor({ timeout: 60_000 });
    const lintedBefore = await until('a finished lint', async () => {
      const label = await statusItem(page).getAttribute('aria-label');
      return label?.includes('last lint: save-resource.ts') ? label : undefined;
    });
    await runCommand(page, 'Fencelint: Restart server');
    await runCommand(page, 'Fencelint: Show output');
    const output = page.locator('.output-view .monaco-editor .view-lines').first();
    await until('two server starts in the fencelint output', async () =>
      ((await output.innerText()).replace(/\u00a0/g, ' ').match(/fencelint language server started/g) ?? []).length === 2, 60_000);
    // The new server knows nothing of the old one's results: it lints again (a newer lint
    // time in the status bar) and the finding comes back from it.
    await until('a lint by the new server', async () => {
      const label = await statusItem(page).getAttribute('aria-label');
      return label !== lintedBefore && label?.includes('last lint: save-resource.ts');
    }, 60_000);
    await problemRows(page, RULE);
    await squiggle(page).waitFor({ timeout: 60_000 });
    await shot('after-restart');
    return 'two server starts logged, finding reported again';
  },

  /** "Show token flow" on the acquire: the hover names the lock and the unfenced write it reaches. */
  async 'vscode: Show token flow lists the unfenced write under the lease'({ page, shot }) {
    await openFile(page, FILE);
    await squiggle(page).waitFor({ timeout: 60_000 });
    // Line 6: `  const lock = await redlock.acquire(...)`; column 30 is inside `acquire`.
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(':6:30');
    await page.keyboard.press('Enter');
    await runCommand(page, 'Fencelint: Show token flow');
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'fencelint: lease acquired' }).first();
    await hover.waitFor({ timeout: 30_000 });
    const text = await hover.innerText();
    for (const part of ['redlock', 'line 8', 'not fenced']) {
      if (!text.includes(part)) throw new Error(`the token-flow hover lacks "${part}": ${text}`);
    }
    await shot('token-flow');
    return text.split('\n').find((line) => line.includes('line 8'))?.trim();
  },

  /** "Lint workspace" reports a file that was never opened in an editor. */
  async 'vscode: Lint workspace reports the finding in a file that is not open'({ page, shot }) {
    await runCommand(page, 'Fencelint: Lint workspace');
    const notice = page.locator('.notification-toast', { hasText: /fencelint: 2 file\(s\) linted, 2 finding\(s\)/ }).first();
    await notice.waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: RULE }).filter({ hasText: 'Ln 8' });
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'credit-account.ts' }).first().waitFor({ timeout: 30_000 });
    await until('a fencelint entry under credit-account.ts and under save-resource.ts', async () => (await row.count()) === 2);
    if ((await page.locator('.tab[aria-label*="credit-account.ts"]').count()) !== 0) throw new Error('credit-account.ts was opened in an editor');
    await shot('problems');
    return (await notice.innerText()).split('\n').find((line) => line.includes('linted'));
  },

  /**
   * With `fencelint.useWorkspaceConfig`, the folder's own eslint.config.mjs decides which files
   * are linted: a file it ignores gets no finding in the editor, as `eslint` gives it none.
   */
  async 'vscode: the workspace ESLint config ignores generated code, and the editor agrees'({ page, shot }) {
    await openFile(page, 'resource-copy.ts');
    await openFile(page, FILE);
    await squiggle(page).waitFor({ timeout: 60_000 });
    await runCommand(page, 'Fencelint: Show output');
    await until('the log line for the ignored file', async () => /resource-copy\.ts is not linted: the workspace's ESLint config/.test(await outputText(page)), 60_000);
    const rows = await problemRows(page, RULE);
    // Both files hold the same unfenced write: one fencelint entry means the ignored one has none.
    const entries = await rows.count();
    if (entries !== 1) throw new Error(`${entries} fencelint entries in the Problems panel; the ignored file must have none`);
    await shot('ignored-file');
    return 'src/generated/** ignored by eslint.config.mjs: no finding; src/save-resource.ts: finding';
  },

  /** A misspelt rule name in fencelint.rules is dropped with one warning; everything else keeps working. */
  async 'vscode: a misspelt rule name warns once and the finding still shows'({ page, shot }) {
    await openFile(page, FILE);
    const toast = page.locator('.notification-toast', { hasText: 'did you mean `require-fence-condition`?' }).first();
    await toast.waitFor({ timeout: 60_000 });
    await squiggle(page).waitFor({ timeout: 60_000 });
    await problemRows(page, RULE);
    await shot('misspelt-rule');
    const warnings = await page.locator('.notification-toast', { hasText: 'require-fence-conditon' }).count();
    if (warnings !== 1) throw new Error(`${warnings} warnings about the misspelt rule`);
    return (await toast.innerText()).split('\n').find((line) => line.includes('did you mean'))?.trim();
  },

  /** A document over 256 KB is linted on the server's worker thread (started from the packaged server.mjs). */
  async 'vscode: a large document is linted on the worker thread and its findings show'({ page, shot }) {
    await openFile(page, LARGE_FILE);
    await squiggle(page).waitFor({ timeout: 180_000 });
    await until('the status bar to report the lint of the large document', async () =>
      /last lint: large-service\.ts/.test((await statusItem(page).getAttribute('aria-label')) ?? ''), 60_000);
    await problemRows(page, RULE);
    await runCommand(page, 'Fencelint: Show output');
    await until('the worker thread in the fencelint output', async () => (await outputText(page)).includes('large documents are linted on a worker thread'), 60_000);
    await shot('large-document');
    return 'findings shown, linted on the worker thread';
  },

  /** The article's bug: squiggle, Problems entry, quick fix, save, fixed on disk, no problem left. */
  async 'vscode: quick fix inserts the fence condition and the finding clears'({ page, shot, workspace }) {
    await openFile(page, FILE);
    const underline = squiggle(page);
    await underline.waitFor({ timeout: 60_000 });
    await shot('squiggle');

    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: 'fencelint' }).first();
    await row.waitFor({ timeout: 30_000 });
    const rowText = await row.innerText();
    if (!rowText.includes(RULE)) throw new Error(`Problems entry lacks the rule id ${RULE}: ${rowText}`);
    if (!/Ln 8, Col \d+/.test(rowText)) throw new Error(`Problems entry is not on the UPDATE line (8): ${rowText}`);
    await shot('problems');

    // Clicking into the editor moves the cursor onto the finding; the lightbulb tells that
    // the code actions for that position arrived. Ctrl+. before that shows "No code actions".
    const menuRow = page.locator('.action-widget .monaco-list-row', { hasText: QUICK_FIX_TITLE }).first();
    for (let attempt = 1; ; attempt++) {
      await page.mouse.click(...Object.values(await centerOf(underline)));
      await page.locator('.monaco-editor .lightBulbWidget').first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.keyboard.press('Control+.');
      try {
        await menuRow.waitFor({ timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await page.keyboard.press('Escape');
      }
    }
    await shot('quick-fix-menu');
    // The preferred fix comes first and has the focus; Enter applies it as a user would.
    const focused = await page.locator('.action-widget .monaco-list-row.focused').first().innerText();
    if (!QUICK_FIX_TITLE.test(focused)) throw new Error(`the focused quick fix is "${focused}", not the fence condition`);
    await page.keyboard.press('Enter');

    // Word wrap (settings.json) keeps the long line on screen; join its wrapped pieces to search it.
    const editorText = async () => (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ').replace(/\n/g, '');
    await until('the fix in the editor', async () => (await editorText()).includes(FIXED_CONDITION));
    await shot('fixed-in-editor');
    await page.keyboard.press('Control+S');
    const onDisk = join(workspace, 'src', FILE);
    const saved = await until('the fixed text on disk', async () => {
      const text = readFileSync(onDisk, 'utf8');
      return text === EXPECTED_FIXED ? text : undefined;
    }).catch((error) => {
      throw new Error(`${error.message}; on disk:\n${readFileSync(onDisk, 'utf8')}`);
    });
    await until('no fencelint problem left', async () =>
      (await page.locator('#status\\.problems a').first().getAttribute('aria-label')) === 'No Problems' &&
      (await page.locator('.markers-panel .monaco-list-row', { hasText: 'fencelint' }).count()) === 0 &&
      (await squiggle(page).count()) === 0,
    );
    await shot('saved-clean');
    return saved.split('\n').find((line) => line.includes('UPDATE'))?.trim();
  },
  /**
   * "Confirm with runtime check" from the lightbulb on the unfenced write runs the workspace's
   * fencelint-check and shows the stale write reproduced, with the SVG timeline; after the quick
   * fix, the same command from the palette on that line shows that the fence holds.
   */
  async 'vscode: Confirm with runtime check, before and after the quick fix'({ page, shot, workspace }) {
    mkdirSync(join(workspace, 'node_modules'), { recursive: true });
    symlinkSync(CHECKER, join(workspace, 'node_modules', 'fencelint-checker'), 'dir');
    await openFile(page, FILE);
    const underline = squiggle(page);
    await underline.waitFor({ timeout: 60_000 });
    const checkRow = page.locator('.action-widget .monaco-list-row', { hasText: RUNTIME_CHECK_TITLE }).first();
    for (let attempt = 1; ; attempt++) {
      await page.mouse.click(...Object.values(await centerOf(underline)));
      await page.locator('.monaco-editor .lightBulbWidget').first().waitFor({ state: 'visible', timeout: 30_000 });
      await page.keyboard.press('Control+.');
      try {
        await checkRow.waitFor({ timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await page.keyboard.press('Escape');
      }
    }
    await shot('runtime-check-in-menu');
    // A plain command, not a fix: it sits under "More Actions..."; move the focus to it and press Enter.
    const focusedRow = page.locator('.action-widget .monaco-list-row.focused').first();
    await until('the runtime check focused in the menu', async () => {
      if ((await focusedRow.innerText()).includes(RUNTIME_CHECK_TITLE)) return true;
      await page.keyboard.press('ArrowDown');
      return false;
    });
    await page.keyboard.press('Enter');
    await page.locator('.tab', { hasText: 'Fencelint runtime check: src/save-resource.ts:8' }).first().waitFor({ timeout: 30_000 });
    // PGlite's cold start and the replay run in the checker's own process.
    const broken = await until('the broken verdict in the view', () => frameWithText(page, 'broken: a stale write was reproduced'), 180_000);
    if (!/A\s+write\(v1, token=41\) -> accepted\s+<< stale-write-accepted/.test(broken.body)) {
      throw new Error(`the view has no stale-write timeline:\n${broken.body.slice(0, 600)}`);
    }
    if ((await broken.frame.locator('svg').count()) === 0) throw new Error('the view has no SVG timeline');
    await shot('runtime-check-broken');

    // The rule's quick fix, then the command from the palette with the cursor on the fixed line.
    const fixRow = page.locator('.action-widget .monaco-list-row', { hasText: QUICK_FIX_TITLE }).first();
    for (let attempt = 1; ; attempt++) {
      await page.mouse.click(...Object.values(await centerOf(underline)));
      await page.keyboard.press('Control+.');
      try {
        await fixRow.waitFor({ timeout: 10_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
        await page.keyboard.press('Escape');
      }
    }
    const focused = await page.locator('.action-widget .monaco-list-row.focused').first().innerText();
    if (!QUICK_FIX_TITLE.test(focused)) throw new Error(`the focused quick fix is "${focused}", not the fence condition`);
    await page.keyboard.press('Enter');
    const editorText = async () => (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ').replace(/\n/g, '');
    await until('the fix in the editor', async () => (await editorText()).includes(FIXED_CONDITION));
    await page.keyboard.press('Control+S');
    await until('the fixed text on disk', async () => readFileSync(join(workspace, 'src', FILE), 'utf8') === EXPECTED_FIXED);
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(':8');
    await page.keyboard.press('Enter');
    await runCommand(page, `Fencelint: ${RUNTIME_CHECK_TITLE}`);
    const holds = await until('the holds verdict in the view', () => frameWithText(page, 'holds: the fence rejects'), 180_000);
    await shot('runtime-check-holds');
    return holds.body.split('\n').find((line) => line.startsWith('stale-write:'))?.trim() ?? 'holds';
  },
  /**
   * On a write whose value, extra column and token the analysis cannot tell apart, the runtime
   * check asks for the role of each such `$n` in a quick pick showing its expression, then runs
   * with those roles and shows the verdict (here: the token is compared but never stored).
   */
  async 'vscode: Confirm with runtime check asks for the roles it cannot name'({ page, shot, workspace }) {
    mkdirSync(join(workspace, 'node_modules'), { recursive: true });
    symlinkSync(CHECKER, join(workspace, 'node_modules', 'fencelint-checker'), 'dir');
    await openFile(page, 'revise-document.ts');
    await squiggle(page).waitFor({ timeout: 60_000 });
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget input').fill(':8');
    await page.keyboard.press('Enter');
    await runCommand(page, `Fencelint: ${RUNTIME_CHECK_TITLE}`);
    const answers = { 1: 'value', 3: 'other', 4: 'token' };
    const asked = [];
    for (const [n, role] of Object.entries(answers)) {
      const title = page.locator('.quick-input-widget .quick-input-title', { hasText: `role of $${n} in` }).first();
      // PGlite's cold start and the analysis run before the first question.
      await title.waitFor({ timeout: 180_000 });
      const placeholder = (await page.locator('.quick-input-widget input').first().getAttribute('placeholder')) ?? '';
      asked.push(placeholder.split('  in  ')[0]);
      if (asked.length === 1) await shot('role-question');
      await page.locator('.quick-input-widget input').fill(role);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: role }).first().waitFor({ timeout: 10_000 });
      await page.keyboard.press('Enter');
    }
    if (asked.join(', ') !== '$1 = body, $3 = editor, $4 = revision') throw new Error(`asked for: ${asked.join(', ')}`);
    const broken = await until('the verdict in the view', () => frameWithText(page, 'broken: a stale write was reproduced'), 180_000);
    if (!/\$1=value \$2=key \$3=other \$4=token/.test(broken.body)) throw new Error(`the view does not show the roles given:\n${broken.body.slice(0, 600)}`);
    await shot('roles-verdict');
    return asked.join(', ');
  },
};

const only = process.argv.slice(2);
let failed = 0;
for (const [name, scenario] of Object.entries(scenarios)) {
  if (only.length > 0 && !only.some((word) => name.includes(word))) continue;
  const slug = name.replace(/^vscode: /, '').replace(/[^a-z0-9]+/gi, '-').replace(/-+$/, '').slice(0, 40);
  const workspace = freshWorkspace(slug, /asks for the roles/.test(name) ? ROLES_FIXTURE : FIXTURE);
  if (/trusted folder/.test(name)) turnRuleOffInFolder(workspace);
  for (const [topic, prepare] of Object.entries(preparations)) if (name.includes(topic)) prepare(workspace);
  const started = Date.now();
  let step = 0;
  let opened;
  try {
    opened = await openWorkbench(workspace, { trust: !name.includes('untrusted') });
    const shot = (what) => opened.page.screenshot({ path: join(ARTIFACTS, `vscode-${slug}-${String(++step).padStart(2, '0')}-${what}.png`) });
    const detail = await scenario({ page: opened.page, shot, workspace });
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`PASS ${name} (${seconds} s)${detail ? `: ${detail}` : ''}`);
    appendFileSync(RESULTS, `pass\t${name}\t${seconds}\n`);
  } catch (error) {
    failed += 1;
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const reason = String(error?.message ?? error).split('\n')[0];
    console.log(`FAIL ${name} (${seconds} s): ${reason}`);
    appendFileSync(RESULTS, `fail\t${name}\t${seconds}\t${reason}\n`);
    await opened?.page.screenshot({ path: join(ARTIFACTS, `vscode-${slug}-failure.png`) }).catch(() => {});
  } finally {
    await opened?.context.close().catch(() => {});
  }
}
process.exitCode = failed > 0 ? 1 : 0;
