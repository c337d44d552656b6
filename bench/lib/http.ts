import type { PlannedRequest } from './protocol';

export interface Answer {
  status: number;
  body: string;
}

/** Sends one planned request to a target (http://127.0.0.1:port) and reads the whole body. */
export async function send(base: string, request: PlannedRequest): Promise<Answer> {
  const response = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  return { status: response.status, body: await response.text() };
}

/** Signs in through the service's REST login and answers the access token. */
export async function login(base: string, email: string, password: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email, password }).toString(),
  });
  const body = (await response.json()) as { access_token?: string };
  if (!response.ok || typeof body.access_token !== 'string') {
    throw new Error(`login as ${email} failed: ${response.status} ${JSON.stringify(body)}`);
  }
  return body.access_token;
}

/** Where two bodies first differ, with some context around it. */
export function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) {
    i += 1;
  }
  const from = Math.max(0, i - 80);
  return (
    `first difference at byte ${i} (lengths ${a.length} vs ${b.length}):\n` +
    `    service:  …${a.slice(from, i + 80)}…\n` +
    `    baseline: …${b.slice(from, i + 80)}…`
  );
}

/** One GraphQL operation as the holder of `token`; its data, or an error naming `what` failed. */
export async function graphqlData<T>(
  base: string,
  token: string,
  query: string,
  variables: object,
  what: string,
): Promise<T> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown[] };
  if (!response.ok || body.errors || !body.data) {
    throw new Error(
      `${what}: ${query.slice(0, 40)}… answered ${response.status} ${JSON.stringify(body).slice(0, 400)}`,
    );
  }
  return body.data;
}
