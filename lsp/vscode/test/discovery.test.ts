import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Check, discover, DiscoveryInput, installCommand, parseVersion, probeOf, shortTried } from '../src/discovery';
import { failureReason, probe } from '../src/probe';

/** A check that answers from a table: command -> version, or the reason it fails. */
function tableCheck(table: Record<string, string>, calls: string[][] = []): Check {
  return async (command, args) => {
    calls.push([command, ...args]);
    const answer = table[command];
    if (answer === undefined) return { ok: false, reason: 'not found' };
    return answer.startsWith('!') ? { ok: false, reason: answer.slice(1) } : { ok: true, version: answer };
  };
}

function input(over: Partial<Omit<DiscoveryInput, "python">> & { files?: string[]; python?: string }): DiscoveryInput {
  const files = new Set(over.files ?? []);
  const python = over.python;
  return {
    configured: over.configured ?? [],
    workspaceDirs: over.workspaceDirs ?? ['/ws'],
    python: async () => (python ? { path: python } : { path: undefined, missing: 'the Python extension is not installed' }),
    env: over.env ?? { PATH: '/usr/local/bin:/usr/bin' },
    platform: over.platform ?? 'linux',
    isExecutable: (f) => files.has(f),
  };
}

describe('discover', () => {
  it("uses the workspace's .venv before anything else", async () => {
    const calls: string[][] = [];
    const found = await discover(
      input({ files: ['/ws/.venv/bin/brain', '/usr/bin/brain'], python: '/usr/bin/python3' }),
      tableCheck({ '/ws/.venv/bin/brain': '0.1.0', '/usr/bin/brain': '0.0.9' }, calls),
    );
    assert.deepEqual(found.found, { command: '/ws/.venv/bin/brain', args: ['lsp'], source: 'workspace-venv', probe: ['--version'], version: '0.1.0' });
    assert.deepEqual(calls, [['/ws/.venv/bin/brain', '--version']]);
  });

  it('tries venv/ and the workspace folder when the root has no .venv', async () => {
    const found = await discover(
      input({ workspaceDirs: ['/ws/notes', '/ws'], files: ['/ws/venv/bin/brain'] }),
      tableCheck({ '/ws/venv/bin/brain': '0.1.0' }),
    );
    assert.equal(found.found?.command, '/ws/venv/bin/brain');
  });

  it('looks in Scripts\\brain.exe on Windows', async () => {
    const found = await discover(
      input({ platform: 'win32', workspaceDirs: ['C:\\ws\\'], files: ['C:\\ws\\.venv\\Scripts\\brain.exe'], env: {} }),
      tableCheck({ 'C:\\ws\\.venv\\Scripts\\brain.exe': '0.1.0' }),
    );
    assert.equal(found.found?.command, 'C:\\ws\\.venv\\Scripts\\brain.exe');
  });

  it("skips a venv brain that does not answer, then asks the Python extension's interpreter", async () => {
    const calls: string[][] = [];
    const found = await discover(
      input({ files: ['/ws/.venv/bin/brain'], python: '/opt/py/bin/python' }),
      tableCheck({ '/ws/.venv/bin/brain': '!bad interpreter', '/opt/py/bin/python': '0.1.0' }, calls),
    );
    assert.deepEqual(found.found, {
      command: '/opt/py/bin/python', args: ['-m', 'brain', 'lsp'], source: 'python-extension',
      probe: ['-m', 'brain', '--version'], version: '0.1.0',
    });
    assert.deepEqual(calls[1], ['/opt/py/bin/python', '-m', 'brain', '--version']);
  });

  it('skips an interpreter without brain and falls back to brain on PATH', async () => {
    const found = await discover(
      input({ files: ['/usr/bin/brain'], python: '/usr/bin/python3' }),
      tableCheck({ '/usr/bin/python3': '!No module named brain (exit 1)', '/usr/bin/brain': '0.1.0' }),
    );
    assert.equal(found.found?.source, 'path');
    assert.deepEqual(found.tried, [
      '/ws/.venv/bin/brain, /ws/venv/bin/brain: not found',
      "the Python extension's interpreter /usr/bin/python3: No module named brain (exit 1)",
    ]);
  });

  it('says everything it tried when nothing is found', async () => {
    const found = await discover(input({}), tableCheck({}));
    assert.equal(found.found, undefined);
    assert.deepEqual(found.tried, [
      '/ws/.venv/bin/brain, /ws/venv/bin/brain: not found',
      "the Python extension's interpreter: the Python extension is not installed",
      'brain on PATH: not found',
    ]);
  });

  it('uses the setting alone, checked with --version in place of lsp', async () => {
    const calls: string[][] = [];
    const found = await discover(
      input({ configured: '"/my venv/bin/python" -m brain lsp', files: ['/ws/.venv/bin/brain'] }),
      tableCheck({ '/my venv/bin/python': '0.1.0' }, calls),
    );
    assert.equal(found.found?.source, 'setting');
    assert.deepEqual(found.found?.args, ['-m', 'brain', 'lsp']);
    assert.deepEqual(calls, [['/my venv/bin/python', '-m', 'brain', '--version']]);
  });

  it('reports a setting that does not work instead of falling back', async () => {
    const found = await discover(
      input({ configured: ['/gone/brain', 'lsp'], files: ['/ws/.venv/bin/brain'] }),
      tableCheck({ '/ws/.venv/bin/brain': '0.1.0' }),
    );
    assert.equal(found.found, undefined);
    assert.deepEqual(found.tried, ['the setting brain.server.command (/gone/brain): not found']);
  });

  it('starts a setting it cannot check (no lsp argument) as it is', async () => {
    const calls: string[][] = [];
    const found = await discover(input({ configured: ['/wrap/brain-server'] }), tableCheck({}, calls));
    assert.equal(found.found?.command, '/wrap/brain-server');
    assert.deepEqual(calls, []);
  });
});

