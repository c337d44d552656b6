import type { TimeSpan } from '../../platform/shared/time-zone';

/** The index of the first of sorted, merged spans that ends after `instant` (binary search). */
function firstEndingAfter(spans: readonly TimeSpan[], instant: number): number {
  let low = 0;
  let high = spans.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((spans[middle] as TimeSpan).end.getTime() <= instant) {
      low = middle + 1;
    } else {
      high = middle;
    }
  }
  return low;
}

/** Whether sorted, merged spans have one that overlaps [start, end). */
export function anyDuring(spans: readonly TimeSpan[], start: number, end: number): boolean {
  const span = spans[firstEndingAfter(spans, start)];
  return span !== undefined && span.start.getTime() < end;
}

/** Whether sorted, merged spans hold all of [start, end). */
export function within(spans: readonly TimeSpan[], start: number, end: number): boolean {
  const span = spans[firstEndingAfter(spans, start)];
  return span !== undefined && span.start.getTime() <= start && span.end.getTime() >= end;
}
