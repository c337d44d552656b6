import { MEETING_LIMITS, MeetingStatus, MeetingType } from '../../modules/meeting/meeting.entity';
import { ParticipantStatus } from '../../modules/meeting/participants/participant.entity';
import type { Random } from './random';
import { DAY, HOUR, MINUTE } from './time';
import {
  CITIES,
  MEETING_FORMATS,
  MEETING_QUALIFIERS,
  MEETING_TOPICS,
  ONLINE_PLACES,
  ROOMS,
} from './vocabulary';

/** What a seeded meeting is made of: its title, place, time, size and answers, drawn at random. */
// The limits the service's validators and columns use, so seeded meetings are valid ones.
const TITLE = MEETING_LIMITS.title;
const LOCATION_MAX = MEETING_LIMITS.location.max;

export const TYPE_WEIGHTS: readonly (readonly [MeetingType, number])[] = [
  [MeetingType.STANDUP, 25],
  [MeetingType.TEAM_MEETING, 25],
  [MeetingType.ONE_ON_ONE, 20],
  [MeetingType.PROJECT_MEETING, 20],
  [MeetingType.ALL_HANDS, 10],
];

export const STATUS_WEIGHTS: readonly (readonly [MeetingStatus, number])[] = [
  [MeetingStatus.PENDING, 30],
  [MeetingStatus.CONFIRMED, 35],
  [MeetingStatus.COMPLETED, 20],
  [MeetingStatus.CANCELLED, 15],
];

/** Where in [min, max] participants of each type fall, as fractions of that range. */
export const SIZE_RANGE: Record<MeetingType, readonly [number, number]> = {
  [MeetingType.ONE_ON_ONE]: [0, 0],
  [MeetingType.STANDUP]: [0.05, 0.5],
  [MeetingType.TEAM_MEETING]: [0.1, 0.7],
  [MeetingType.PROJECT_MEETING]: [0.1, 1],
  [MeetingType.ALL_HANDS]: [0.6, 1],
};

/** Start days (relative to today) per status: completed ones lie in the past, pending ahead. */
export const START_DAYS: Record<MeetingStatus, readonly [number, number]> = {
  [MeetingStatus.COMPLETED]: [-29, -1],
  [MeetingStatus.CANCELLED]: [-29, 59],
  [MeetingStatus.CONFIRMED]: [-3, 59],
  [MeetingStatus.PENDING]: [1, 59],
};

/** Owners and guests favour a few busy users. */
export const BUSY_SKEW = 2;

function fit(text: string, filler: string): string {
  let result = text;
  if (result.length < TITLE.min) {
    result = `${result} ${filler}`;
  }
  if (result.length > TITLE.max) {
    result = result.slice(0, TITLE.max).replace(/\s+\S*$/, '');
  }
  return result;
}

export function titleFor(rng: Random, type: MeetingType): string {
  const format = rng.pick(MEETING_FORMATS[type]);
  const topic = rng.pick(MEETING_TOPICS);
  const title =
    type !== MeetingType.ONE_ON_ONE && rng.chance(0.3)
      ? `${rng.pick(MEETING_QUALIFIERS)} ${topic} ${format}`
      : `${topic} ${format}`;
  return fit(title, 'Meeting');
}

export function locationFor(rng: Random): { location: string; locationUrl: string | null } {
  if (rng.chance(0.4)) {
    const letters = (n: number): string =>
      Array.from({ length: n }, () => String.fromCharCode(97 + rng.int(0, 25))).join('');
    return {
      location: rng.pick(ONLINE_PLACES),
      locationUrl: `https://meet.example.com/${letters(3)}-${letters(4)}-${letters(3)}`,
    };
  }
  const room = rng.pick(ROOMS);
  const withCity = `${room}, ${rng.pick(CITIES)}`;
  return {
    location: rng.chance(0.3) && withCity.length <= LOCATION_MAX ? withCity : room,
    locationUrl: null,
  };
}

export function startFor(rng: Random, status: MeetingStatus, now: number): number {
  const today = Math.floor(now / DAY) * DAY;
  const [from, to] = START_DAYS[status];
  return (
    today + rng.int(from, to) * DAY + rng.int(8, 17) * HOUR + rng.pick([0, 15, 30, 45]) * MINUTE
  );
}

export function sizeFor(rng: Random, type: MeetingType, min: number, max: number): number {
  if (type === MeetingType.ONE_ON_ONE) {
    return Math.min(Math.max(2, min), max);
  }
  const [low, high] = SIZE_RANGE[type];
  const span = max - min;
  return rng.int(min + Math.round(span * low), min + Math.round(span * high));
}

/** Guest answers that fit the meeting status (see statusAfterAnswers in meeting.rules). */
export function guestStatuses(
  rng: Random,
  status: MeetingStatus,
  guests: number,
): ParticipantStatus[] {
  const { NEW, ACCEPTED, DECLINED } = ParticipantStatus;
  switch (status) {
    case MeetingStatus.CONFIRMED:
      return new Array<ParticipantStatus>(guests).fill(ACCEPTED);
    case MeetingStatus.CANCELLED:
      return new Array<ParticipantStatus>(guests).fill(DECLINED);
    case MeetingStatus.COMPLETED: {
      const answers = Array.from({ length: guests }, () =>
        rng.chance(0.85) ? ACCEPTED : DECLINED,
      );
      if (guests > 0 && !answers.includes(ACCEPTED)) {
        answers[rng.int(0, guests - 1)] = ACCEPTED;
      }
      return answers;
    }
    case MeetingStatus.PENDING: {
      const answers = Array.from({ length: guests }, () =>
        rng.weighted([
          [NEW, 45],
          [ACCEPTED, 40],
          [DECLINED, 15],
        ] as const),
      );
      // Still pending: somebody has not answered yet (not all accepted, not all declined).
      if (guests > 0 && !answers.includes(NEW)) {
        answers[rng.int(0, guests - 1)] = NEW;
      }
      return answers;
    }
  }
}
