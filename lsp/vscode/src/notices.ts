/**
 * What the user is told, and what the buttons do. Each notice is shown once per window until
 * the user acts (restart, change of setting, trust granted): a missing server is one
 * notification that says where brain was looked for, never a toast per file or per retry.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { installCommand, probeOf, shortTried } from './discovery';
import { probe } from './probe';

export const PICK = 'Pick executable…';
export const OPEN_SETTING = 'Open setting';
export const COPY_INSTALL = 'Copy install command';

const shown = new Set<string>();

/** Shows the next notices again (after a restart or a change of setting). */
export function resetNotices(): void {
  shown.clear();
}

function once(key: string): boolean {
  if (shown.has(key)) return false;
  shown.add(key);
  return true;
}

export async function serverMissing(root: string, dirs: string[], tried: string[]): Promise<void> {
  if (!once('missing')) return;
  const message =
    `brain: no language server found for ${path.basename(root)}, so there is no completion or diagnostics. ` +
    `Looked for ${shortTried(tried, dirs, path.sep).join('; ')}. Install brain into the workspace's .venv, or pick the executable.`;
  const choice = await vscode.window.showWarningMessage(message, PICK, OPEN_SETTING, COPY_INSTALL);
  await act(choice);
}

export async function badSetting(message: string): Promise<void> {
  if (!once('setting')) return;
  const choice = await vscode.window.showErrorMessage(`brain: ${message}`, OPEN_SETTING, PICK);
  await act(choice);
}

export async function serverStopped(root: string, output: vscode.OutputChannel): Promise<void> {
  if (!once(`stopped:${root}`)) return;
  const choice = await vscode.window.showErrorMessage(
    `brain: the language server for ${path.basename(root)} stopped and was not restarted (details in the brain output).`,
    'Show output',
    'Restart',
  );
  if (choice === 'Show output') output.show(true);
  if (choice === 'Restart') await vscode.commands.executeCommand('brain.restartServer');
}

export async function restricted(): Promise<void> {
  if (!once('restricted')) return;
  const choice = await vscode.window.showInformationMessage(
    'brain: this folder is in Restricted Mode. The brain language server (a program from the ' +
      "workspace's .venv or your settings) starts as soon as you trust the folder.",
    'Manage Workspace Trust',
  );
  if (choice) await vscode.commands.executeCommand('workbench.trust.manage');
}

async function act(choice: string | undefined): Promise<void> {
  if (choice === PICK) await pickExecutable();
  else if (choice === OPEN_SETTING) await vscode.commands.executeCommand('workbench.action.openSettings', 'brain.server.command');
  else if (choice === COPY_INSTALL) {
    const command = installCommand(process.platform);
    await vscode.env.clipboard.writeText(command);
    void vscode.window.showInformationMessage(
      `Copied "${command}". Run it in the workspace folder's terminal; the server starts by itself (or run "brain: Restart language server").`,
    );
  }
}

/** Asks for `brain` (or a Python that has brain), checks it, and saves it in the User settings. */
export async function pickExecutable(): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    canSelectFiles: true,
    canSelectFolders: false,
    canSelectMany: false,
    openLabel: 'Use for brain',
    title: 'The brain executable (…/bin/brain), or a Python interpreter that has brain installed',
  });
  const file = picked?.[0]?.fsPath;
  if (!file) return;
  const command = /^python[\d.]*(\.exe)?$/i.test(path.basename(file)) ? [file, '-m', 'brain', 'lsp'] : [file, 'lsp'];
  const result = await probe(command[0], probeOf(command.slice(1)) ?? ['--version']);
  if (!result.ok) {
    void vscode.window.showErrorMessage(`brain: ${file} cannot run brain: ${result.reason}`);
    return;
  }
  // User settings: a path on this machine, not something to commit with the workspace.
  await vscode.workspace.getConfiguration('brain').update('server.command', command, vscode.ConfigurationTarget.Global);
}
