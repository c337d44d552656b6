import { registerEnumType } from 'type-graphql';
import { mergeSpans, overlaps, type TimeSpan } from '../../platform/shared/time-zone';
import { type Occurrence, occurrencesOf, Series } from '../meeting';
import { AwayKind } from './away-period.entity';
import type { BusyMeeting, BusyTime } from './availability.store';

/** Why a user is busy, as free/busy shows it. */
export enum BusyKind {
  BUSY = 'BUSY',
  TENTATIVE = 'TENTATIVE',
  OUT_OF_OFFICE = 'OUT_OF_OFFICE',
  FOCUS = 'FOCUS',
}
registerEnumType(BusyKind, {
  name: 'BusyKind',
  description:
    'Why a user is busy: BUSY (a meeting they own or accepted), TENTATIVE (invited, not yet ' +
    'answered), OUT_OF_OFFICE or FOCUS (their time away).',
});

/** A span a user is busy, and why. */
export interface KindSpan extends TimeSpan {
  kind: BusyKind;
}

/**
 * One user's busy time and working hours (conflicts: none); null when they keep their
 * availability to themselves.
 */
export interface FreeBusy {
  userId: string | null;
  /** A resource's entry (userId null): its bookings, and its working hours (null: any time). */
  resourceId: string | null;
  busy: KindSpan[] | null;
  workingHours: TimeSpan[] | null;
}

/** Where kinds overlap, the one shown: out of office, then meetings, focus, invitations. */
const RANK: Record<BusyKind, number> = {
  [BusyKind.OUT_OF_OFFICE]: 4,
  [BusyKind.BUSY]: 3,
  [BusyKind.FOCUS]: 2,
  [BusyKind.TENTATIVE]: 1,
};
const BY_RANK = Object.values(BusyKind).sort((a, b) => RANK[b] - RANK[a]);

const AWAY_KIND: Record<AwayKind, BusyKind> = {
  [AwayKind.OUT_OF_OFFICE]: BusyKind.OUT_OF_OFFICE,
  [AwayKind.FOCUS]: BusyKind.FOCUS,
};

/** As many occurrences of one meeting as a window of free/busy can hold (a 62-day window). */
const OCCURRENCES_PER_WINDOW = 100_000;

/** The occurrences of busy meeting `meeting` (its rule: `series`) in `window` that take place. */
const heldIn = (meeting: BusyMeeting, series: Series, window: TimeSpan): Occurrence[] =>
  occurrencesOf(
    meeting,
    meeting.edits,
    window.start,
    window.end,
    OCCURRENCES_PER_WINDOW,
    series,
  ).filter((occurrence) => !occurrence.cancelled);

/** A span cut to a window (which it overlaps). */
export const cut = (span: TimeSpan, window: TimeSpan): TimeSpan => ({
  start: new Date(Math.max(span.start.getTime(), window.start.getTime())),
  end: new Date(Math.min(span.end.getTime(), window.end.getTime())),
});

function add<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) {
    list.push(value);
  } else {
    map.set(key, [value]);
  }
}

/**
 * Each user's spans of `time` in `windows`, with their kinds (meetings accepted: BUSY, open
 * invitations: TENTATIVE, time away as its kind), unsorted; cut to the windows when `clip`
 * (free/busy), whole occurrences otherwise (conflicts show the other meeting's time).
 */
export function spansByUser(
  time: BusyTime,
  windows: readonly TimeSpan[],
  clip = true,
): Map<string, KindSpan[]> {
  const spans = new Map<string, KindSpan[]>();
  for (const meeting of time.meetings) {
    // Its rule is parsed once, however many windows (a page of meetings' conflicts) it meets.
    const series = new Series(meeting);
    for (const window of windows) {
      for (const occurrence of heldIn(meeting, series, window)) {
        const span = clip ? cut(occurrence, window) : occurrence;
        if (!overlaps(span, window)) {
          continue;
        }
        // One span object for all its users (nothing changes a span once made).
        const busy: KindSpan = { start: span.start, end: span.end, kind: BusyKind.BUSY };
        for (const userId of meeting.userIds) {
          add(spans, userId, busy);
        }
        const tentative: KindSpan = { ...busy, kind: BusyKind.TENTATIVE };
        for (const userId of meeting.tentativeUserIds) {
          add(spans, userId, tentative);
        }
      }
    }
  }
  for (const away of time.away) {
    for (const window of windows) {
      if (overlaps(away, window)) {
        add(spans, away.userId, {
          ...(clip ? cut(away, window) : away),
          kind: AWAY_KIND[away.kind],
        });
      }
    }
  }
  return spans;
}

/** The spans that keep a user from a meeting (all kinds but TENTATIVE), merged and sorted. */
export const blockingSpans = (spans: readonly KindSpan[]): TimeSpan[] =>
  mergeSpans(spans.filter((span) => span.kind !== BusyKind.TENTATIVE));

/** Where a span of a kind starts (+1) or ends (-1). */
interface Edge {
  at: number;
  kind: BusyKind;
  step: 1 | -1;
}

/**
 * Spans of several kinds as one sorted list without overlaps: where kinds overlap, the highest
 * ranked shows (RANK); spans of one kind that overlap or touch are merged.
 */
export function flattenKinds(spans: readonly KindSpan[]): KindSpan[] {
  const edges: Edge[] = [];
  for (const span of spans) {
    if (span.end.getTime() > span.start.getTime()) {
      edges.push({ at: span.start.getTime(), kind: span.kind, step: 1 });
      edges.push({ at: span.end.getTime(), kind: span.kind, step: -1 });
    }
  }
  edges.sort((a, b) => a.at - b.at);
  const open: Record<BusyKind, number> = { BUSY: 0, TENTATIVE: 0, OUT_OF_OFFICE: 0, FOCUS: 0 };
  const flat: KindSpan[] = [];
  let current = null as KindSpan | null;
  for (let i = 0; i < edges.length; ) {
    const at = (edges[i] as Edge).at;
    // Every edge at one instant counts before the kind shown from then on is chosen.
    for (; i < edges.length && (edges[i] as Edge).at === at; i += 1) {
      const edge = edges[i] as Edge;
      open[edge.kind] += edge.step;
    }
    const top = BY_RANK.find((kind) => open[kind] > 0) ?? null;
    if (current?.kind === top) {
      continue;
    }
    if (current) {
      current.end = new Date(at);
      flat.push(current);
    }
    current = top === null ? null : { start: new Date(at), end: new Date(at), kind: top };
  }
  return flat;
}
