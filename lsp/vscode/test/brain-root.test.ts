import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findBrainRoot, globBelow, isBrainRoot, isInside } from '../src/brain-root';

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

describe('isBrainRoot / isInside', () => {
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
