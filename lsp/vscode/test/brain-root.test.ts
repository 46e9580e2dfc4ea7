import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findBrainRoot, folderBrainRoot, globBelow, isBrainRoot, isInside } from '../src/brain-root';

const dirs = (...list: string[]) => {
  const set = new Set(list);
  return (p: string) => set.has(p);
};

describe('findBrainRoot', () => {
  const isDir = dirs('/ws/memory', '/ws/memory/shared', '/ws/agents', '/other');

  it('finds the folder holding memory/ from a note', () => {
    assert.equal(findBrainRoot('/ws/memory/shared/facts.md', isDir, path.posix), '/ws');
    assert.equal(findBrainRoot('/ws/memory/bot/x.md', isDir, path.posix), '/ws');
  });
  it('finds it from other workspace files', () => {
    assert.equal(findBrainRoot('/ws/agents/bot.md', isDir, path.posix), '/ws');
    assert.equal(findBrainRoot('/ws/README.md', isDir, path.posix), '/ws');
  });
  it('returns the nearest root', () => {
    const nested = dirs('/ws/memory', '/ws/sub/memory');
    assert.equal(findBrainRoot('/ws/sub/memory/shared/a.md', nested, path.posix), '/ws/sub');
  });
  it('returns undefined outside any brain workspace', () => {
    assert.equal(findBrainRoot('/other/notes.md', isDir, path.posix), undefined);
    assert.equal(findBrainRoot('/top.md', isDir, path.posix), undefined);
  });
  it('works with Windows paths', () => {
    const win = dirs('C:\\ws\\memory');
    assert.equal(findBrainRoot('C:\\ws\\memory\\shared\\a.md', win, path.win32), 'C:\\ws');
    assert.equal(findBrainRoot('D:\\x\\a.md', win, path.win32), undefined);
  });
});

describe('findBrainRoot with brain.toml', () => {
  const files = (...list: string[]) => {
    const set = new Set(list);
    return (p: string) => set.has(p);
  };

  it('finds the folder holding brain.toml above an agent\'s memory/ (space, mindlink)', () => {
    const isDir = dirs('/ws/alice/memory', '/ws/alice/memory/drafts', '/ws/bob/memory');
    const isFile = files('/ws/brain.toml');
    assert.equal(findBrainRoot('/ws/alice/memory/drafts/plan.md', isDir, path.posix, isFile), '/ws');
    assert.equal(findBrainRoot('/ws/bob/memory/2026-12-01.md', isDir, path.posix, isFile), '/ws');
    // without the file, the nearest memory/ holder is the agent's folder: brain.toml is the way
    assert.equal(findBrainRoot('/ws/alice/memory/drafts/plan.md', isDir, path.posix), '/ws/alice');
  });
  it('finds it for a lab workspace and prefers the nearest brain.toml', () => {
    const isDir = dirs('/lab/memory', '/lab/skills/deploy', '/lab/sub/memory');
    const isFile = files('/lab/brain.toml', '/lab/sub/brain.toml');
    assert.equal(findBrainRoot('/lab/skills/deploy/SKILL.md', isDir, path.posix, isFile), '/lab');
    assert.equal(findBrainRoot('/lab/sub/memory/2026-12-01.md', isDir, path.posix, isFile), '/lab/sub');
  });
  it('falls back to memory/ and to undefined', () => {
    assert.equal(findBrainRoot('/ws/memory/bot/x.md', dirs('/ws/memory'), path.posix, files()), '/ws');
    assert.equal(findBrainRoot('/none/x.md', dirs(), path.posix, files()), undefined);
  });
  it('works with Windows paths', () => {
    const isFile = files('C:\\ws\\brain.toml');
    assert.equal(findBrainRoot('C:\\ws\\alice\\memory\\a.md', dirs('C:\\ws\\alice\\memory'), path.win32, isFile), 'C:\\ws');
  });
});

describe('folderBrainRoot', () => {
  const is = (...list: string[]) => (p: string) => new Set(list).has(p);

  it('gives an agent\'s folder the workspace above it that holds brain.toml', () => {
    const isDir = is('/ws/alice/memory', '/ws/bob/memory');
    const isFile = is('/ws/brain.toml');
    assert.equal(folderBrainRoot('/ws/alice', isDir, path.posix, isFile), '/ws');
    assert.equal(folderBrainRoot('/ws/alice/memory', isDir, path.posix, isFile), '/ws');
    assert.equal(folderBrainRoot('/ws', isDir, path.posix, isFile), '/ws');
    // the same root as its notes get: one server for them
    assert.equal(findBrainRoot('/ws/alice/memory/a.md', isDir, path.posix, isFile), '/ws');
  });
  it('takes the folder itself when it holds memory/, and nothing above a memory/', () => {
    assert.equal(folderBrainRoot('/ws', is('/ws/memory'), path.posix, is()), '/ws');
    assert.equal(folderBrainRoot('/home/me/project', is('/home/me/memory'), path.posix, is()), undefined);
    assert.equal(folderBrainRoot('/none', is(), path.posix, is()), undefined);
  });
  it('works with Windows paths', () => {
    const isFile = is('C:\\ws\\brain.toml');
    assert.equal(folderBrainRoot('C:\\ws\\alice', is('C:\\ws\\alice\\memory'), path.win32, isFile), 'C:\\ws');
  });
});

describe('isBrainRoot / isInside', () => {
  it('checks for brain.toml', () => {
    assert.equal(isBrainRoot('/ws', dirs(), path.posix, (p) => p === '/ws/brain.toml'), true);
    assert.equal(isBrainRoot('/ws', dirs(), path.posix, () => false), false);
  });
  it('checks for the memory folder', () => {
    assert.equal(isBrainRoot('/ws', dirs('/ws/memory'), path.posix), true);
    assert.equal(isBrainRoot('/ws/memory', dirs('/ws/memory'), path.posix), false);
  });
  it('compares whole path segments', () => {
    assert.equal(isInside('/ws/a', '/ws', '/'), true);
    assert.equal(isInside('/ws', '/ws', '/'), true);
    assert.equal(isInside('/wsx/a', '/ws', '/'), false);
  });
});

describe('globBelow', () => {
  it('matches everything below the root with / separators', () => {
    assert.equal(globBelow('/home/u/ws'), '/home/u/ws/**/*');
    assert.equal(globBelow('/home/u/ws/'), '/home/u/ws/**/*');
    assert.equal(globBelow('C:\\Users\\u\\ws'), 'C:/Users/u/ws/**/*');
  });
  it('gives up on paths holding glob syntax', () => {
    assert.equal(globBelow('/home/u/[ws]'), undefined);
    assert.equal(globBelow('/home/u/w{s}'), undefined);
  });
});
