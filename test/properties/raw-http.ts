import { Agent, request } from 'node:http';

/** A request exactly as written: the path is sent verbatim (no URL normalisation of `..` or `%`). */
export interface RawRequest {
  method: string;
  /** Path and query string, already encoded as they should go on the wire. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
}

/** What came back, before any parsing. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 32 });

/** Sends one request over plain HTTP; fails only when no HTTP answer arrives at all. */
export function rawRequest(
  baseUrl: string,
  raw: RawRequest,
  timeoutMs = 30_000,
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const body = raw.body === undefined ? undefined : Buffer.from(raw.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: raw.method,
        path: raw.path,
        headers: {
          ...(body !== undefined ? { 'content-length': String(body.length) } : {}),
          ...raw.headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Closes the pooled keep-alive sockets (call in afterAll so jest can exit). */
export function closeRawAgent(): void {
  agent.destroy();
}

/** Parses a body as JSON, or answers `undefined` when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
