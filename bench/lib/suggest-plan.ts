import { Temporal } from '@js-temporal/polyfill';

// The suggest-times scenario's data: a team of ten (the caller and nine colleagues) with two
// weeks of meetings in Europe/Berlin, planned here deterministically, so that both the busy time
// the service must see and the answer it must give follow from the plan (the scenario has no
// baseline to compare bytes with).

/** What the scenario asks: the service's defaults for what is not given here. */
export const SUGGEST = {
  zone: 'Europe/Berlin',
  days: 14,
  durationMinutes: 30,
  workingHours: { start: '09:00', end: '17:00' },
  stepMinutes: 15,
  minimumAttendeePercentage: 80,
  first: 5,
} as const;

/**
 * The team's accounts, the caller first. Not of the generated form (first.last.n), so the seed
 * check does not count them, and free of the search scenario's texts.
 */
export const TEAM = [
  { account: 'bench.team.lead', name: 'Bench Team Lead' },
  ...'abcdefghi'.split('').map((letter) => ({
    account: `bench.team.${letter}`,
    name: `Bench Team Member ${letter.toUpperCase()}`,
  })),
];

export type Answer = 'accept' | 'decline' | 'none';

/** A meeting of the team, in wall-clock time of SUGGEST.zone. */
export interface PlannedMeeting {
  title: string;
  /** The owner's index in TEAM. */
  owner: number;
  /** Days after the window's first day (a Monday). */
  day: number;
  /** Start, HH:MM. */
  time: string;
  durationMinutes: number;
  /** A weekly rule whose first occurrence is the start, or null. */
  recurrence: string | null;
  guests: { member: number; answer: Answer }[];
  /** Generated users invited as well, who never answer (the meeting stays pending). */
  outsiders: number;
  /** What happens to a series' occurrence a week after its start: cancelled, or moved later. */
  secondWeek?: 'cancel' | { moveMinutes: number };
}

export const RULE_DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const;
/** The window's weekdays, as days after its first day. */
const WEEKDAYS = [0, 1, 2, 3, 4, 7, 8, 9, 10, 11];
const TOPICS = ['Roadmap review', 'Customer call', 'Hiring debrief', 'Budget check', 'Retro prep'];

/** A small seeded generator (mulberry32), so every run plans the same meetings. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The team's meetings: a weekly team meeting (its second occurrence cancelled), a weekly
 * one-on-one owned by each member with the next (one occurrence moved), a design sync on
 * Tuesdays and Thursdays, and six single meetings owned by each member with one to three
 * colleagues, who mostly accept (some decline, some never answer), sometimes with an outsider.
 */
export function planMeetings(): PlannedMeeting[] {
  const random = seeded(27);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const meetings: PlannedMeeting[] = [
    {
      title: 'Weekly team meeting',
      owner: 0,
      day: 0,
      time: '10:00',
      durationMinutes: 60,
      recurrence: 'FREQ=WEEKLY;BYDAY=MO',
      guests: TEAM.slice(1).map((_, i) => ({ member: i + 1, answer: 'accept' as const })),
      outsiders: 0,
      secondWeek: 'cancel',
    },
  ];
  TEAM.forEach((_, owner) => {
    meetings.push({
      title: `One-on-one ${owner + 1}`,
      owner,
      day: owner % 5,
      time: ['13:00', '13:30', '14:00', '11:30'][owner % 4] as string,
      durationMinutes: 30,
      recurrence: `FREQ=WEEKLY;BYDAY=${RULE_DAYS[owner % 5]}`,
      guests: [{ member: (owner + 1) % TEAM.length, answer: 'accept' }],
      outsiders: 0,
      ...(owner === 3 ? { secondWeek: { moveMinutes: 120 } } : {}),
    });
  });
  meetings.push({
    title: 'Design sync',
    owner: 1,
    day: 1,
    time: '15:00',
    durationMinutes: 45,
    recurrence: 'FREQ=WEEKLY;BYDAY=TU,TH',
    guests: [2, 3, 4].map((member) => ({ member, answer: 'accept' as const })),
    outsiders: 0,
  });
  TEAM.forEach((_, owner) => {
    for (let k = 0; k < 6; k += 1) {
      const others = TEAM.map((__, i) => i).filter((i) => i !== owner);
      const guests: PlannedMeeting['guests'] = [];
      for (let n = 1 + Math.floor(random() * 3); n > 0; n -= 1) {
        const member = others.splice(Math.floor(random() * others.length), 1)[0] as number;
        const r = random();
        guests.push({ member, answer: r < 0.75 ? 'accept' : r < 0.85 ? 'decline' : 'none' });
      }
      const hour = 9 + Math.floor(random() * 8);
      meetings.push({
        title: `${pick(TOPICS)} ${owner + 1}.${k + 1}`,
        owner,
        day: pick(WEEKDAYS),
        time: `${String(hour).padStart(2, '0')}:${pick(['00', '15', '30', '45'])}`,
        durationMinutes: pick([30, 30, 45, 60, 60, 90]),
        recurrence: null,
        guests,
        outsiders: random() < 0.3 ? 1 : 0,
      });
    }
  });
  return meetings;
}

