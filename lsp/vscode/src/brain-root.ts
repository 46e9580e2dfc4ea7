/**
 * Where a brain workspace starts: the nearest folder that contains a `memory/`
 * folder. Pure: the file system check is injected.
 */

export interface PathApi {
  dirname(p: string): string;
  join(...parts: string[]): string;
}

/** True when `dir` holds a `memory` folder. */
export function isBrainRoot(dir: string, isDirectory: (p: string) => boolean, pathApi: PathApi): boolean {
  return isDirectory(pathApi.join(dir, 'memory'));
}

/**
 * The nearest ancestor of `file` (a file path) that contains a `memory` folder,
 * or undefined when there is none up to the file system root.
 */
export function findBrainRoot(
  file: string,
  isDirectory: (p: string) => boolean,
  pathApi: PathApi,
): string | undefined {
  let dir = pathApi.dirname(file);
  for (;;) {
    if (isBrainRoot(dir, isDirectory, pathApi)) return dir;
    const parent = pathApi.dirname(dir);
    if (parent === dir) return undefined;
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
