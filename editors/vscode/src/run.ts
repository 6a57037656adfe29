// "Run on device": ask for grid, block and arguments (remembered per kernel), run the kernel
// with the server's `kernlint/run` while a progress notification shows, and show the result
// in a webview panel; the sanitizer's findings also become diagnostics on the source.
import * as vscode from 'vscode';
import type { ServerHandle } from './extension';
import { ensureOpen, errorText, resolveTarget, Target } from './kernels';
import { resultHtml, RunResult } from './panel';

interface Remembered {
  grid: string;
  block: string;
  args: string;
}

type Dims = number | number[];

/** "4", "64, 64", "(64, 64)", "[4,2,1]" or "64x64" -> 4 or [64, 64]; undefined if invalid. */
export function parseDims(text: string): Dims | undefined {
  const parts = text.replace(/[[\]()]/g, ' ').split(/[\s,x×]+/).filter((p) => p.length > 0);
  if (parts.length < 1 || parts.length > 3) return undefined;
  const dims = parts.map((p) => (/^\d+$/.test(p) ? Number(p) : NaN));
  if (dims.some((d) => !Number.isInteger(d) || d < 1)) return undefined;
  return dims.length === 1 ? dims[0] : dims;
}

/** Why a JSON argument list is not one `kernlint/run` takes, or undefined when it is. */
export function checkArgs(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return `not JSON: ${errorText(e)}`;
  }
  if (!Array.isArray(value)) return 'a JSON list: [number | {"dtype", "shape", "fill"}, ...]';
  for (const [i, a] of value.entries()) {
    if (typeof a === 'number' || typeof a === 'boolean') continue;
    if (a && typeof a === 'object' && typeof (a as { dtype?: unknown }).dtype === 'string' && Array.isArray((a as { shape?: unknown }).shape)) continue;
    return `argument ${i + 1}: a number or {"dtype": "float32", "shape": [1024], "fill": 0 | "random" | "arange"}`;
  }
  return undefined;
}

function dimsList(d: Dims | undefined): number[] {
  const list = d === undefined ? [1] : typeof d === 'number' ? [d] : d;
  return [0, 1, 2].map((i) => list[i] ?? 1);
}

/** Split "a, b[:, :], c" at top-level commas. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if ('([{'.includes(ch)) depth++;
    if (')]}'.includes(ch)) depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** A first guess at the arguments, from the kernel's parameters and explicit signature. */
/** The kernel's `def` line (0-based) and parameter names, from its source. */
export function kernelParams(source: string, kernel: string): { defLine: number; params: string[] } {
  const name = kernel.split('.').pop() ?? kernel;
  const lines = source.split('\n');
  const defLine = lines.findIndex((l) => new RegExp(`^\\s*def\\s+${name}\\s*\\(`).test(l));
  if (defLine < 0) return { defLine, params: [] };
  let header = '';
  for (let i = defLine; i < lines.length && i < defLine + 20; i++) {
    header += lines[i] + ' ';
    if (/\)\s*(->[^:]*)?:/.test(lines[i])) break;
  }
  const open = header.indexOf('(');
  const close = header.lastIndexOf(')');
  const params = splitTop(header.slice(open + 1, close)).map((p) => p.split(/[:=]/)[0].trim()).filter((p) => p && p !== '*');
  return { defLine, params };
}