describe('probeOf, parseVersion, installCommand, shortTried', () => {
  it('makes paths inside the workspace folder relative to it', () => {
    const tried = ['/ws/notes/.venv/bin/brain, /ws/.venv/bin/brain: not found', 'brain on PATH (/usr/bin/brain): exit 1'];
    assert.deepEqual(shortTried(tried, ['/ws/notes', '/ws/'], '/'), [
      'notes/.venv/bin/brain, .venv/bin/brain: not found',
      'brain on PATH (/usr/bin/brain): exit 1',
    ]);
  });
  it('replaces the lsp subcommand and what follows with --version', () => {
    assert.deepEqual(probeOf(['lsp']), ['--version']);
    assert.deepEqual(probeOf(['-m', 'brain', 'lsp', '--tcp', 'x']), ['-m', 'brain', '--version']);
    assert.equal(probeOf(['serve']), undefined);
  });
  it("accepts only brain's answer", () => {
    assert.equal(parseVersion('brain 0.1.0\n'), '0.1.0');
    assert.equal(parseVersion('Python 3.11.2'), undefined);
    assert.equal(parseVersion(''), undefined);
  });
  it('installs into the workspace .venv', () => {
    assert.match(installCommand('linux'), /^python3 -m venv \.venv && \.venv\/bin\/pip install brain-memory$/);
    assert.match(installCommand('win32'), /\.venv\\Scripts\\pip install /);
  });
});

describe('probe (real processes)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'brain-probe-'));
  const script = (name: string, body: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return file;
  };

  it('reads the version of a program that is brain', async () => {
    assert.deepEqual(await probe(script('brain', 'echo "brain 1.2.3"'), ['--version']), { ok: true, version: '1.2.3' });
  });
  it("gives Python's last error line for an interpreter without brain", async () => {
    const python = script('python', 'echo "Traceback..." >&2; echo "/usr/bin/python3: No module named brain" >&2; exit 1');
    assert.deepEqual(await probe(python, ['-m', 'brain', '--version']), {
      ok: false, reason: '/usr/bin/python3: No module named brain (exit 1)',
    });
  });
  it('says not found for a missing file, and not brain for another program', async () => {
    assert.deepEqual(await probe(path.join(dir, 'missing'), ['--version']), { ok: false, reason: 'not found' });
    assert.deepEqual(await probe(script('other', 'echo "other 2.0"'), ['--version']), { ok: false, reason: 'not brain: answered "other 2.0"' });
  });
  it('gives up on a program that does not answer', async () => {
    const result = await probe(script('hang', 'sleep 5'), ['--version'], { timeoutMs: 200 });
    assert.equal(result.ok, false);
    assert.match(result.ok ? '' : result.reason, /^no answer to --version/);
  });
  it('failureReason without an error is a wrong answer', () => {
    assert.equal(failureReason(null, '', ''), 'not brain: no answer to --version');
  });
});
