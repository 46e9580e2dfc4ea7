/**
 * Where a brain workspace starts: the nearest folder holding a `brain.toml` (any layout:
 * latchai, space, mindlink, lab), else the nearest folder that contains a `memory/` folder
 * (the latchai and lab layouts without the file). `brain.toml` wins over a nearer `memory/`
 * because in the space and mindlink layouts every agent has its own `<agent>/memory/`, one
 * level below the workspace. Pure: the file system checks are injected.
 */

export interface PathApi {
  dirname(p: string): string;
  join(...parts: string[]): string;
}

export const CONFIG_FILE = 'brain.toml';

const noFile = (_p: string): boolean => false;

/** True when `dir` holds a `brain.toml` file or a `memory` folder. */
export function isBrainRoot(
  dir: string,
  isDirectory: (p: string) => boolean,
  pathApi: PathApi,
  isFile: (p: string) => boolean = noFile,
): boolean {
  return isFile(pathApi.join(dir, CONFIG_FILE)) || isDirectory(pathApi.join(dir, 'memory'));
}

/**
 * The brain root to start for a workspace folder the user opened: the nearest folder at or
 * above it holding `brain.toml` (one agent's folder of a space or mindlink workspace belongs to
 * the workspace above it, whose layout rules apply), else the folder itself when it holds
 * `memory/`, else undefined (a note opened later is placed by `findBrainRoot`). The same root
 * `findBrainRoot` gives the folder's notes, so one server serves them, not two.
 */
export function folderBrainRoot(
  folder: string,
  isDirectory: (p: string) => boolean,
  pathApi: PathApi,
  isFile: (p: string) => boolean = noFile,
): string | undefined {
  for (let dir = folder; ; ) {
    if (isFile(pathApi.join(dir, CONFIG_FILE))) return dir;
    const parent = pathApi.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return isDirectory(pathApi.join(folder, 'memory')) ? folder : undefined;
}

/**
 * The brain root of `file` (a file path): its nearest ancestor holding `brain.toml`, else
 * its nearest ancestor holding a `memory` folder, else undefined.
 */
export function findBrainRoot(
  file: string,
  isDirectory: (p: string) => boolean,
  pathApi: PathApi,
  isFile: (p: string) => boolean = noFile,
): string | undefined {
  let dir = pathApi.dirname(file);
  let withMemory: string | undefined;
  for (;;) {
    if (isFile(pathApi.join(dir, CONFIG_FILE))) return dir;
    if (withMemory === undefined && isDirectory(pathApi.join(dir, 'memory'))) withMemory = dir;
    const parent = pathApi.dirname(dir);
    if (parent === dir) return withMemory;
    dir = parent;
  }
}

/** True when `file` is `dir` itself or lies below it. */
export function isInside(file: string, dir: string, sep: string): boolean {
  if (file === dir) return true;
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  return file.startsWith(prefix);
}

/**
 * A document-selector glob matching the files below `root`, with `/` separators
 * (VS Code globs accept them on Windows too). Undefined when the path itself holds
 * glob syntax; the caller then matches by scheme and language only.
 */
export function globBelow(root: string): string | undefined {
  if (/[*?[\]{}]/.test(root)) return undefined;
  const posix = root.replace(/\\/g, '/').replace(/\/+$/, '');
  return `${posix}/**/*`;
}
