// Builds the web SDK bundles committed in webdist/ (served by tambua serve
// at /sdk/web.js and /sdk/web.mjs) and the test builds in .build/.
//
//   node build.mjs          write webdist/ and .build/
//   node build.mjs --check  build in memory; fail if webdist/ differs (CI)
//
// esbuild's output is deterministic for the same input and version, which
// the lock file pins, so a rebuild must give the committed bytes.
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
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

const outputs = [
  { file: 'webdist/tambua-web.js', opts: { ...web, format: 'iife', globalName: 'TambuaVerification' } },
  { file: 'webdist/tambua-web.mjs', opts: { ...web, format: 'esm' } },
];

// Budget: the script a page loads, gzipped (issue 21).
export const BUDGET_GZIP = 60 * 1024;

let failed = false;
for (const o of outputs) {
  const r = await esbuild.build(o.opts);
  const bytes = r.outputFiles[0].contents;
  const path = join(here, o.file);
  const gz = gzipSync(bytes, { level: 9 }).length;
  console.log(`${o.file}: ${bytes.length} bytes, ${gz} gzipped (budget ${BUDGET_GZIP})`);
  if (gz >= BUDGET_GZIP) {
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
    '@react-native-community/image-editor': join(here, 'test/mocks/image-editor.mjs'),
  },
  logLevel: 'warning',
});
if (failed) process.exit(1);
