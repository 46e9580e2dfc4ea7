// Bundles the extension into dist/extension.js (`vscode` is provided by the editor).
// With --tests, bundles the unit tests into out/test/*.test.js for `node --test`.
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';

const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'warning' };

if (process.argv.includes('--tests')) {
  const tests = readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  await build({ ...common, entryPoints: tests, outdir: 'out/test', external: ['vscode'] });
} else {
  await build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], minify: true });
}