/** The window asked about: from the Monday at least two days ahead, 00:00 in the zone. */
export interface SuggestWindow {
  /** Its first day, a Monday (a full run never reaches it, so `now` never cuts a slot). */
  firstDay: Temporal.PlainDate;
  from: Date;
  to: Date;
}

export function suggestWindow(now: Date): SuggestWindow {
  const soonest = Temporal.Instant.fromEpochMilliseconds(now.getTime() + 2 * 86_400_000)
    .toZonedDateTimeISO(SUGGEST.zone)
    .toPlainDate();
  const firstDay = soonest.add({ days: (8 - soonest.dayOfWeek) % 7 });
  const midnight = (day: Temporal.PlainDate): Date =>
    new Date(day.toZonedDateTime({ timeZone: SUGGEST.zone }).epochMilliseconds);
  return { firstDay, from: midnight(firstDay), to: midnight(firstDay.add({ days: SUGGEST.days })) };
}

/** The instant of wall-clock `minute` (after midnight) on day `day` of the window. */
export function instantOf(window: SuggestWindow, day: number, minute: number): Date {
  const zoned = window.firstDay.add({ days: day }).toZonedDateTime({
    timeZone: SUGGEST.zone,
    plainTime: new Temporal.PlainTime(Math.floor(minute / 60), minute % 60),
  });
  return new Date(zoned.epochMilliseconds);
}

export const minutesOf = (time: string): number =>
  Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));

/** A half-open span of time, in ms since the epoch. */
export interface Span {
  start: number;
  end: number;
}

/** The days (after the window's first) a meeting occurs on within the window, with its edits. */
function occurrenceDays(meeting: PlannedMeeting): { day: number; shift: number }[] {
  if (meeting.recurrence === null) {
    return [{ day: meeting.day, shift: 0 }];
  }
  const weekdays = (/BYDAY=([A-Z,]+)/.exec(meeting.recurrence)?.[1] ?? '')
    .split(',')
    .map((code) => RULE_DAYS.indexOf(code as (typeof RULE_DAYS)[number]));
  const days: { day: number; shift: number }[] = [];
  for (let week = 0; week * 7 < SUGGEST.days; week += 1) {
    for (const weekday of weekdays) {
      const day = week * 7 + weekday;
      const edit = day === meeting.day + 7 ? meeting.secondWeek : undefined;
      if (day >= meeting.day && day < SUGGEST.days && edit !== 'cancel') {
        days.push({ day, shift: edit?.moveMinutes ?? 0 });
      }
    }
  }
  return days;
}

/** Whether a meeting keeps anyone busy: not when every guest declined (it is cancelled then). */
const takesPlace = (meeting: PlannedMeeting): boolean =>
  meeting.outsiders > 0 || meeting.guests.some((guest) => guest.answer !== 'decline');

/** Spans sorted by start, those that overlap or touch merged. */
function merged(spans: readonly Span[]): Span[] {
  const out: Span[] = [];
  for (const span of [...spans].sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1];
    if (last && span.start <= last.end) {
      last.end = Math.max(last.end, span.end);
    } else {
      out.push({ ...span });
    }
  }
  return out;
}

/** What the plan makes of each member's time in the window: busy spans and occurrences. */
export function expectedBusy(
  plan: readonly PlannedMeeting[],
  window: SuggestWindow,
): { busy: Span[][]; occurrences: number[]; ofSeries: number[] } {
  const spans: Span[][] = TEAM.map(() => []);
  const occurrences = TEAM.map(() => 0);
  const ofSeries = TEAM.map(() => 0);
  for (const meeting of plan.filter(takesPlace)) {
    const kept = [
      meeting.owner,
      ...meeting.guests.filter((g) => g.answer === 'accept').map((g) => g.member),
    ];
    for (const { day, shift } of occurrenceDays(meeting)) {
      const start = instantOf(window, day, minutesOf(meeting.time) + shift).getTime();
      const span = { start, end: start + meeting.durationMinutes * 60_000 };
      for (const member of kept) {
        (spans[member] as Span[]).push(span);
        occurrences[member] = (occurrences[member] as number) + 1;
        ofSeries[member] = (ofSeries[member] as number) + (meeting.recurrence ? 1 : 0);
      }
    }
  }
  const clip = (s: Span): Span => ({
    start: Math.max(s.start, window.from.getTime()),
    end: Math.min(s.end, window.to.getTime()),
  });
  return {
    busy: spans.map((list) => merged(list.map(clip).filter((s) => s.start < s.end))),
    occurrences,
    ofSeries,
  };
}