/** A first guess at the arguments, from the kernel's parameters and explicit signature. */
export function guessArgs(source: string, kernel: string, grid: Dims | undefined, block: Dims | undefined): string {
  const lines = source.split('\n');
  const { defLine, params } = kernelParams(source, kernel);
  if (defLine < 0) return '[]';
  // an explicit signature in the decorator just above
  let types: string[] | undefined;
  for (let i = defLine - 1; i >= 0 && i >= defLine - 6; i--) {
    const m = /^\s*@.*jit\s*\(\s*["']\s*\w+\s*\((.*)\)\s*["']/.exec(lines[i]);
    if (m) {
      types = splitTop(m[1]);
      break;
    }
    if (!/^\s*(@|#)/.test(lines[i]) && lines[i].trim()) break;
  }
  const [gx, gy, gz] = dimsList(grid);
  const [bx, by, bz] = dimsList(block);
  const x = gx * bx;
  const y = gy * by;
  const z = gz * bz;
  const n = x * y * z;
  const isOutput = (p: string) => /^(out|res|result|dst|dest|c)(_|\d|$)|_out$|^output/i.test(p);
  const args = params.map((p, i) => {
    const t = types?.[i];
    if (t !== undefined && !t.includes('[')) {
      return /int|uint|bool/.test(t) ? n : 1.0;
    }
    if (t === undefined && /^(n|size|count|len|length|nx|ny|width|height|w|h)$/i.test(p)) return n;
    if (t === undefined && /^(a|alpha|beta|scale|factor|dt|eps)$/i.test(p)) return 1.0;
    const dtype = t ? t.slice(0, t.indexOf('[')).trim() : 'float32';
    const ndim = t ? splitTop(t.slice(t.indexOf('[') + 1, t.lastIndexOf(']'))).length : 1;
    const shape = ndim === 1 ? [n] : ndim === 2 ? [y > 1 ? y : Math.min(x, 256), x] : [z, y, x].slice(-ndim);
    return { dtype, shape, fill: isOutput(p) ? 0 : 'random' };
  });
  return JSON.stringify(args);
}

export class KernelRunner implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('kernlint run');

  constructor(private readonly context: vscode.ExtensionContext, private readonly server: ServerHandle) {}

  dispose(): void {
    this.diagnostics.dispose();
    for (const p of this.panels.values()) p.dispose();
  }

  private key(t: Target): string {
    return `kernlint.run:${t.uri.toString()}#${t.kernel}`;
  }

  /** Grid, block and arguments from input boxes; undefined if the user cancels. */
  private async ask(t: Target, proposal: Partial<Remembered>): Promise<{ grid: Dims; block: Dims; args: unknown[]; remembered: Remembered } | undefined> {
    const last = this.context.workspaceState.get<Remembered>(this.key(t)) ?? proposal;
    const gridText = await vscode.window.showInputBox({
      title: `Run ${t.kernel} (1/3): grid`,
      prompt: 'Blocks in the grid: 4, or 64, 64 (x, y[, z])',
      value: last.grid ?? '1',
      ignoreFocusOut: true,
      validateInput: (v) => (parseDims(v) === undefined ? '1 to 3 positive integers' : undefined),
    });
    if (gridText === undefined) return undefined;
    const blockText = await vscode.window.showInputBox({
      title: `Run ${t.kernel} (2/3): block`,
      prompt: 'Threads per block: 256, or 16, 16 (x, y[, z]; at most 1024 in all)',
      value: last.block ?? '32',
      ignoreFocusOut: true,
      validateInput: (v) => {
        const d = parseDims(v);
        if (d === undefined) return '1 to 3 positive integers';
        return dimsList(d).reduce((a, b) => a * b, 1) > 1024 ? 'a block has at most 1024 threads' : undefined;
      },
    });
    if (blockText === undefined) return undefined;
    const grid = parseDims(gridText)!;
    const block = parseDims(blockText)!;
    let guess = last.args;
    if (!guess) {
      const doc = await ensureOpen(t.uri);
      guess = guessArgs(doc.getText(), t.kernel, grid, block);
    }
    const argsText = await vscode.window.showInputBox({
      title: `Run ${t.kernel} (3/3): arguments`,
      prompt: 'JSON list: a number for a scalar, {"dtype": "float32", "shape": [1024], "fill": 0 | "random" | "arange"} for an array',
      value: guess,
      ignoreFocusOut: true,
      validateInput: checkArgs,
    });
    if (argsText === undefined) return undefined;
    const remembered = { grid: gridText, block: blockText, args: argsText };
    return { grid, block, args: JSON.parse(argsText) as unknown[], remembered };
  }

  /** `grid`, `block` and `args` after [uri, kernel] (a launch recipe the server derived from
   * host code) are the proposals when there is no remembered answer. */
  async run(uri?: string | vscode.Uri, kernel?: string, grid?: unknown, block?: unknown, args?: unknown): Promise<void> {
    const target = await resolveTarget(uri, kernel);
    if (!target) return;
    const text = (v: unknown) => (v === undefined || v === null ? undefined : Array.isArray(v) ? v.join(', ') : String(v));
    const answers = await this.ask(target, {
      grid: text(grid),
      block: text(block),
      args: Array.isArray(args) ? JSON.stringify(args) : undefined,
    });
    if (!answers) return;
    await this.context.workspaceState.update(this.key(target), answers.remembered);
    const client = await this.server.client();
    if (!client) return;
    const doc = await ensureOpen(target.uri);
    const params = { uri: target.uri.toString(), kernel: target.kernel, grid: answers.grid, block: answers.block, args: answers.args };
    let result: RunResult;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `kernlint: running ${target.kernel}…`, cancellable: true },
        (_progress, token) => client.sendRequest<RunResult>('kernlint/run', params, token),
      );
    } catch (e) {
      const message = errorText(e);
      if (/cancel/i.test(message)) return;
      void vscode.window.showErrorMessage(`kernlint: ${target.kernel} did not run: ${message}`);
      return;
    }
    this.report(target, doc, result, answers.remembered);
  }

  private report(target: Target, doc: vscode.TextDocument, result: RunResult, launch: Remembered): void {
    // sanitizer findings as diagnostics
    const diags: vscode.Diagnostic[] = [];
    for (const m of result.messages) {
      const line = /^line (\d+):/.exec(m);
      const n = line ? Math.min(Number(line[1]) - 1, doc.lineCount - 1) : -1;
      if (n < 0) continue;
      const text = doc.lineAt(n);
      const d = new vscode.Diagnostic(
        new vscode.Range(n, text.firstNonWhitespaceCharacterIndex, n, text.text.length),
        `${target.kernel} (run): ${m.replace(/^line \d+:\s*/, '')}`,
        vscode.DiagnosticSeverity.Warning,
      );
      d.source = 'kernlint run';
      diags.push(d);
    }
    this.diagnostics.set(target.uri, diags);

    const key = this.key(target);
    let panel = this.panels.get(key);
    if (!panel) {
      panel = vscode.window.createWebviewPanel(
        'kernlintRun',
        `Run: ${target.kernel}`,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        { enableScripts: true, retainContextWhenHidden: true },
      );
      this.panels.set(key, panel);
      panel.onDidDispose(() => this.panels.delete(key));
      panel.webview.onDidReceiveMessage(async (msg: { type?: string; line?: number }) => {
        if (msg?.type === 'reveal' && typeof msg.line === 'number') {
          const editor = await vscode.window.showTextDocument(target.uri, { viewColumn: vscode.ViewColumn.One });
          const pos = new vscode.Position(Math.max(0, msg.line - 1), 0);
          editor.selection = new vscode.Selection(pos, pos);
          editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.InCenter);
        }
      });
    }
    panel.webview.html = resultHtml(result, launch, nonce(), kernelParams(doc.getText(), target.kernel).params);
    panel.reveal(vscode.ViewColumn.Beside, true);
  }
}

function nonce(): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) s += chars[Math.floor(Math.random() * chars.length)];
  return s;
}
