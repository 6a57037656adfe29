// "Show PTX": a read-only virtual document `kernlint-ptx:/<file>/<kernel>.ptx?<source uri>`
// beside the source, filled from the server's `kernlint/ptx`, refreshed as the source is edited.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ServerHandle } from './extension';
import { ensureOpen, errorText, resolveTarget } from './kernels';

export const PTX_SCHEME = 'kernlint-ptx';
const REFRESH_DELAY_MS = 400;

interface PtxResult {
  kernel: string;
  signature: string;
  ptx: string;
}

export function ptxUri(source: vscode.Uri, kernel: string): vscode.Uri {
  const base = path.posix.basename(source.path) || 'untitled';
  return vscode.Uri.from({ scheme: PTX_SCHEME, path: `/${base}/${kernel}.ptx`, query: source.toString() });
}

function parsePtxUri(uri: vscode.Uri): { source: vscode.Uri; kernel: string } {
  return { source: vscode.Uri.parse(uri.query), kernel: path.posix.basename(uri.path, '.ptx') };
}

export class PtxPreview implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly server: ServerHandle) {
    this.subscriptions.push(
      this.changed,
      vscode.workspace.onDidChangeTextDocument((e) => this.sourceChanged(e.document.uri)),
    );
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    for (const s of this.subscriptions) s.dispose();
  }

  /** Refresh every open preview of this source, once the edits have paused. */
  private sourceChanged(source: vscode.Uri): void {
    if (source.scheme === PTX_SCHEME) return;
    const key = source.toString();
    const previews = vscode.workspace.textDocuments.filter(
      (d) => d.uri.scheme === PTX_SCHEME && d.uri.query === key,
    );
    if (previews.length === 0) return;
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        for (const d of previews) this.changed.fire(d.uri);
      }, REFRESH_DELAY_MS),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    const { source, kernel } = parsePtxUri(uri);
    const client = await this.server.client();
    if (!client) return `// kernlint: the server is not running, so no PTX for \`${kernel}\`\n`;
    try {
      await ensureOpen(source);
      const result = await client.sendRequest<PtxResult>('kernlint/ptx', { uri: source.toString(), kernel }, token);
      const text = result.ptx.endsWith('\n') ? result.ptx : result.ptx + '\n';
      return `// kernlint: PTX of \`${result.kernel}\` for ${result.signature}\n${text}`;
    } catch (e) {
      const message = errorText(e);
      return `// kernlint: no PTX for \`${kernel}\`:\n${message.split('\n').map((l) => `// ${l}`).join('\n')}\n`;
    }
  }

  /** `.loc FILE LINE COL` lines link to the Python line the instruction came from. */
  provideDocumentLinks(document: vscode.TextDocument): vscode.DocumentLink[] {
    const { source } = parsePtxUri(document.uri);
    const files = new Map<string, vscode.Uri>();
    const links: vscode.DocumentLink[] = [];
    for (let i = 0; i < document.lineCount; i++) {
      const text = document.lineAt(i).text;
      const file = /^\s*\.file\s+(\d+)\s+"([^"]+)"/.exec(text);
      if (file) {
        const name = file[2];
        // The server names a notebook's code cells by their documents' URIs.
        if (/^[a-zA-Z][\w+.-]+:/.test(name)) {
          files.set(file[1], vscode.Uri.parse(name));
          continue;
        }
        const sameFile = path.basename(name) === path.posix.basename(source.path);
        files.set(file[1], !sameFile && path.isAbsolute(name) ? vscode.Uri.file(name) : source);
        continue;
      }
      const loc = /^(\s*)(\.loc\s+(\d+)\s+(\d+)(?:\s+(\d+))?)/.exec(text);
      if (!loc) continue;
      const line = Number(loc[4]);
      if (!line) continue;
      const col = Number(loc[5] ?? 0) || 1;
      const into = files.get(loc[3]) ?? source;
      // A notebook cell's URI names the cell in its fragment: the link opens that cell.
      const target = into.scheme === 'vscode-notebook-cell' ? into : into.with({ fragment: `L${line},${col}` });
      const start = loc[1].length;
      const link = new vscode.DocumentLink(new vscode.Range(i, start, i, start + loc[2].length), target);
      link.tooltip = `Go to the Python source, line ${line}`;
      links.push(link);
    }
    return links;
  }

  async show(uri?: string | vscode.Uri, kernel?: string): Promise<void> {
    const target = await resolveTarget(uri, kernel);
    if (!target) return;
    const doc = await vscode.workspace.openTextDocument(ptxUri(target.uri, target.kernel));
    if (doc.languageId !== 'ptx') await vscode.languages.setTextDocumentLanguage(doc, 'ptx');
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false, preserveFocus: true });
  }
}
