import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

// The manifest next to out/test/ (tests run from the bundled out/ folder) or to test/.
const manifest = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'),
) as { activationEvents: string[] };

describe('package.json', () => {
  it('activates on brain.toml (every layout) as well as on memory/ notes (latchai)', () => {
    assert.ok(manifest.activationEvents.includes('workspaceContains:brain.toml'));
    assert.ok(manifest.activationEvents.includes('workspaceContains:memory/**/*.md'));
  });
});
