/**
 * The language client for one brain root, made quiet: the extension decides what the user is
 * told (one notification with what to do), so the client's own error toasts ("couldn't create
 * connection", "crashed 5 times", "Pending response rejected") go to the output channel only,
 * and a server that keeps crashing is not restarted in a loop.
 */

import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
} from 'vscode-languageclient/node';
import { globBelow } from './brain-root';
import { Found } from './discovery';
import { RestartBudget } from './restart-budget';

/** At most this many restarts after crashes within RESTART_WINDOW_MS, then it stays stopped. */
export const MAX_RESTARTS = 2;
export const RESTART_WINDOW_MS = 3 * 60_000;

/** A LanguageClient that logs its errors but never shows them as notifications itself. */
class QuietLanguageClient extends LanguageClient {
  override error(message: string, data?: unknown, _showNotification?: boolean | 'force'): void {
    super.error(message, data, false);
  }

  // The client passes "show a notification?" as the data of some info lines: "false" in the log.
  override info(message: string, data?: unknown, _showNotification?: boolean): void {
    super.info(message, typeof data === 'boolean' ? undefined : data, false);
  }
}

/** Restarts a crashed server a couple of times, quietly; then gives up and says so once. */
export class CrashPolicy implements ErrorHandler {
  private readonly budget = new RestartBudget(MAX_RESTARTS, RESTART_WINDOW_MS);

  constructor(
    private readonly log: (line: string) => void,
    private readonly giveUp: () => void,
    /** Whether the server ever finished starting: one that dies at start is not restarted at all. */
    private readonly everStarted: () => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  error(error: Error, _message: unknown, count: number | undefined): ErrorHandlerResult {
    this.log(`connection error: ${error.message}`);
    return { action: (count ?? 1) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true };
  }

  closed(): CloseHandlerResult {
    if (!this.everStarted()) {
      this.log('the server exited before it finished starting; not restarting it');
      this.giveUp();
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    if (this.budget.allow(this.now())) {
      this.log('the server stopped unexpectedly; restarting it');
      return { action: CloseAction.Restart, handled: true };
    }
    this.log(`the server stopped ${MAX_RESTARTS + 1} times in ${RESTART_WINDOW_MS / 60_000} minutes; not restarting it`);
    this.giveUp();
    return { action: CloseAction.DoNotRestart, handled: true };
  }
}

export interface ClientSetup {
  root: string;
  server: Found;
  env: Record<string, string>;
  output: vscode.OutputChannel;
  workspaceFolder: vscode.WorkspaceFolder;
  watcher: vscode.FileSystemWatcher;
  giveUp(): void;
  everStarted(): boolean;
}

export function createClient(setup: ClientSetup): LanguageClient {
  const { root, server, output } = setup;
  const log = (line: string): void => output.appendLine(`[${root}] ${line}`);
  const serverOptions: ServerOptions = { command: server.command, args: server.args, options: { cwd: root, env: setup.env } };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'markdown', pattern: globBelow(root) }],
    synchronize: { fileEvents: setup.watcher }, // -> workspace/didChangeWatchedFiles
    workspaceFolder: setup.workspaceFolder,
    outputChannel: output,
    traceOutputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    errorHandler: new CrashPolicy(log, setup.giveUp, setup.everStarted),
    initializationFailedHandler: (error) => {
      log(`the server failed to initialize: ${error instanceof Error ? error.message : String(error)}`);
      return false; // no retry: start() rejects and the extension reports it once
    },
  };
  // The id "brain" makes the client read its trace level from `brain.trace.server`.
  return new QuietLanguageClient('brain', `brain (${path.basename(root)})`, serverOptions, clientOptions);
}
