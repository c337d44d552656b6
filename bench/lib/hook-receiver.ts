import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * The webhook scenario's receiver: an HTTPS server on 127.0.0.1 or another address of this machine
 * (the fleet's bridge) (with NODE_ENV=production the
 * service calls https URLs only) with a self-signed certificate made by openssl for the run, which
 * the service is told to trust (NODE_EXTRA_CA_CERTS). It answers 204 at once and keeps each
 * request with the time its body had arrived; checking them is left for after the run, so that
 * the receiver's own work does not delay the receipts.
 */

/** One request as received: which endpoint's path, its headers and body, and when it was in. */
export interface Receipt {
  /** The endpoint's number (the path /hooks/<n>). */
  endpoint: number;
  headers: IncomingHttpHeaders;
  raw: string;
  /** performance.now() and Date.now() once the whole body was in. */
  at: number;
  wallAt: number;
  /** The sender's address. */
  from: string;
  /** Closes the request's connection unanswered (for one held by `beforeAnswer`). */
  drop?: () => void;
}

/** A certificate for the address `host`, valid for two days, in a directory of its own. */
function selfSigned(host: string): { dir: string; key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'bench-hooks-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '2',
        '-subj',
        `/CN=${host}`,
        '-addext',
        `subjectAltName=IP:${host}`,
      ],
      { stdio: 'pipe' },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `webhook-deliveries needs openssl (1.1.1 or later) to make the receiver's certificate: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return { dir, key, cert };
}

export class HookReceiver {
  readonly receipts: Receipt[] = [];
  /** Called with each receipt as it comes (after it is kept). */
  onReceipt: (receipt: Receipt) => void = () => undefined;
  /**
   * When set, each request waits for it before it is answered; a request whose sender went away
   * meanwhile was never answered, and is not kept (its sender will send it again).
   */
  beforeAnswer: ((receipt: Receipt) => Promise<void>) | null = null;

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
    /** The certificate's file: the service's NODE_EXTRA_CA_CERTS. */
    readonly certFile: string,
    private readonly host: string,
  ) {}

  /** A receiver on `host` (an address of this machine), on a free port. */
  static async start(host = '127.0.0.1'): Promise<HookReceiver> {
    const receiver = HookReceiver.create(host);
    await receiver.listen();
    return receiver;
  }

  /**
   * A receiver for `host` with its certificate, not listening yet (`listen`): the services that
   * trust it may be started before the address exists.
   */
  static create(host: string): HookReceiver {
    const { dir, key, cert } = selfSigned(host);
    const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) });
    const receiver = new HookReceiver(server, dir, cert, host);
    server.on('request', (request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const receipt: Receipt = {
          endpoint: Number(/^\/hooks\/(\d+)$/.exec(request.url ?? '')?.[1] ?? -1),
          headers: request.headers,
          raw: Buffer.concat(chunks).toString('utf8'),
          at: performance.now(),
          wallAt: Date.now(),
          from: request.socket.remoteAddress ?? '',
          drop: () => request.socket.destroy(),
        };
        const answer = (): void => {
          if (request.socket.destroyed) {
            return;
          }
          response.writeHead(204).end();
          receiver.receipts.push(receipt);
          receiver.onReceipt(receipt);
        };
        if (receiver.beforeAnswer) {
          void receiver.beforeAnswer(receipt).then(answer);
        } else {
          answer();
        }
      });
    });
    return receiver;
  }

  listen(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, this.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /** The URL of endpoint `n`. */
  url(n: number): string {
    return `https://${this.host}:${(this.server.address() as AddressInfo).port}/hooks/${n}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    if (this.server.listening) {
      await new Promise<void>((resolve) => this.server.close(() => resolve()));
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
