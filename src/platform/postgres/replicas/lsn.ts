/**
 * A position in PostgreSQL's write-ahead log (an LSN), as a number that compares: the server
 * writes it as two hexadecimal halves, `16/B374D848`.
 */
export type Lsn = bigint;

const LSN_TEXT = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/;

/** The position of PostgreSQL's text of an LSN (as a client may send it back), or null. */
export function parseLsn(text: string | null | undefined): Lsn | null {
  const match = text ? LSN_TEXT.exec(text.trim()) : null;
  if (!match?.[1] || !match[2]) {
    return null;
  }
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** PostgreSQL's text of a position (`16/B374D848`). */
export function formatLsn(lsn: Lsn): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The later of two positions (null: none known). */
export function laterLsn(a: Lsn | null, b: Lsn | null): Lsn | null {
  if (a === null) {
    return b;
  }
  return b === null || a >= b ? a : b;
}
