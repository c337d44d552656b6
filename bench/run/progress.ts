// The harness's progress on stderr: log lines, and one status line rewritten in place.

const isTty = process.stderr.isTTY;
let statusShown = false;

const startedAt = Date.now();
const elapsed = (): string => `[${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s]`;

export function log(message: string): void {
  if (statusShown) {
    process.stderr.write('\r\x1b[K');
    statusShown = false;
  }
  process.stderr.write(`${elapsed()} ${message}\n`);
}

/** One progress line, rewritten in place on a terminal (plain lines at phase ends otherwise). */
export function status(message: string, final = false): void {
  if (isTty) {
    process.stderr.write(`\r\x1b[K${elapsed()} ${message}`);
    statusShown = true;
    if (final) {
      process.stderr.write('\n');
      statusShown = false;
    }
  } else if (final) {
    process.stderr.write(`${elapsed()} ${message}\n`);
  }
}

export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
