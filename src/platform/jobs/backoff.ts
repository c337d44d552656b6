/**
 * A retry's wait of `seconds`, in milliseconds, give or take `fraction` of it (jitter), so that
 * the retries of many failures made at once spread out.
 */
export function jitteredMs(seconds: number, fraction: number): number {
  const spread = 1 + fraction * (2 * Math.random() - 1);
  return Math.round(seconds * 1000 * spread);
}
