// Which kernel a command is about: the code lens passes [uri, kernel]; from the command
// palette, the kernels of the active editor (the server's code lenses) are offered.
import * as vscode from 'vscode';

export interface Target {
  uri: vscode.Uri;
  kernel: string;
}

export function toUri(value: string | vscode.Uri): vscode.Uri {
  return typeof value === 'string' ? vscode.Uri.parse(value) : value;
}

/** The kernels of a document, each with the line of its code lens, from the server. */
export async function kernelsOf(uri: vscode.Uri): Promise<{ kernel: string; line: number }[]> {
  const lenses = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri)) ?? [];
  const seen = new Map<string, number>();
  for (const lens of lenses) {
    const args = lens.command?.arguments;
    if (lens.command?.command === 'kernlint.runKernel' && args && typeof args[1] === 'string' && !seen.has(args[1])) {
      seen.set(args[1], lens.range.start.line);
    }
  }
  return [...seen].map(([kernel, line]) => ({ kernel, line }));
}

export async function resolveTarget(uri?: string | vscode.Uri, kernel?: string): Promise<Target | undefined> {
  if (uri && kernel) return { uri: toUri(uri), kernel };
  const editor = vscode.window.activeTextEditor;
  const docUri = uri ? toUri(uri) : editor?.document.uri;
  if (!docUri) {
    void vscode.window.showWarningMessage('kernlint: open a Python file with a CUDA kernel first');
    return undefined;
  }
  const kernels = await kernelsOf(docUri);
  if (kernels.length === 0) {
    void vscode.window.showWarningMessage('kernlint: no CUDA kernel in this file');
    return undefined;
  }
  if (kernels.length === 1) return { uri: docUri, kernel: kernels[0].kernel };
  // The kernel under or above the cursor first.
  const cursor = editor && editor.document.uri.toString() === docUri.toString() ? editor.selection.active.line : -1;
  const above = kernels.filter((k) => k.line <= cursor).pop();
  const items = kernels.map((k) => ({ label: k.kernel, description: `line ${k.line + 1}` }));
  if (above) items.sort((a, b) => (a.label === above.kernel ? -1 : b.label === above.kernel ? 1 : 0));
  const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Kernel' });
  return pick ? { uri: docUri, kernel: pick.label } : undefined;
}

/** Make sure the server has the document open (it answers only for open documents). */
export async function ensureOpen(uri: vscode.Uri): Promise<vscode.TextDocument> {
  return vscode.workspace.openTextDocument(uri);
}

/** The text of a JSON-RPC error or any other failure. */
export function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e) return String((e as { message: unknown }).message);
  return String(e);
}
