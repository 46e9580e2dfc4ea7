import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  InvalidCommandSetting,
  findExecutable,
  formatCommand,
  getEnv,
  mergeEnv,
  parseConfiguredCommand,
  splitCommandLine,
} from '../src/server-command';

describe('parseConfiguredCommand rejects', () => {
  it('settings that are not a command line', () => {
    for (const configured of [42, { cmd: 'brain' }, ['brain', 1], [''], '"brain lsp']) {
      assert.throws(() => parseConfiguredCommand(configured), InvalidCommandSetting, JSON.stringify(configured));
    }
  });
});

describe('parseConfiguredCommand', () => {
  it('keeps array elements verbatim', () => {
    assert.deepEqual(parseConfiguredCommand(['C:\\Program Files\\brain.exe', 'lsp']), ['C:\\Program Files\\brain.exe', 'lsp']);
  });
  it('treats empty values as unset', () => {
    assert.equal(parseConfiguredCommand([]), undefined);
    assert.equal(parseConfiguredCommand(''), undefined);
  });
});

describe('splitCommandLine', () => {
  it('splits on runs of whitespace', () => {
    assert.deepEqual(splitCommandLine('  brain   lsp\t--x '), ['brain', 'lsp', '--x']);
  });
  it('groups quoted words and keeps empty quoted words', () => {
    assert.deepEqual(splitCommandLine(`python -c 'print("hi there")' "" x"y z"`), ['python', '-c', 'print("hi there")', '', 'xy z']);
  });
  it('handles backslash escapes but keeps Windows paths', () => {
    assert.deepEqual(splitCommandLine('my\\ brain lsp'), ['my brain', 'lsp']);
    assert.deepEqual(splitCommandLine('C:\\venv\\Scripts\\brain.exe lsp'), ['C:\\venv\\Scripts\\brain.exe', 'lsp']);
    assert.deepEqual(splitCommandLine('"say \\"hi\\""'), ['say "hi"']);
  });
  it('reports an unterminated quote', () => {
    assert.throws(() => splitCommandLine("brain 'lsp"), InvalidCommandSetting);
  });
});

describe('mergeEnv', () => {
  it('overlays the setting on the base environment and drops non-strings', () => {
    const env = mergeEnv({ PATH: '/bin', HOME: '/h', GONE: undefined }, { PATH: '/venv/bin:/bin', BRAIN_LOG: 'debug', N: 3, BAD: { x: 1 } });
    assert.deepEqual(env, { PATH: '/venv/bin:/bin', HOME: '/h', BRAIN_LOG: 'debug', N: '3' });
  });
  it('ignores a setting that is not an object', () => {
    assert.deepEqual(mergeEnv({ A: 'a' }, ['B=b']), { A: 'a' });
    assert.deepEqual(mergeEnv({ A: 'a' }, undefined), { A: 'a' });
  });
});

describe('findExecutable', () => {
  it('returns the first match on PATH', () => {
    const files = new Set(['/opt/b/brain', '/usr/bin/brain']);
    const found = findExecutable('brain', { PATH: '/nope:/opt/b/:/usr/bin' }, 'linux', (f) => files.has(f));
    assert.equal(found, '/opt/b/brain');
  });
  it('returns undefined when absent or PATH is unset', () => {
    assert.equal(findExecutable('brain', { PATH: '/usr/bin' }, 'linux', () => false), undefined);
    assert.equal(findExecutable('brain', {}, 'linux', () => true), undefined);
  });
  it('uses Path and PATHEXT on Windows', () => {
    const files = new Set(['C:\\venv\\Scripts\\brain.exe']);
    const env = { Path: 'C:\\Windows;C:\\venv\\Scripts', PATHEXT: '.COM;.EXE' };
    assert.equal(findExecutable('brain', env, 'win32', (f) => files.has(f)), 'C:\\venv\\Scripts\\brain.exe');
    assert.equal(getEnv(env, 'PATH', 'win32'), env.Path);
    assert.equal(getEnv(env, 'PATH', 'linux'), undefined);
  });
});

describe('formatCommand', () => {
  it('quotes words with spaces', () => {
    assert.equal(formatCommand({ command: '/my venv/python', args: ['-m', 'brain', 'lsp'] }), '"/my venv/python" -m brain lsp');
  });
});
