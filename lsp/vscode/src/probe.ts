/**
 * Asks a candidate server for its version before it is started (`brain --version`,
 * `<python> -m brain --version`): a missing or broken install shows up as one clear reason
 * ("No module named brain", "not found") instead of a server that crashes at start.
 */

import { execFile } from 'node:child_process';
import { CheckResult, parseVersion } from './discovery';

export const PROBE_TIMEOUT_MS = 20_000;

export function probe(
  command: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CheckResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? PROBE_TIMEOUT_MS, windowsHide: true, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const version = parseVersion(stdout);
        if (!error && version !== undefined) return resolve({ ok: true, version });
        resolve({ ok: false, reason: failureReason(error, stdout, stderr) });
      },
    );
  });
}

type ExecError = (Error & { code?: string | number | null; killed?: boolean; signal?: NodeJS.Signals | null }) | null;

/** The shortest true account of why the probe failed. */
export function failureReason(error: ExecError, stdout: string, stderr: string): string {
  if (error?.code === 'ENOENT') return 'not found';
  if (error?.code === 'EACCES') return 'not executable';
  if (error?.killed || error?.signal) return `no answer to --version (${error.signal ?? 'timed out'})`;
  const last = lastLine(stderr) ?? lastLine(stdout);
  if (error && typeof error.code === 'number') return last ? `${last} (exit ${error.code})` : `exit ${error.code}`;
  if (error) return error.message;
  return last ? `not brain: answered "${last}"` : 'not brain: no answer to --version';
}

function lastLine(text: string): string | undefined {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  return lines.length > 0 ? lines[lines.length - 1] : undefined;
}
