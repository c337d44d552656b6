import { createConnection } from 'node:net';

// HAProxy's stats socket (the runtime API): one command per connection, the answer read to the
// end (HAProxy closes a non-interactive connection after answering).

/** Sends one command to a stats socket and answers HAProxy's reply. */
export function statsCommand(
  socketPath: string,
  command: string,
  timeoutMs = 3_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    const chunks: Buffer[] = [];
    socket.setTimeout(timeoutMs, () => {
      socket.destroy(
        new Error(`no answer to "${command}" on ${socketPath} within ${timeoutMs} ms`),
      );
    });
    socket.on('connect', () => socket.end(`${command}\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', (hadError) => {
      if (!hadError) {
        resolve(Buffer.concat(chunks).toString('utf8'));
      }
    });
  });
}

/** `show stat` CSV: the status of each server of a backend, by server name. */
export function serverStatuses(csv: string, backend: string): Map<string, string> {
  const lines = csv.split('\n').filter((line) => line.trim() !== '');
  const header = (lines[0] ?? '').replace(/^#\s*/, '').split(',');
  const column = (name: string) => {
    const index = header.indexOf(name);
    if (index < 0) {
      throw new Error(`show stat has no ${name} column: ${lines[0] ?? csv}`);
    }
    return index;
  };
  const [pxname, svname, status] = [column('pxname'), column('svname'), column('status')];
  const statuses = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const fields = line.split(',');
    const server = fields[svname] ?? '';
    if (fields[pxname] === backend && server !== 'BACKEND' && server !== 'FRONTEND') {
      statuses.set(server, fields[status] ?? '');
    }
  }
  return statuses;
}
