import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, RevealOutputChannelOn, ServerOptions } from 'vscode-languageclient/node';
import { findBrainRoot, globBelow, isBrainRoot, isInside } from './brain-root';
import { findExecutable, formatCommand, mergeEnv, resolveServerCommand } from './server-command';

/** One language client per brain workspace root (a folder containing `memory/`), with its file watcher. */
const clients = new Map<string, { client: LanguageClient; watcher: vscode.FileSystemWatcher }>();
let output: vscode.OutputChannel;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('brain');
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('brain.restartServer', restartAll),
    vscode.workspace.onDidOpenTextDocument((doc) => startForDocument(doc)),
    vscode.workspace.onDidChangeWorkspaceFolders(async (event) => {
      for (const folder of event.removed) await stopUnder(folder.uri.fsPath);
      for (const folder of event.added) startForFolder(folder);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('brain.server')) void restartAll();
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
  startAll();
}

function startForFolder(folder: vscode.WorkspaceFolder): void {
  if (folder.uri.scheme === 'file' && isBrainRoot(folder.uri.fsPath, isDirectory, path)) {
    void startClient(folder.uri.fsPath);
  }
}

function startForDocument(doc: vscode.TextDocument): void {
  if (doc.uri.scheme !== 'file' || doc.languageId !== 'markdown') return;
  const root = findBrainRoot(doc.uri.fsPath, isDirectory, path);
  if (root !== undefined) void startClient(root);
}

async function startClient(root: string): Promise<void> {
  if (clients.has(root)) return;
  const rootUri = vscode.Uri.file(root);
  const config = vscode.workspace.getConfiguration('brain', rootUri);
  const env = mergeEnv(process.env, config.get('server.env'));

  let server;
  try {
    server = resolveServerCommand({
      configured: config.get('server.command'),
      brainOnPath: findExecutable('brain', env, process.platform, isExecutable),
      pythonPath: await activePythonPath(rootUri),
      platform: process.platform,
    });
  } catch (err) {
    return reportBadSetting(root, err);
  }
  if (clients.has(root)) return; // started meanwhile, while we asked the Python extension

  output.appendLine(`[${root}] starting (${server.source}): ${formatCommand(server)}`);
  const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(rootUri, '**/*.{md,yaml,yml,json,jsonl}'));
  const serverOptions: ServerOptions = { command: server.command, args: server.args, options: { cwd: root, env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'markdown', pattern: globBelow(root) }],
    synchronize: { fileEvents: watcher }, // -> workspace/didChangeWatchedFiles
    workspaceFolder: asWorkspaceFolder(rootUri),
    outputChannel: output,
    traceOutputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
  };
  // The id "brain" makes the client read its trace level from `brain.trace.server`.
  const client = new LanguageClient('brain', `brain (${path.basename(root)})`, serverOptions, clientOptions);
  clients.set(root, { client, watcher });
  try {
    await client.start();
  } catch {
    // The client has already shown the error and logged it; add what to do about it.
    output.appendLine(`[${root}] ${HOW_TO_FIX}`);
  }
}

const HOW_TO_FIX =
  'Set "brain.server.command" to the full path of brain (e.g. ["/path/to/venv/bin/brain", "lsp"]), ' +
  'then run "brain: Restart language server".';

/** The brain root as the server's workspace folder (rootUri), even when it lies inside a larger folder. */
function asWorkspaceFolder(rootUri: vscode.Uri): vscode.WorkspaceFolder {
  const folder = vscode.workspace.getWorkspaceFolder(rootUri);
  if (folder && folder.uri.fsPath === rootUri.fsPath) return folder;
  return { uri: rootUri, name: path.basename(rootUri.fsPath), index: folder?.index ?? 0 };
}

/** Stops the clients whose root lies under `dir` (all of them when `dir` is undefined). */
async function stopUnder(dir: string | undefined): Promise<void> {
  const stopping: Promise<void>[] = [];
  for (const [root, { client, watcher }] of clients) {
    if (dir !== undefined && !isInside(root, dir, path.sep)) continue;
    clients.delete(root);
    stopping.push(client.stop().catch(() => undefined).finally(() => watcher.dispose()));
  }
  await Promise.all(stopping);
}

function reportBadSetting(root: string, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  output.appendLine(`[${root}] the language server was not started: ${message}`);
  void vscode.window.showErrorMessage(`brain: ${message}`, 'Open settings').then((choice) => {
    if (choice) void vscode.commands.executeCommand('workbench.action.openSettings', 'brain.server');
  });
}

/** The part of the ms-python.python extension API that we use. */
interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment?(env: { id: string; path: string }): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

/** The interpreter selected in the Python extension, if it is installed. */
async function activePythonPath(resource: vscode.Uri): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonApi>('ms-python.python');
  if (!extension) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const environments = api?.environments;
    if (!environments || typeof environments.getActiveEnvironmentPath !== 'function') return undefined;
    const active = environments.getActiveEnvironmentPath(resource);
    const resolved = await environments.resolveEnvironment?.(active);
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch (err) {
    output.appendLine(`Could not ask the Python extension for its interpreter: ${String(err)}`);
    return undefined;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
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