/** A suggestion as the answer holds it (instants in ms). */
export interface ExpectedSlot extends Span {
  available: string[];
  unavailable: string[];
}

/**
 * The answer the service owes, worked out as its contract says: every stepMinutes of working
 * hours on Monday to Friday, slots where enough attendees are free, most attendees first, then
 * earliest. `ids` are the attendees in the order asked (the caller first).
 */
export function expectedSuggestions(
  busy: readonly Span[][],
  ids: readonly string[],
  window: SuggestWindow,
): ExpectedSlot[] {
  const needed = Math.ceil((ids.length * SUGGEST.minimumAttendeePercentage) / 100);
  const open = minutesOf(SUGGEST.workingHours.start);
  const close = minutesOf(SUGGEST.workingHours.end);
  const found: ExpectedSlot[] = [];
  for (const day of WEEKDAYS) {
    for (
      let minute = open;
      minute + SUGGEST.durationMinutes <= close;
      minute += SUGGEST.stepMinutes
    ) {
      const start = instantOf(window, day, minute).getTime();
      const end = start + SUGGEST.durationMinutes * 60_000;
      const slot: ExpectedSlot = { start, end, available: [], unavailable: [] };
      ids.forEach((id, member) => {
        const clash = (busy[member] ?? []).some((s) => s.start < end && start < s.end);
        (clash ? slot.unavailable : slot.available).push(id);
      });
      if (slot.available.length >= needed) {
        found.push(slot);
      }
    }
  }
  return found
    .sort((a, b) => b.available.length - a.available.length || a.start - b.start)
    .slice(0, SUGGEST.first);
}

/** The scenario as set up: who asks, what, and what the answer must be. */
export interface SuggestTimes {
  /** The caller's access token (the team's lead). */
  token: string;
  /** The variables' `input` (SuggestMeetingTimesInput). */
  input: Record<string, unknown>;
  expected: ExpectedSlot[];
  /** The data's shape, for the report. */
  summary: string;
  /** suggest-times-room: the room filter asked with, and the room every suggestion must get. */
  room: { filter: { minCapacity: number }; expected: string } | null;
}

/** The rooms suggest-times-room weighs: 30 of them, 4 to 33 seats, none booked. */
export const BENCH_ROOMS = Array.from({ length: 30 }, (_, i) => ({
  name: `Bench room ${String(4 + i).padStart(2, '0')}`,
  capacity: 4 + i,
}));

/** What suggest-times-room asks for; every slot gets the smallest room holding all 10. */
export const ROOM_FILTER = { minCapacity: 8 } as const;

/** How an answer's rooms differ from the one every slot must get. */
export function roomProblems(body: string, expected: string): string[] {
  const parsed = JSON.parse(body) as {
    data?: { suggestMeetingTimes?: Array<{ room: { name: string } | null }> };
  };
  return (parsed.data?.suggestMeetingTimes ?? []).flatMap((slot, i) =>
    slot.room?.name === expected
      ? []
      : [`suggestion ${i + 1}: room ${slot.room?.name ?? 'none'}, the plan says ${expected}`],
  );
}

interface AnsweredSlot {
  startTime: string;
  endTime: string;
  availableUserIds: string[];
  unavailableUserIds: string[];
}

/** How an answer differs from the expected suggestions (empty: it does not). */
export function suggestionProblems(body: string, expected: readonly ExpectedSlot[]): string[] {
  let slots: AnsweredSlot[] | undefined;
  try {
    const parsed = JSON.parse(body) as { data?: { suggestMeetingTimes?: AnsweredSlot[] } };
    slots = parsed.data?.suggestMeetingTimes;
  } catch {
    slots = undefined;
  }
  if (!slots) {
    return [`no suggestions in the answer: ${body.slice(0, 300)}`];
  }
  const shown = (s: Span): string =>
    `${new Date(s.start).toISOString()}–${new Date(s.end).toISOString().slice(11)}`;
  const problems: string[] = [];
  for (let i = 0; i < Math.max(slots.length, expected.length); i += 1) {
    const got = slots[i];
    const want = expected[i];
    const gotText = got
      ? `${shown({ start: Date.parse(got.startTime), end: Date.parse(got.endTime) })} ` +
        `free ${got.availableUserIds.join(',')} busy ${got.unavailableUserIds.join(',')}`
      : 'nothing';
    const wantText = want
      ? `${shown(want)} free ${want.available.join(',')} busy ${want.unavailable.join(',')}`
      : 'nothing';
    if (gotText !== wantText) {
      problems.push(`suggestion ${i + 1}: answered ${gotText}, the plan says ${wantText}`);
    }
  }
  return problems;
}
