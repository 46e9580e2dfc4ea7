import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';
import { findBrainRoot, folderBrainRoot, isInside } from './brain-root';
import { createClient } from './client';
import { discover, VENV_NAMES, venvBrain } from './discovery';
import * as notices from './notices';
import { probe } from './probe';
import { selectedPython } from './python';
import { formatCommand, InvalidCommandSetting, mergeEnv } from './server-command';

/** One language client per brain workspace root (a folder with `brain.toml` or `memory/`), with its file watcher. */
const clients = new Map<string, { client: LanguageClient; watcher: vscode.FileSystemWatcher }>();
/** Roots being started (discovery runs processes): a second request for the same root waits for it. */
const starting = new Map<string, Promise<void>>();
/** Roots without a server, until brain appears in a venv, the setting changes or the user restarts. */
const unavailable = new Set<string>();
/** Counts venv events: a start that found nothing while one arrived looks again. */
let venvEvents = 0;
let venvRetry: NodeJS.Timeout | undefined;
let output: vscode.OutputChannel;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('brain');
  // A venv created (or brain installed into it) after the notification: start without a restart.
  const venvs = vscode.workspace.createFileSystemWatcher(`**/{${VENV_NAMES.join(',')}}/{bin,Scripts}/brain*`);
  context.subscriptions.push(
    output,
    venvs,
    // Created, then made executable (pip and `chmod` alike): both count, one look follows.
    venvs.onDidCreate(venvChanged),
    venvs.onDidChange(venvChanged),
    { dispose: () => clearTimeout(venvRetry) },
    { dispose: () => clearInterval(venvPoll) },
    vscode.commands.registerCommand('brain.restartServer', restartAll),
    vscode.commands.registerCommand('brain.pickServer', notices.pickExecutable),
    vscode.commands.registerCommand('brain.showOutput', () => output.show(true)),
    vscode.workspace.onDidOpenTextDocument((doc) => startForDocument(doc)),
    vscode.workspace.onDidChangeWorkspaceFolders(async (event) => {
      for (const folder of event.removed) await stopUnder(folder.uri.fsPath);
      for (const folder of event.added) startForFolder(folder);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('brain.server')) void restartAll();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.appendLine('The workspace is trusted now: starting.');
      unavailable.clear();
      startAll();
    }),
  );
  startAll();
}

export async function deactivate(): Promise<void> {
  await stopUnder(undefined);
}

function startAll(): void {
  for (const folder of vscode.workspace.workspaceFolders ?? []) startForFolder(folder);
  for (const doc of vscode.workspace.textDocuments) startForDocument(doc);
}

async function restartAll(): Promise<void> {
  output.appendLine('Restarting the brain language server(s)…');
  await stopUnder(undefined);
  unavailable.clear();
  notices.resetNotices();
  startAll();
}

/**
 * The watcher can miss a venv made while a root waits (CI saw no event at all for a
 * `.venv/bin/brain` written well after its folder), so while a root waits the few places a
 * venv keeps brain are also looked at every few seconds. Only a change there counts: a
 * broken brain that is already in place is not started again and again.
 */
let venvPoll: NodeJS.Timeout | undefined;
const venvSeen = new Map<string, string>();

function venvState(root: string): string {
  const dirs = [root, ...(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath)];
  return dirs.flatMap((dir) => VENV_NAMES.map((venv) => {
    try {
      const st = fs.statSync(path.join(dir, venv, ...venvBrain(process.platform)));
      return `${st.mtimeMs}:${st.mode}`;
    } catch {
      return '-';
    }
  })).join(',');
}

function watchVenvsWhileWaiting(root: string): void {
  venvSeen.set(root, venvState(root));
  venvPoll ??= setInterval(() => {
    for (const waiting of [...venvSeen.keys()]) {
      if (!unavailable.has(waiting)) venvSeen.delete(waiting);
    }
    if (venvSeen.size === 0) {
      clearInterval(venvPoll);
      venvPoll = undefined;
      return;
    }
    for (const [waiting, seen] of venvSeen) {
      const now = venvState(waiting);
      if (now !== seen) {
        venvSeen.set(waiting, now);
        venvChanged();
      }
    }
  }, 3000);
}

function venvChanged(): void {
  venvEvents += 1;
  scheduleRetry();
}

/** One look for brain, half a second after the last venv event: a script half written is not looked at. */
function scheduleRetry(): void {
  clearTimeout(venvRetry);
  venvRetry = setTimeout(retryUnavailable, 500);
}

function retryUnavailable(): void {
  if (unavailable.size === 0) return;
  output.appendLine('A virtual environment changed: looking for brain again.');
  unavailable.clear();
  startAll();
}

function startForFolder(folder: vscode.WorkspaceFolder): void {
  if (folder.uri.scheme !== 'file') return;
  const root = folderBrainRoot(folder.uri.fsPath, isDirectory, path, isFile);
  if (root !== undefined) start(root);
}

function startForDocument(doc: vscode.TextDocument): void {
  if (doc.uri.scheme !== 'file' || doc.languageId !== 'markdown') return;
  const root = findBrainRoot(doc.uri.fsPath, isDirectory, path, isFile);
  if (root !== undefined) start(root);
}

