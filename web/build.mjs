// Bundles the web UI into ../brain/api/web_dist (package data `brain serve` answers at /), or into
// BRAIN_WEB_OUT: make dist builds into a folder of its own, never under a checkout's running server.
// index.html names each asset with ?v=<content hash> so browsers cache builds forever and
// never mix two. With --tests, bundles the unit tests into out/test/ for `node --test`.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

if (process.argv.includes('--tests')) {
  const tests = readdirSync('test').filter((f) => f.endsWith('.test.ts')).map((f) => `test/${f}`);
  rmSync('out', { recursive: true, force: true });
  await build({
    entryPoints: tests, outdir: 'out/test', bundle: true, platform: 'node', format: 'esm',
    target: 'node18', logLevel: 'warning', outExtension: { '.js': '.mjs' }, loader: { '.graphql': 'text' },
    // graphology is CommonJS that requires node's `events`: an ES module bundle needs a require.
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    define: { __LAYOUT_WORKER__: JSON.stringify('layout-worker.js') },
  });
} else {
  const dist = process.env.BRAIN_WEB_OUT || '../brain/api/web_dist';
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(`${dist}/assets`, { recursive: true });
  // The whole-workspace layout's worker: a classic script of its own (module workers are newer
  // than the browsers targeted), named with its content hash in the URL the graph view makes.
  await build({
    entryPoints: { 'layout-worker': 'src/graph/overview/worker.ts' }, outdir: `${dist}/assets`, bundle: true, minify: true,
    format: 'iife', target: ['chrome100', 'firefox100', 'safari15'], platform: 'browser', legalComments: 'none', logLevel: 'warning',
  });
  const workerHash = createHash('sha256').update(readFileSync(`${dist}/assets/layout-worker.js`)).digest('hex').slice(0, 12);
  const { metafile } = await build({
    define: { __LAYOUT_WORKER__: JSON.stringify(`layout-worker.js?v=${workerHash}`) },
    entryPoints: { app: 'src/main.ts' }, outdir: `${dist}/assets`, bundle: true, minify: true,
    format: 'esm', splitting: true, chunkNames: 'chunk-[hash]', target: ['chrome100', 'firefox100', 'safari15'], platform: 'browser',
    sourcemap: false, legalComments: 'none', logLevel: 'warning', loader: { '.css': 'css', '.graphql': 'text' }, metafile: true,
  });
  // Chunks the entry imports (those it shares with lazy views), fetched side by side with
  // app.js instead of after it.
  const outputs = metafile.outputs;
  const entry = Object.keys(outputs).find((k) => outputs[k].entryPoint === 'src/main.ts');
  const preload = new Set();
  const visit = (out) => {
    for (const i of outputs[out].imports) if (i.kind === 'import-statement' && !preload.has(i.path)) { preload.add(i.path); visit(i.path); }
  };
  visit(entry);
  const preloads = [...preload].map((p) => `<link rel="modulepreload" href="assets/${p.split('/').pop()}">`).join('\n');
  const version = (name) => createHash('sha256').update(readFileSync(`${dist}/assets/${name}`)).digest('hex').slice(0, 12);
  const page = readFileSync('index.html', 'utf8')
    .replace('{{css}}', `assets/app.css?v=${version('app.css')}`)
    .replace('{{js}}', `assets/app.js?v=${version('app.js')}`)
    .replace('{{preload}}', preloads);
  writeFileSync(`${dist}/index.html`, page);
  let total = 0;
  let gz = 0;
  for (const name of readdirSync(`${dist}/assets`).sort()) {
    const raw = readFileSync(`${dist}/assets/${name}`);
    total += raw.length;
    gz += gzipSync(raw).length;
    console.log(`[brain-web] ${name}: ${(raw.length / 1024).toFixed(1)} KiB, ${(gzipSync(raw).length / 1024).toFixed(1)} KiB gzipped`);
  }
  console.log(`[brain-web] total: ${(total / 1024).toFixed(1)} KiB, ${(gz / 1024).toFixed(1)} KiB gzipped`);
}
