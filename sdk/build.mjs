// Builds the web SDK bundles committed in webdist/ (served by tambua serve
// at /sdk/web.js and /sdk/web.mjs) and the test builds in .build/.
//
//   node build.mjs          write webdist/ and .build/
//   node build.mjs --check  build in memory; fail if webdist/ differs (CI)
//
// esbuild's output is deterministic for the same input and version, which
// the lock file pins, so a rebuild must give the committed bytes.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes('--check');

const web = {
  entryPoints: [join(here, 'web/src/index.ts')],
  bundle: true,
  minify: true,
  target: ['es2018', 'chrome70', 'safari13', 'firefox68'],
  legalComments: 'none',
  charset: 'utf8',
  write: false,
  logLevel: 'warning',
  logOverride: { 'empty-import-meta': 'silent' },
  banner: { js: '/* Tambua web SDK: https://github.com/tambua/tambua (sdk/web). Built by sdk/build.mjs. */' },
};

// The React Native package's JavaScript (sdk/react-native/dist): the
// component with the core inlined, the app's own react, react-native and
// native modules left as imports. Metro compiles it further for the app.
const reactNative = {
  entryPoints: [join(here, 'react-native/src/index.tsx')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  target: ['es2019'],
  jsx: 'automatic',
  external: ['react', 'react/jsx-runtime', 'react-native', 'react-native-vision-camera', 'react-native-worklets-core', '@react-native-community/image-editor'],
  legalComments: 'none',
  charset: 'utf8',
  write: false,
  logLevel: 'warning',
  banner: { js: '/* Tambua React Native SDK: https://github.com/tambua/tambua (sdk/react-native). Built by sdk/build.mjs. */' },
};

const outputs = [
  { file: 'webdist/tambua-web.js', opts: { ...web, format: 'iife', globalName: 'TambuaVerification' }, budget: true },
  { file: 'webdist/tambua-web.mjs', opts: { ...web, format: 'esm' }, budget: true },
  { file: 'react-native/dist/index.js', opts: reactNative },
];

// Budget: the script a page loads, gzipped (issue 21).
export const BUDGET_GZIP = 60 * 1024;

let failed = false;
for (const o of outputs) {
  const r = await esbuild.build(o.opts);
  const bytes = r.outputFiles[0].contents;
  const path = join(here, o.file);
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`${o.file}: ${bytes.length} bytes, ${gz} gzipped${o.budget ? ` (budget ${BUDGET_GZIP})` : ''}`);
  if (o.budget && gz >= BUDGET_GZIP) {
    console.error(`${o.file} is over the gzip budget`);
    failed = true;
  }
  if (check) {
    let have = Buffer.alloc(0);
    try {
      have = readFileSync(path);
    } catch {}
    if (!have.equals(Buffer.from(bytes))) {
      console.error(`${o.file} differs from a fresh build: run "node sdk/build.mjs" and commit it`);
      failed = true;
    }
  } else {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, bytes);
  }
}

// The React Native package's type declarations (react-native/dist/types),
// emitted by tsc; in --check, into a temporary folder compared file by file.
{
  const committed = join(here, 'react-native/dist/types');
  const out = check ? mkdtempSync(join(tmpdir(), 'tmb-types-')) : committed;
  if (!check) rmSync(committed, { recursive: true, force: true });
  execFileSync(process.execPath, [join(here, 'node_modules/typescript/bin/tsc'), '-p', join(here, 'react-native/tsconfig.types.json'), '--outDir', out], { stdio: 'inherit' });
  if (check) {
    const list = (d, pre = '') => readdirSync(join(d, pre), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(d, join(pre, e.name)) : [join(pre, e.name)])).sort();
    let have = [];
    try {
      have = list(committed);
    } catch {}
    const want = list(out);
    const same = have.join() === want.join() && want.every((f) => readFileSync(join(out, f)).equals(readFileSync(join(committed, f))));
    if (!same) {
      console.error('react-native/dist/types differs from a fresh build: run "node sdk/build.mjs" and commit it');
      failed = true;
    }
    rmSync(out, { recursive: true, force: true });
  }
}

// Test builds (not committed): the core for node --test, and the React
// Native component with its native modules replaced by test doubles.
mkdirSync(join(here, '.build'), { recursive: true });
await esbuild.build({
  entryPoints: [join(here, 'core/src/index.ts')],
  bundle: true,
  format: 'esm',
  platform: 'neutral',
  outfile: join(here, '.build/core.mjs'),
  logLevel: 'warning',
});
await esbuild.build({
  entryPoints: [join(here, 'react-native/src/index.tsx')],
  bundle: true,
  format: 'esm',
  platform: 'node',
  jsx: 'automatic',
  outfile: join(here, '.build/react-native.mjs'),
  external: ['react', 'react/jsx-runtime'],
  alias: {
    'react-native': join(here, 'test/mocks/react-native.mjs'),
    'react-native-vision-camera': join(here, 'test/mocks/vision-camera.mjs'),
    'react-native-worklets-core': join(here, 'test/mocks/worklets-core.mjs'),
    '@react-native-community/image-editor': join(here, 'test/mocks/image-editor.mjs'),
  },
  logLevel: 'warning',
});
if (failed) process.exit(1);