function start(root: string): void {
  if (clients.has(root) || starting.has(root) || unavailable.has(root)) return;
  if (!vscode.workspace.isTrusted) {
    // The server is a program from the workspace (.venv) or its settings: it waits for trust.
    output.appendLine(`[${root}] waiting: the workspace is in Restricted Mode (the server starts once it is trusted).`);
    unavailable.add(root);
    void notices.restricted();
    return;
  }
  const seen = venvEvents;
  const started = startClient(root).catch((err: unknown) => {
    unavailable.add(root);
    output.appendLine(`[${root}] the language server was not started: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
    void notices.serverStopped(root, output);
  });
  starting.set(root, started.finally(() => {
    starting.delete(root);
    // brain appeared in a venv while this start was looking: the look may have missed it.
    if (unavailable.has(root) && venvEvents !== seen) scheduleRetry();
    if (unavailable.has(root)) watchVenvsWhileWaiting(root);
  }));
}

async function startClient(root: string): Promise<void> {
  const rootUri = vscode.Uri.file(root);
  const config = vscode.workspace.getConfiguration('brain', rootUri);
  const env = mergeEnv(process.env, config.get('server.env'));
  const folder = vscode.workspace.getWorkspaceFolder(rootUri);

  // A root above the opened folders (one agent's folder of a space) looks in them for a venv too.
  const inside = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath).filter((dir) => isInside(dir, root, path.sep));
  const workspaceDirs = [...new Set([root, ...(folder ? [folder.uri.fsPath] : []), ...inside])];
  let discovery;
  try {
    discovery = await discover(
      {
        configured: config.get('server.command'),
        workspaceDirs,
        python: () => selectedPython(rootUri),
        env,
        platform: process.platform,
        isExecutable,
      },
      (command, args) => probe(command, args, { cwd: root, env }),
    );
  } catch (err) {
    if (!(err instanceof InvalidCommandSetting)) throw err;
    unavailable.add(root);
    output.appendLine(`[${root}] the language server was not started: ${err.message}`);
    // Not awaited: the notification waits for the user, the start must not.
    void notices.badSetting(`${err.message} (${settingOrigin(config)})`);
    return;
  }
  const server = discovery.found;
  if (!server) {
    unavailable.add(root);
    output.appendLine(`[${root}] no brain language server found. Looked for:`);
    for (const line of discovery.tried) output.appendLine(`    ${line}`);
    if (config.get<unknown[] | string>('server.command')?.length) {
      void notices.badSetting(`${discovery.tried[0]} (${settingOrigin(config)})`);
    } else {
      void notices.serverMissing(root, workspaceDirs, discovery.tried);
    }
    return;
  }

  const version = server.version ? `brain ${server.version}` : 'brain';
  const origin = server.source === 'setting' ? `setting, ${settingOrigin(config)}` : server.source;
  output.appendLine(`[${root}] starting ${version} (${origin}): ${formatCommand(server)}`);
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(rootUri, '**/*.{md,yaml,yml,json,jsonl,toml}'));
  let started = false;
  const client = createClient({
    root,
    server,
    env,
    output,
    workspaceFolder: asWorkspaceFolder(rootUri, folder),
    watcher,
    giveUp: () => void notices.serverStopped(root, output),
    everStarted: () => started,
  });
  clients.set(root, { client, watcher });
  try {
    await client.start();
    started = true;
  } catch (err) {
    output.appendLine(`[${root}] the server did not start: ${err instanceof Error ? err.message : String(err)}`);
    void notices.serverStopped(root, output);
  }
}

/** Where `brain.server.command` is set, so the user knows which settings file to edit. */
function settingOrigin(config: vscode.WorkspaceConfiguration): string {
  const value = config.inspect('server.command');
  if (value?.workspaceFolderValue !== undefined) return 'from the folder settings';
  if (value?.workspaceValue !== undefined) return 'from the workspace settings';
  if (value?.globalValue !== undefined) return 'from the User settings';
  return 'from the settings';
}

/** The brain root as the server's workspace folder (rootUri), even when it lies inside a larger folder. */
function asWorkspaceFolder(rootUri: vscode.Uri, folder: vscode.WorkspaceFolder | undefined): vscode.WorkspaceFolder {
  if (folder && folder.uri.fsPath === rootUri.fsPath) return folder;
  return { uri: rootUri, name: path.basename(rootUri.fsPath), index: folder?.index ?? 0 };
}

/** Stops the clients whose root lies under `dir` (all of them when `dir` is undefined). */
async function stopUnder(dir: string | undefined): Promise<void> {
  await Promise.all(starting.values());
  const stopping: Promise<void>[] = [];
  for (const [root, { client, watcher }] of clients) {
    if (dir !== undefined && !isInside(root, dir, path.sep)) continue;
    clients.delete(root);
    stopping.push(client.stop().catch(() => undefined).finally(() => watcher.dispose()));
  }
  await Promise.all(stopping);
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutable(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    if (process.platform !== 'win32') fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
