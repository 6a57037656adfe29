// Where the `kernlint` executable is: the `kernlint.path` setting, then a `kernlint`
// installed (by pip) in the Python environment selected in the Python extension, then PATH.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';

export interface Found {
  path: string;
  source: 'setting' | 'python environment' | 'PATH';
}

const EXE = process.platform === 'win32' ? 'kernlint.exe' : 'kernlint';

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function expand(setting: string): string {
  let p = setting.trim();
  if (p === '~' || p.startsWith('~/')) p = path.join(os.homedir(), p.slice(1));
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  p = p.replace(/\$\{workspaceFolder\}/g, folder ?? '');
  if (!path.isAbsolute(p) && (p.includes('/') || p.includes('\\')) && folder) p = path.join(folder, p);
  return p;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The bin (Scripts) folder of the Python environment the Python extension has selected. */
async function pythonBinDir(log: vscode.OutputChannel): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) return undefined;
  try {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const api: any = ext.isActive ? ext.exports : await ext.activate();
    const resource = vscode.window.activeTextEditor?.document.uri ?? vscode.workspace.workspaceFolders?.[0]?.uri;
    let executable: string | undefined;
    if (api?.environments?.getActiveEnvironmentPath) {
      const envPath = api.environments.getActiveEnvironmentPath(resource);
      const env = await api.environments.resolveEnvironment(envPath);
      executable = env?.executable?.uri?.fsPath ?? envPath?.path;
    } else if (api?.settings?.getExecutionDetails) {
      executable = api.settings.getExecutionDetails(resource)?.execCommand?.[0];
    }
    if (!executable) return undefined;
    if (fs.existsSync(executable) && fs.statSync(executable).isDirectory()) {
      return path.join(executable, process.platform === 'win32' ? 'Scripts' : 'bin');
    }
    return path.dirname(executable);
  } catch (e) {
    log.appendLine(`kernlint: could not ask the Python extension for the environment: ${e}`);
    return undefined;
  }
}

/**
 * The `kernlint.path` setting, never from a workspace's `.vscode/settings.json` (which
 * would let a cloned repository choose the program this extension starts). The setting is
 * machine-scoped, so VS Code reads it from user (or remote) settings only; an editor that
 * applied a workspace value anyway gets the user's value instead.
 */
function pathSetting(log: vscode.OutputChannel): string {
  const cfg = vscode.workspace.getConfiguration('kernlint');
  const inspected = cfg.inspect<string>('path');
  if ((inspected?.workspaceFolderValue ?? inspected?.workspaceValue) !== undefined) {
    log.appendLine('kernlint: ignoring `kernlint.path` in the workspace settings: set it in your user settings');
    return inspected?.globalValue ?? '';
  }
  return cfg.get<string>('path', '');
}

/** Why no executable was found, in one sentence the user can act on. */
export interface Missing {
  why: string;
}

export async function findKernlint(log: vscode.OutputChannel): Promise<Found | Missing> {
  const setting = pathSetting(log);
  if (setting && setting.trim()) {
    const p = expand(setting);
    if (path.isAbsolute(p)) {
      if (isExecutable(p)) return { path: p, source: 'setting' };
      const what = fs.existsSync(p) ? 'is not an executable file' : 'does not exist';
      return { why: `the setting \`kernlint.path\` is ${p}, which ${what}.` };
    }
    const resolved = onPath(p);
    if (resolved) return { path: resolved, source: 'setting' };
    return { why: `the setting \`kernlint.path\` is ${p}, which is not on PATH.` };
  }
  const bin = await pythonBinDir(log);
  if (bin) {
    const candidate = path.join(bin, EXE);
    if (isExecutable(candidate)) return { path: candidate, source: 'python environment' };
  }
  const found = onPath(EXE);
  if (found) return { path: found, source: 'PATH' };
  const where = bin ? `the selected Python environment (${bin}) or PATH` : 'PATH';
  return { why: `no \`kernlint\` executable in ${where}: install it with \`pip install kernlint\` or set \`kernlint.path\`.` };
}
