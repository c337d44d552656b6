// Numbers as the reports print them ('–' for what was not measured).

export const int = (n: number): string =>
  Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';

/** Milliseconds: three significant digits or so. */
export const ms = (n: number): string =>
  !Number.isFinite(n) ? '–' : n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);

export const ratio = (a: number, b: number): string =>
  Number.isFinite(a / b) && b > 0 ? `${(a / b).toFixed(2)}×` : '–';

/** SQL statements per request (a mean: one decimal unless whole). */
export const statements = (n: number): string =>
  Number.isFinite(n) ? n.toFixed(n % 1 === 0 ? 0 : 1) : '–';

/** Bytes as whole MiB. */
export const mib = (bytes: number): string =>
  bytes > 0 ? `${(bytes / 1048576).toFixed(0)} MiB` : '–';
