// Shared by the SDK tests: a real `tambua serve` on a temporary data
// folder, the synthetic captures and fake-camera video (Go helper
// internal/testkit/sdke2e), and a workflow made through the admin CLI.
import { spawn, execFileSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync, rmSync, existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const sdkDir = join(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = join(sdkDir, '..');

/** The tambua binary: TAMBUA_BIN (scripts/test.sh builds it once), or a fresh build. */
export function tambuaBin() {
  if (process.env.TAMBUA_BIN && existsSync(process.env.TAMBUA_BIN)) return process.env.TAMBUA_BIN;
  const out = join(mkdtempSync(join(tmpdir(), 'tmb-bin-')), 'tambua');
  execFileSync('go', ['build', '-o', out, './cmd/tambua'], { cwd: repoDir, stdio: 'inherit' });
  process.env.TAMBUA_BIN = out;
  return out;
}

/** Runs the Go helper. */
export function sdke2e(...args) {
  return execFileSync('go', ['run', './internal/testkit/sdke2e', ...args], { cwd: repoDir, encoding: 'utf8' }).trim();
}

/**
 * Synthetic captures and camera.y4m in a temporary folder: one card of
 * the definition (a passport is one-sided: its data page is both front
 * and back) with a selfie of the same person.
 */
export function makeCaptures(seed = 11, config = 'ke_passport') {
  const dir = mkdtempSync(join(tmpdir(), 'tmb-cam-'));
  sdke2e('capture', '-out', dir, '-seed', String(seed), '-config', config);
  return dir;
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * A JWT signed with HS256 under key, as the server signs its tokens
 * (server/auth.go): the tests mint real tokens the server's own check
 * judges, such as one whose lifetime is over.
 */
export function signJwt(key, claims) {
  const enc = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc(claims)}`;
  return `${head}.${createHmac('sha256', key).update(head).digest('base64url')}`;
}

/** The claims of a JWT, unchecked. */
export const jwtClaims = (tok) => JSON.parse(Buffer.from(tok.split('.')[1], 'base64url').toString());

/**
 * Starts tambua serve on a fresh data folder and reads the demo
 * organisation it prints. stop() ends it and removes the folder.
 *
 * The server is given its signing keys the way replicas are
 * (TAMBUA_SIGNING_KEY, in the "TOKEN:FILES" form, docs/deploy.md), so
 * the test knows the token key (tokenKey) and can mint tokens the server
 * accepts or refuses on their merits, without any test-only switch in
 * the server.
 */
export async function startServer(extraArgs = []) {
  const bin = tambuaBin();
  const data = mkdtempSync(join(tmpdir(), 'tmb-data-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const tokenKey = randomBytes(32);
  const signingKey = `${tokenKey.toString('base64')}:${randomBytes(32).toString('base64')}`;
  const proc = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--data', data, '--workers', '1', '--log-level', 'warn', ...extraArgs], {
    env: { ...process.env, TAMBUA_SIGNING_KEY: signingKey },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (err += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`tambua serve exited: ${err}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.status === 200 && out.includes('work_flow_id')) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`tambua serve did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const field = (name) => {
    const m = out.match(new RegExp(`^\\s*${name}\\s+(\\S+)`, 'm'));
    if (!m) throw new Error(`no ${name} in the demo printout`);
    return m[1];
  };
  const demo = { organisationId: Number(field('organisation_id')), clientId: field('client_id'), secret: field('client_secret'), workflowId: field('work_flow_id') };
  return {
    url,
    data,
    demo,
    tokenKey,
    logs: () => err,
    /** Runs a tambua admin command on the server's data folder; returns its JSON. */
    admin(...args) {
      return JSON.parse(execFileSync(bin, [...args, '--data', data, '--json'], { encoding: 'utf8', env: { ...process.env, TAMBUA_CLIENT_SECRET: demo.secret, TAMBUA_SIGNING_KEY: signingKey } }));
    },
    /** A workflow of the demo client from an idv.Workflow object. */
    createWorkflow(def) {
      const file = join(data, `wf-${Date.now()}.json`);
      writeFileSync(file, JSON.stringify(def));
      return this.admin('workflows', 'create', '--client', demo.clientId, '--file', file);
    },
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once('exit', r)));
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** POSTs an envelope to /postdata. */
export async function postdata(url, body, token) {
  const headers = { 'Content-Type': 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  const r = await fetch(`${url}/postdata`, { method: 'POST', headers, body: JSON.stringify({ rpcQueue: 'idv-gateway-v2', ...body }) });
  return { status: r.status, body: await r.json() };
}

/** An SDK token minted by the client's backend (generateSdkToken). */
export async function backendSdkToken(server, workflowId) {
  const g = await postdata(server.url, { menu: 'auth_config', method: 'generateAccessToken', client_id: server.demo.clientId, client_secret: server.demo.secret });
  if (g.status !== 200) throw new Error(JSON.stringify(g.body));
  const s = await postdata(server.url, { menu: 'auth_config', method: 'generateSdkToken', work_flow_id: workflowId }, g.body.access_token);
  if (s.status !== 200) throw new Error(JSON.stringify(s.body));
  return s.body.sdk_token;
}

/**
 * The end-to-end workflow: OCR and face matching on the Kenyan national
 * ID, its web pages allowed on the server's origin. An ID-1 card, since
 * the SDK's 590 px ID output gives a passport page (125 mm) under 5 px/mm,
 * which the server reports as card_resolution_too_low.
 */
export function e2eWorkflow(server, name, allowedOrigins = [server.url]) {
  return server.createWorkflow({
    name,
    document_types: ['kenya_national_id'],
    checks: [{ name: 'ocr_extraction' }, { name: 'face_matching' }],
    web_sdk_configs: { title: 'Verify with Shop', tagline: 'Two photos of your ID and a selfie', colors: { primary: '#6a1b9a' }, allowed_origins: allowedOrigins },
    react_native_sdk_configs: { title: 'Verify in the app', colors: { primary: '#00695c' } },
  });
}

/** A binary greyscale PGM (the synthetic scenes' luma). */
export function readPGM(path) {
  const b = readFileSync(path);
  const m = b.subarray(0, 32).toString('latin1').match(/^P5\s+(\d+)\s+(\d+)\s+255\s/);
  return { width: Number(m[1]), height: Number(m[2]), data: new Uint8Array(b.subarray(m[0].length)) };
}

/**
 * A camera frame's luma plane as VisionCamera hands it over: the upright
 * image turned back (anticlockwise) by the quarter turns that bring it
 * upright, in rows of stride bytes (wider than the image, as camera
 * buffers are).
 */
export function lumaPlane(img, turns) {
  const { width: w, height: h, data } = img;
  const bw = turns % 2 ? h : w;
  const bh = turns % 2 ? w : h;
  const stride = bw + 24;
  const out = new Uint8Array(stride * bh).fill(7);
  for (let v = 0; v < h; v++)
    for (let u = 0; u < w; u++) {
      const [x, y] = [[u, v], [v, w - 1 - u], [w - 1 - u, h - 1 - v], [h - 1 - v, u]][turns];
      out[y * stride + x] = data[v * w + u];
    }
  return { data: out, width: bw, height: bh, stride };
}
