// End-to-end test of the kernlint extension in real VS Code: code-server's workbench in
// headless Chromium, driven by playwright-core. Run by scripts/vscode_e2e.sh, which starts
// code-server with the .vsix installed and a workspace holding kernels.py.
// env: CS_URL, WS (workspace folder), OUT_DIR (screenshots, result.json), PW_DIR (folder
// with node_modules/playwright-core), CHROMIUM (browser executable), PROFILE (scratch dir).
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

const require = createRequire(path.join(process.env.PW_DIR, 'package.json'));
const { chromium } = require('playwright-core');

const CS_URL = process.env.CS_URL;
const WS = process.env.WS;
const OUT = process.env.OUT_DIR;
const FILE = 'kernels.py';
const NOTEBOOK = 'cells.ipynb';
const t0 = Date.now();
const res = { ok: false, passed: [], failed: [], notes: [], steps: {} };
fs.mkdirSync(OUT, { recursive: true });

const ctx = await chromium.launchPersistentContext(process.env.PROFILE, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1600, height: 1000 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = ctx.pages()[0] || await ctx.newPage();
page.setDefaultTimeout(30000);
page.on('console', (m) => { if (m.type() === 'error') (res.console_errors ||= []).push(m.text().slice(0, 300)); });

const shot = (name) => page.screenshot({ path: path.join(OUT, `${name}.png`) }).catch(() => {});

/** One named check: a failure is recorded with a screenshot, and the next checks still run. */
async function check(name, fn) {
  const start = Date.now();
  try {
    const detail = await fn();
    res.passed.push(name);
    res.steps[name] = { ms: Date.now() - start, ...(detail ? { detail } : {}) };
    console.log(`ok   ${name} (${Date.now() - start} ms)`);
    await shot(name);
  } catch (e) {
    res.failed.push(name);
    res.steps[name] = { ms: Date.now() - start, error: String(e && e.stack || e).slice(0, 1500) };
    console.log(`FAIL ${name}: ${String(e && e.message || e).split('\n')[0]}`);
    await shot(`${name}-failure`);
    await page.keyboard.press('Escape').catch(() => {});
  }
}

/** The source editor (first group). */
const sourceEditor = () => page.locator('.editor-group-container').first().locator('.monaco-editor').first();

async function focusSource() {
  await page.keyboard.press('Escape');
  await page.mouse.move(5, 500); // away from hovers and tooltips
  // clicking the tab focuses its editor
  await page.locator('.editor-group-container').first().locator('.tab', { hasText: FILE }).first().click();
  await sourceEditor().locator('.monaco-editor-background, textarea').first().waitFor({ state: 'attached' });
}

/** Put the cursor at 1-based line:col with Go to Line. */
async function goTo(line, col) {
  await focusSource();
  await page.keyboard.press('Control+G');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type(`${line}:${col}`);
  await page.keyboard.press('Enter');
}

/** Click the code lens `title` above the kernel `kernel` (lenses are in source order). */
async function clickLens(title, index) {
  await goTo(1, 1); // lenses render only in view: scroll to the top
  await page.waitForTimeout(500); // Go to Line's box closes
  const lens = sourceEditor().locator('.codelens-decoration a', { hasText: title }).nth(index);
  await lens.waitFor({ timeout: 60000 });
  await lens.click();
}

/** Answer the quick input with `text` (replacing its proposal). */
async function answer(expectTitle, text) {
  // Match the step's title ("Run saxpy (2/3): block"), not the whole widget: a step's
  // prompt may mention the next step's name, and answering early types into the wrong box.
  const title = page.locator('.quick-input-widget .quick-input-title', { hasText: `: ${expectTitle}` });
  await title.waitFor({ state: 'visible' });
  const input = page.locator('.quick-input-widget input');
  await input.fill(text);
  await page.waitForFunction((want) => document.querySelector('.quick-input-widget input')?.value === want, text);
  await page.waitForTimeout(150);
  await page.keyboard.press('Enter');
}

/** The frame (of a webview) whose body text contains `needle`, and that text. */
async function webviewFrame(needle) {
  for (const frame of page.frames()) {
    const text = await frame.evaluate(() => (document.body ? document.body.innerText : '')).catch(() => '');
    if (text.includes(needle)) return { frame, text };
  }
  return undefined;
}

/** The first webview showing `needle`, once it shows every one of `also` too (a panel can be
 * drawn in steps) or, failing that, as it was when `timeout` ran out. */
async function waitWebview(needle, timeout = 60000, also = []) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await webviewFrame(needle);
    if (last && also.every((want) => last.text.includes(want))) return last;
    await page.waitForTimeout(500);
  }
  if (last) return last;
  throw new Error(`no webview shows "${needle}"`);
}

