/**
 * Finding the brain language server without configuration: pure, no `vscode` import, so it
 * runs (and is unit-tested) under plain Node. The file system check and the process check
 * are injected.
 *
 * Order: the `brain.server.command` setting when given (and only it: a setting that does not
 * work is reported, never silently replaced); else `brain` in the workspace's own virtual
 * environment (`.venv`, `venv`), the interpreter selected in the Python extension
 * (`<python> -m brain lsp`), and `brain` on PATH. Each candidate must answer
 * `--version` with `brain <version>` before it is started, so a Python without brain is
 * skipped instead of crashing five times.
 */

import { Env, findExecutable, parseConfiguredCommand } from './server-command';

export type Source = 'setting' | 'workspace-venv' | 'python-extension' | 'path';

export interface Candidate {
  command: string;
  args: string[];
  source: Source;
  /** The arguments that print `brain <version>`; undefined: the setting cannot be checked. */
  probe: string[] | undefined;
}

export interface Found extends Candidate {
  version: string | undefined;
}

export interface DiscoveryInput {
  /** Raw value of `brain.server.command`. */
  configured: unknown;
  /** Where to look for a virtual environment: the brain root, then its workspace folder. */
  workspaceDirs: string[];
  /** The interpreter selected in the Python extension, asked only when the venvs had no brain. */
  python(): Promise<{ path: string | undefined; missing?: string }>;
  env: Env;
  platform: string;
  isExecutable(file: string): boolean;
}

export type CheckResult = { ok: true; version: string } | { ok: false; reason: string };
export type Check = (command: string, args: string[]) => Promise<CheckResult>;

export interface Discovery {
  found: Found | undefined;
  /** One line per place looked at and why it did not do, for the notification and the log. */
  tried: string[];
}

export const VENV_NAMES = ['.venv', 'venv'];

/** Where a virtual environment keeps `brain`, relative to the venv folder. */
export function venvBrain(platform: string): string[] {
  return platform === 'win32' ? ['Scripts', 'brain.exe'] : ['bin', 'brain'];
}

function join(platform: string, ...parts: string[]): string {
  const sep = platform === 'win32' ? '\\' : '/';
  return parts.map((p, i) => (i === 0 ? p.replace(/[\\/]+$/, '') : p)).join(sep);
}

/** `setting [.., lsp, ..]` -> `[.., --version]`: the same program asked for its version. */
export function probeOf(args: string[]): string[] | undefined {
  const at = args.lastIndexOf('lsp');
  return at < 0 ? undefined : [...args.slice(0, at), '--version'];
}

/** `brain 0.1.0` -> `0.1.0`; undefined for anything that is not brain's answer. */
export function parseVersion(stdout: string): string | undefined {
  const match = /^brain\s+(\S+)/m.exec(stdout.trim());
  return match ? match[1] : undefined;
}

export async function discover(input: DiscoveryInput, check: Check): Promise<Discovery> {
  const tried: string[] = [];
  const configured = parseConfiguredCommand(input.configured);
  if (configured) {
    const [command, ...args] = configured;
    const candidate: Candidate = { command, args, source: 'setting', probe: probeOf(args) };
    if (candidate.probe === undefined) return { found: { ...candidate, version: undefined }, tried };
    const result = await check(command, candidate.probe);
    if (result.ok) return { found: { ...candidate, version: result.version }, tried };
    tried.push(`the setting brain.server.command (${command}): ${result.reason}`);
    return { found: undefined, tried };
  }

  const attempt = async (candidate: Candidate, what: string): Promise<Found | undefined> => {
    const result = await check(candidate.command, candidate.probe ?? []);
    if (result.ok) return { ...candidate, version: result.version };
    tried.push(`${what}: ${result.reason}`);
    return undefined;
  };

  const inVenv = venvBrain(input.platform);
  const missing: string[] = [];
  for (const dir of unique(input.workspaceDirs)) {
    for (const venv of VENV_NAMES) {
      const file = join(input.platform, dir, venv, ...inVenv);
      if (!input.isExecutable(file)) {
        missing.push(file);
        continue;
      }
      const found = await attempt({ command: file, args: ['lsp'], source: 'workspace-venv', probe: ['--version'] }, file);
      if (found) return { found, tried };
    }
  }
  if (missing.length > 0) tried.push(`${missing.join(', ')}: not found`);

  const selected = await input.python();
  if (selected.path) {
    const python = selected.path;
    const found = await attempt(
      { command: python, args: ['-m', 'brain', 'lsp'], source: 'python-extension', probe: ['-m', 'brain', '--version'] },
      `the Python extension's interpreter ${python}`,
    );
    if (found) return { found, tried };
  } else {
    tried.push(`the Python extension's interpreter: ${selected.missing ?? 'none selected'}`);
  }

  const onPath = findExecutable('brain', input.env, input.platform, input.isExecutable);
  if (onPath) {
    const found = await attempt({ command: onPath, args: ['lsp'], source: 'path', probe: ['--version'] }, `brain on PATH (${onPath})`);
    if (found) return { found, tried };
  } else {
    tried.push('brain on PATH: not found');
  }
  return { found: undefined, tried };
}

function unique(items: string[]): string[] {
  return [...new Set(items)];
}

/** The shell command that installs brain into the workspace's `.venv`. */
export function installCommand(platform: string): string {
  return platform === 'win32'
    ? 'py -m venv .venv; .venv\\Scripts\\pip install brain-memory'
    : 'python3 -m venv .venv && .venv/bin/pip install brain-memory';
}

/**
 * What was tried, with paths inside the outermost of `dirs` (the workspace folder) made
 * relative to it: the notification stays readable; the output channel keeps full paths.
 */
export function shortTried(tried: string[], dirs: string[], sep: string): string[] {
  if (dirs.length === 0) return tried;
  const outermost = dirs.reduce((a, b) => (b.length < a.length ? b : a));
  const prefix = outermost.replace(/[\\/]+$/, '') + sep;
  return tried.map((line) => line.split(prefix).join(''));
}
