// kernlint for VS Code: the language client for `kernlint server`, the PTX preview and
// "Run on device".
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
} from 'vscode-languageclient/node';
import { findKernlint } from './binary';
import { PtxPreview, PTX_SCHEME } from './ptx';
import { KernelRunner } from './run';

/** Commands the extension implements itself although the server also advertises them. */
const CLIENT_COMMANDS = new Set(['kernlint.showPtx', 'kernlint.runKernel']);

/** Holds the running client; `current` is undefined while the server is stopped. */
export class ServerHandle {
  current: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;

  constructor(private readonly context: vscode.ExtensionContext, readonly log: vscode.LogOutputChannel) {}

  /** The running client, starting it if needed; undefined when it cannot start. */
  async client(): Promise<LanguageClient | undefined> {
    if (this.current) return this.current;
    if (!this.starting) {
      this.starting = this.start().finally(() => (this.starting = undefined));
    }
    return this.starting;
  }

  private async start(attempt = 0): Promise<LanguageClient | undefined> {
    const found = await findKernlint(this.log);
    if ('why' in found) {
      const message = `kernlint cannot start: ${found.why}`;
      this.log.appendLine(message);
      void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'kernlint.path');
      });
      return undefined;
    }
    this.log.appendLine(`kernlint: starting ${found.path} server (found via ${found.source})`);
    // no `transport`: with TransportKind.stdio the client would append `--stdio`, which `kernlint server` refuses
    const serverOptions: ServerOptions = { command: found.path, args: ['server'] };
    const cfg = vscode.workspace.getConfiguration('kernlint');
    const clientOptions: LanguageClientOptions = {
      documentSelector: [
        { scheme: 'file', language: 'python' },
        { scheme: 'untitled', language: 'python' },
        // Jupyter notebooks' python cells: the server declares notebookDocumentSync, so the
        // client syncs whole notebooks and sends requests with cell URIs.
        { notebook: 'jupyter-notebook', language: 'python' },
      ],
      outputChannel: this.log,
      synchronize: { configurationSection: 'kernlint' },
      initializationOptions: { inlayHints: { enable: cfg.get<boolean>('inlayHints.enable', true) } },
    };
    const client = new LanguageClient('kernlint', 'kernlint', serverOptions, clientOptions);
    // The server advertises kernlint.showPtx / kernlint.runKernel for clients without their own
    // UI; this extension registers those commands itself, so keep the client from doing it.
    const feature = client.getFeature(ExecuteCommandRequest.method);
    const register = feature.register.bind(feature);
    feature.register = (data) => {
      const commands = (data.registerOptions.commands ?? []).filter((c) => !CLIENT_COMMANDS.has(c));
      if (commands.length > 0) register({ ...data, registerOptions: { ...data.registerOptions, commands } });
    };
    try {
      await client.start();
    } catch (e) {
      this.log.appendLine(`kernlint: the server failed to start: ${e}`);
      await client.dispose().catch(() => undefined);
      if (attempt < 2) {
        await new Promise((r) => setTimeout(r, 1000 * (attempt + 1)));
        return this.start(attempt + 1);
      }
      void vscode.window.showErrorMessage(`kernlint: the server failed to start (${found.path}): ${e}`);
      return undefined;
    }
    this.current = client;
    return client;
  }

  async stop(): Promise<void> {
    const client = this.current ?? (await this.starting);
    this.current = undefined;
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.log.appendLine(`kernlint: stopping the server: ${e}`);
      }
      try {
        await client.dispose();
      } catch {
        // already gone
      }
    }
  }

  async restart(): Promise<void> {
    this.log.appendLine('kernlint: restarting the server');
    await this.stop();
    await this.client();
  }
}

let server: ServerHandle | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel('kernlint', { log: true });
  context.subscriptions.push(log);
  server = new ServerHandle(context, log);
  const ptx = new PtxPreview(server);
  const runner = new KernelRunner(context, server);
  context.subscriptions.push(
    ptx,
    runner,
    vscode.workspace.registerTextDocumentContentProvider(PTX_SCHEME, ptx),
    vscode.languages.registerDocumentLinkProvider({ scheme: PTX_SCHEME }, ptx),
    vscode.commands.registerCommand('kernlint.restartServer', () => server?.restart()),
    vscode.commands.registerCommand('kernlint.showPtx', (uri?: string | vscode.Uri, kernel?: string) => ptx.show(uri, kernel)),
    vscode.commands.registerCommand('kernlint.runKernel', (uri?: string | vscode.Uri, kernel?: string, ...launch: unknown[]) =>
      runner.run(uri, kernel, ...launch),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('kernlint.path')) void server?.restart();
    }),
  );
  await server.client();
}

export async function deactivate(): Promise<void> {
  await server?.stop();
}
