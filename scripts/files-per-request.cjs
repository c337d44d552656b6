// @ts-check
'use strict';
/* global fetch */
/**
 * Which of the service's source files a warm request runs code in: `node
 * scripts/files-per-request.cjs [dist]` (default ./dist, built by `npm run build`) starts the
 * built app in-process on DATABASE_URL, makes a user and a meeting of 5 participants through the
 * REST face, warms `GET /api/v1/meeting/{id}` up, then takes V8's precise coverage over one more
 * such request and prints the files (under dist/src and dist/rest) with a function that ran.
 * A measure of layering (how many rooms one request walks through), not of speed.
 */
const inspector = require('node:inspector/promises');
const { resolve, relative } = require('node:path');

const dist = resolve(process.argv[2] ?? 'dist');
process.env.NODE_ENV ??= 'production';
process.env.LOG_LEVEL ??= 'warn';
process.env.JWT_SECRET ??= 'files-per-request-secret-0123456789abcdef';

async function main() {
  require('reflect-metadata');
  const { loadConfig } = require(`${dist}/src/app-config.js`);
  const { createApp } = require(`${dist}/src/app.js`);
  const app = await createApp({
    config: loadConfig(),
    passwordCost: { memoryCost: 1024, timeCost: 1 },
  });
  const base = await app.listen(0, '127.0.0.1');
  const call = async (method, path, body, token) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${text}`);
    }
    return text ? JSON.parse(text) : null;
  };
  const tag = Date.now().toString(36);
  const users = [];
  for (let i = 0; i < 5; i += 1) {
    const account = `probe.${tag}.${i}`;
    const email = `${account}@example.com`;
    const password = 'Probe-Password-42';
    await call('POST', '/auth/register', {
      name: `Probe Person ${i}`,
      account,
      email,
      password,
      password_confirm: password,
    });
    const login = await call('POST', '/auth/login', { email, password });
    const me = await call('GET', '/user/me', undefined, login.access_token);
    users.push({ token: login.access_token, id: me.id });
  }
  const [owner, ...guests] = users;
  const meeting = await call(
    'POST',
    '/meeting/create',
    {
      meeting: {
        title: 'Layering probe',
        start_time: new Date(Date.now() + 86_400_000).toISOString(),
        location: 'Room 101, HQ',
      },
      participants: guests.map((guest) => ({ user_id: guest.id })),
    },
    owner.token,
  );
  const get = () => call('GET', `/meeting/${meeting.id}`, undefined, owner.token);
  for (let i = 0; i < 50; i += 1) {
    await get();
  }
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  await get();
  const { result } = await session.post('Profiler.takePreciseCoverage');
  await session.post('Profiler.stopPreciseCoverage');
  session.disconnect();
  const ours = result
    .filter((script) => script.url.startsWith(`file://${dist}/`))
    .filter((script) => script.functions.some((fn) => fn.ranges[0].count > 0))
    .map((script) => relative(dist, new URL(script.url).pathname))
    .sort();
  if (process.env.SHOW_FUNCTIONS) {
    for (const script of result.filter((s) => s.url.startsWith(`file://${dist}/`))) {
      const ran = script.functions
        .filter((fn) => fn.ranges[0].count > 0)
        .map((fn) => fn.functionName || '(anonymous)');
      if (ran.length > 0) {
        console.log(relative(dist, new URL(script.url).pathname), ran.join(' '));
      }
    }
  }
  console.log(ours.join('\n'));
  console.log(`${ours.length} files ran code in a warm GET /api/v1/meeting/{id}`);
  await app.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