/** Run the kernel around 1-based `line` from the command palette (kernlint: Run on Device). */
async function runFromPalette(line, kernel, grid, block, args) {
  await goTo(line, 5);
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type('kernlint: Run on Device');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Run on Device' }).first().waitFor();
  await page.keyboard.press('Enter');
  // the kernel under the cursor is proposed first
  await page.locator('.quick-input-list .monaco-list-row', { hasText: kernel }).first().waitFor();
  const first = await page.locator('.quick-input-list .monaco-list-row').first().innerText();
  if (!first.includes(kernel)) throw new Error(`kernel pick proposes "${first}" first, not ${kernel}`);
  await page.keyboard.press('Enter');
  await answer('grid', grid);
  await answer('block', block);
  await answer('arguments', args);
}

try {
  await check('workbench_opens_kernel_file', async () => {
    await page.goto(`${CS_URL}/?folder=${encodeURIComponent(WS)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
    await page.locator('.monaco-workbench').click({ position: { x: 800, y: 500 } }).catch(() => {});
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(FILE, { delay: 20 });
    await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${FILE}"]`);
    await page.keyboard.press('Enter');
    await sourceEditor().locator('.view-lines').waitFor();
  });

  await check('problems_panel_has_KL101', async () => {
    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-tl-row', { hasText: 'KL101' });
    await row.first().waitFor({ timeout: 90000 });
    return (await row.first().innerText()).replace(/\s+/g, ' ');
  });

  await check('hover_shows_numba_type', async () => {
    await goTo(6, 5); // `i` in `i = cuda.grid(1)`
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover-content', { hasText: 'int64' });
    await hover.first().waitFor();
    const text = (await hover.first().innerText()).replace(/\s+/g, ' ');
    if (!text.includes('i: int64')) throw new Error(`hover says: ${text}`);
    return text.slice(0, 200);
  });
  await page.keyboard.press('Escape');

  /** How many rows of the Problems panel mention `code`. */
  async function problems(code) {
    // Control+Shift+M toggles the panel: press it only when the panel is hidden
    if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
    return page.locator('.markers-panel .monaco-tl-row', { hasText: code }).count();
  }

  async function waitProblems(code, want) {
    const end = Date.now() + 30000;
    let n = -1;
    while (Date.now() < end) {
      n = await problems(code);
      if (n === want) return n;
      await page.waitForTimeout(300);
    }
    throw new Error(`${n} ${code} problems, not ${want}`);
  }

  async function hoverAt(line, col, needle) {
    await goTo(line, col);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = page.locator('.monaco-hover-content', { hasText: needle });
    await hover.first().waitFor();
    const text = (await hover.first().innerText()).replace(/\s+/g, ' ');
    await page.keyboard.press('Escape');
    return text;
  }

  await check('hover_types_a_kernel_without_signature', async () => {
    // `scale` has a bare `@cuda.jit`: typed for its launch with float32 arrays
    const text = await hoverAt(39, 5, 'y:');
    if (!text.includes('y: float64')) throw new Error(`hover says: ${text}`);
    return text.slice(0, 200);
  });

  await check('diagnostics_follow_typing', async () => {
    const before = await problems('KL101');
    await goTo(40, 100); // end of `out[i] = y * a`
    await page.waitForTimeout(300); // Go to Line's box closes
    await page.keyboard.press('End');
    await page.keyboard.press('Enter'); // the new line keeps the body's indentation
    await page.keyboard.type('return 1', { delay: 30 });
    try {
      await waitProblems('KL101', before + 1);
    } finally {
      await focusSource();
      await page.keyboard.press('Control+Z');
      await page.keyboard.press('Control+Z');
    }
    await waitProblems('KL101', before);
    return { before };
  });

  await check('quick_fix_applies', async () => {
    await waitProblems('KL401', 1);
    await goTo(39, 17); // in `2.5`
    await page.keyboard.press('Control+.');
    const item = page.locator('.action-widget .monaco-list-row', { hasText: /float32/ }).first();
    await item.waitFor();
    const title = (await item.innerText()).trim();
    await item.click();
    await waitProblems('KL401', 0);
    const text = await hoverAt(39, 5, 'y:');
    if (!text.includes('y: float32')) throw new Error(`after the fix the hover says: ${text}`);
    return { title, hover: text.slice(0, 120) };
  });

  await check('show_ptx_preview', async () => {
    await focusSource();
    await clickLens('Show PTX', 0);
    const group = page.locator('.editor-group-container').nth(1);
    await group.locator('.tab', { hasText: 'saxpy.ptx' }).waitFor();
    const lines = group.locator('.view-lines');
    const end = Date.now() + 30000;
    let text = '';
    while (Date.now() < end) {
      text = await lines.innerText().catch(() => '');
      if (/\.entry|not available yet/.test(text)) break;
      await page.waitForTimeout(300);
    }
    const mode = /\.entry/.test(text) ? 'ptx' : /not available yet/.test(text) ? 'not available yet' : '';
    if (!mode) throw new Error(`PTX preview shows: ${text.slice(0, 400)}`);
    if (mode === 'ptx' && !/\.version/.test(text)) throw new Error(`PTX without .version: ${text.slice(0, 400)}`);
    if (mode !== 'ptx') res.notes.push('kernlint/ptx answered "not available yet": the preview shows that message');
    res.ptx_mode = mode;
    // PTX language (TextMate colouring) on the preview: the status bar names the language
    await group.locator('.view-lines').click({ position: { x: 100, y: 5 } });
    const language = page.locator('#status\\.editor\\.mode');
    await language.filter({ hasText: 'PTX' }).waitFor({ timeout: 10000 });
    return { mode, head: text.slice(0, 300) };
  });

  await check('ptx_preview_follows_edits', async () => {
    const lines = page.locator('.editor-group-container').nth(1).locator('.view-lines');
    const before = await lines.innerText();
    if (/\.f64/.test(before)) throw new Error('float32 saxpy already has f64 code');
    await goTo(8, 100); // end of `out[i] = a * x[i]`
    await page.waitForTimeout(300);
    await page.keyboard.press('End');
    await page.keyboard.type(' + 1.0');
    const end = Date.now() + 30000;
    let text = '';
    while (Date.now() < end) {
      text = await lines.innerText().catch(() => '');
      if (/\.f64/.test(text)) break;
      await page.waitForTimeout(300);
    }
    // take the edit back, and see that it is gone: the next check runs this kernel
    for (let attempt = 0; attempt < 3; attempt++) {
      await goTo(8, 100);
      await page.waitForTimeout(300);
      await page.keyboard.press('Escape'); // a suggestion widget would take the keys
      await page.keyboard.press('End');
      const source = await sourceEditor().locator('.view-lines').innerText();
      if (!/\+\s1\.0/.test(source)) break; // Monaco draws spaces as U+00A0, which \s takes
      for (let k = 0; k < ' + 1.0'.length; k++) await page.keyboard.press('Backspace');
      await page.waitForTimeout(300);
    }
    if (!/\.f64/.test(text)) throw new Error(`the preview did not follow the edit: ${text.slice(0, 300)}`);
  });

  await check('run_on_device_panel', async () => {
    await focusSource();
    await clickLens('Run on device', 0);
    await answer('grid', '4');
    await answer('block', '256');
    await answer('arguments', '[{"dtype": "float32", "shape": [1024], "fill": 0}, {"dtype": "float32", "shape": [1024], "fill": "arange"}, 2.0]');
    // out = 2 * arange(1024): min 0, max 2046, mean 1023
    const wants = ['saxpy ran on', 'float32', '1024', '2046', '1023', 'No sanitizer findings'];
    const { text } = await waitWebview('saxpy ran on', 60000, wants);
    for (const want of wants) {
      if (!text.includes(want)) throw new Error(`panel lacks "${want}": ${text.slice(0, 600)}`);
    }
    return text.replace(/\s+/g, ' ').slice(0, 400);
  });

  await check('run_remembers_launch', async () => {
    await page.keyboard.press('Escape');
    await focusSource();
    await clickLens('Run on device', 0);
    const input = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-widget', { hasText: 'grid' }).waitFor({ state: 'visible' });
    const grid = await input.inputValue();
    await page.keyboard.press('Escape');
    if (grid !== '4') throw new Error(`grid proposal is "${grid}", not the last answer 4`);
  });

  await check('run_sanitizer_findings_linked_and_diagnostics', async () => {
    await runFromPalette(18, 'oob', '1', '32', '[{"dtype": "float32", "shape": [32], "fill": 0}]');
    const { text } = await waitWebview('oob ran on');
    if (!/line 19\b/.test(text)) throw new Error(`no finding on line 19 in the panel: ${text.slice(0, 600)}`);
    await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-tl-row', { hasText: 'oob (run)' });
    await row.first().waitFor();
    return { panel: text.replace(/\s+/g, ' ').slice(0, 400), problem: (await row.first().innerText()).replace(/\s+/g, ' ').slice(0, 300) };
  });

  await check('run_2d_heat_map', async () => {
    await runFromPalette(25, 'ramp2d', '1', '8, 2', '[{"dtype": "float32", "shape": [2, 5], "fill": 0}]');
    const { frame, text } = await waitWebview('ramp2d ran on');
    const canvas = await frame.evaluate(() => {
      const c = document.querySelector('canvas.heat');
      if (!c) return null;
      const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      return { width: c.width, height: c.height, first: Array.from(px.slice(0, 4)), last: Array.from(px.slice(-4)) };
    });
    if (!canvas) throw new Error(`no heat map: ${text.slice(0, 400)}`);
    if (canvas.width !== 5 || canvas.height !== 2) throw new Error(`heat map is ${canvas.width}x${canvas.height}`);
    if (canvas.first.join() === canvas.last.join()) throw new Error('heat map is one colour');
    return canvas;
  });

  await check('notebook_cell_diagnostic', async () => {
    // code-server opens .ipynb with VS Code's built-in serializer; the extension's selector
    // takes its python cells, and the server's diagnostic lands on the kernel's cell.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(NOTEBOOK, { delay: 20 });
    await page.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${NOTEBOOK}"]`);
    await page.keyboard.press('Enter');
    await page.locator('.notebook-editor .cell-editor-container .view-lines', { hasText: 'threadIdx' }).first().waitFor({ timeout: 60000 });
    if (!(await page.locator('.markers-panel').isVisible())) await page.keyboard.press('Control+Shift+M');
    const row = page.locator('.markers-panel .monaco-tl-row', { hasText: 'KL107' });
    await row.first().waitFor({ timeout: 60000 });
    const problem = (await row.first().innerText()).replace(/\s+/g, ' ');
    if (!problem.includes('threadIdx')) throw new Error(`the KL107 problem says: ${problem}`);
    if ((await page.locator('.markers-panel .monaco-tl-row', { hasText: NOTEBOOK }).count()) === 0) {
      throw new Error('no Problems entry names the notebook');
    }
    // the squiggle is in the kernel's cell editor (the one holding `threadIdx`)
    const cell = page.locator('.notebook-editor .cell-editor-container', { hasText: 'threadIdx' }).first();
    const squiggles = await cell.locator('.squiggly-error').count();
    if (squiggles === 0) throw new Error('no error squiggle in the kernel cell');
    return { problem: problem.slice(0, 300), squiggles };
  });

  res.ok = res.failed.length === 0;
} catch (e) {
  res.failed.push('driver');
  res.error = String(e && e.stack || e).slice(0, 2000);
  await shot('driver-failure');
} finally {
  res.total_ms = Date.now() - t0;
  fs.writeFileSync(path.join(OUT, 'result.json'), JSON.stringify(res, null, 2));
  await ctx.close().catch(() => {});
  console.log(`vscode-e2e: ${res.passed.length} passed, ${res.failed.length} failed`);
  process.exit(res.ok ? 0 : 1);
}
