/**
 * How the brain language server is started: pure functions, no `vscode` import,
 * so they run (and are unit-tested) under plain Node.
 */

/** Thrown for a `brain.server.command` value that cannot be a command line. */
export class InvalidCommandSetting extends Error {}

/**
 * The setting as argv, or undefined when it is empty (meaning: use the defaults).
 * Throws InvalidCommandSetting for anything else than a string or an array of strings.
 */
export function parseConfiguredCommand(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  let argv: string[];
  if (typeof value === 'string') {
    argv = splitCommandLine(value);
  } else if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) {
    argv = value;
  } else {
    throw new InvalidCommandSetting('brain.server.command must be a string or an array of strings');
  }
  if (argv.length === 0) return undefined;
  if (argv[0].trim() === '') {
    throw new InvalidCommandSetting('brain.server.command: the first element (the executable) is empty');
  }
  return argv;
}

/**
 * Splits a command line on whitespace; single and double quotes group words,
 * a backslash escapes the next character outside single quotes (except on
 * Windows-style paths, where a backslash not followed by a quote, a space or
 * another backslash is kept as is).
 */
export function splitCommandLine(line: string): string[] {
  const argv: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote) {
      if (ch === quote) {
        quote = undefined;
      } else if (ch === '\\' && quote === '"' && (line[i + 1] === '"' || line[i + 1] === '\\')) {
        current += line[++i];
      } else {
        current += ch;
      }
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < line.length && /[\s"'\\]/.test(line[i + 1])) {
      current += line[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) argv.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new InvalidCommandSetting(`brain.server.command: unterminated ${quote} quote`);
  if (inWord) argv.push(current);
  return argv;
}

export type Env = Record<string, string | undefined>;

/** VS Code's environment with `brain.server.env` on top; non-string values are ignored. */
export function mergeEnv(base: Env, extra: unknown): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (typeof value === 'string') env[key] = value;
  }
  if (extra && typeof extra === 'object' && !Array.isArray(extra)) {
    for (const [key, value] of Object.entries(extra as Record<string, unknown>)) {
      if (typeof value === 'string') env[key] = value;
      else if (typeof value === 'number' || typeof value === 'boolean') env[key] = String(value);
    }
  }
  return env;
}

/** Reads an environment variable; case-insensitively on Windows, where `Path` is common. */
export function getEnv(env: Env, name: string, platform: string): string | undefined {
  if (platform !== 'win32') return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key === undefined ? undefined : env[key];
}

/**
 * Finds `name` on the PATH of `env`, like `which`. `isExecutable` is the only I/O,
 * injected so that tests need no file system.
 */
export function findExecutable(
  name: string,
  env: Env,
  platform: string,
  isExecutable: (file: string) => boolean,
): string | undefined {
  const windows = platform === 'win32';
  const sep = windows ? ';' : ':';
  const slash = windows ? '\\' : '/';
  const dirs = (getEnv(env, 'PATH', platform) ?? '').split(sep).filter((d) => d !== '');
  const extensions = windows
    ? ['', ...(getEnv(env, 'PATHEXT', platform) ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '')]
    : [''];
  for (const dir of dirs) {
    const base = dir.endsWith(slash) || dir.endsWith('/') ? dir : dir + slash;
    for (const ext of extensions) {
      const candidate = base + name + ext.toLowerCase();
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

/** The command line as one string for the log, quoting words with spaces. */
export function formatCommand(cmd: { command: string; args: string[] }): string {
  return [cmd.command, ...cmd.args].map((w) => (w === '' || /[\s"']/.test(w) ? JSON.stringify(w) : w)).join(' ');
}
