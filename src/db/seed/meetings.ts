import { randomUUID } from 'node:crypto';
import { type Meeting, MeetingStatus, MeetingType } from '../../modules/meeting/meeting.entity';
import {
  type Participant,
  ParticipantStatus,
} from '../../modules/meeting/participants/participant.entity';
import type { Planned, PlannedRecord } from './planned';
import type { Random } from './random';
import { DAY, HOUR, MINUTE, SECOND } from './time';
import type { SeedUser } from './users';
import {
  BUSY_SKEW,
  guestStatuses,
  locationFor,
  sizeFor,
  startFor,
  STATUS_WEIGHTS,
  titleFor,
  TYPE_WEIGHTS,
} from './meeting-content';

/** A participant as the seed plans it; its meeting is the one holding it. */
export type PlannedParticipant = Planned<
  Participant,
  'id' | 'createdAt' | 'updatedAt' | 'userId' | 'status'
>;

/** A meeting as the seed plans it (its other properties take their defaults), with participants. */
export interface PlannedMeeting
  extends Planned<
    Meeting,
    | 'id'
    | 'createdAt'
    | 'updatedAt'
    | 'title'
    | 'ownerId'
    | 'startTime'
    | 'location'
    | 'locationUrl'
    | 'appointedBy'
    | 'assignedTo'
    | 'type'
    | 'status'
  > {
  /** The owner first, then the guests in the order they were invited. */
  participants: PlannedParticipant[];
}

/** What to plan, besides the random choices. */
export interface MeetingPlanRequest {
  now: number;
  /** Owners and guests of the generated meetings (the generated users and the demo user). */
  pool: readonly SeedUser[];
  demo: SeedUser;
  inbox: SeedUser;
  meetings: number;
  minParticipants: number;
  maxParticipants: number;
  bigMeetingParticipants: number;
  /** How many unanswered invitations of the inbox user to add. */
  invitations: number;
}

export interface MeetingPlan {
  meetings: PlannedMeeting[];
  /** Meetings created only to hold invitations of the inbox user. */
  invitationMeetings: number;
  /** Participants of the big meeting (0 if none). */
  bigMeetingSize: number;
}

interface MeetingSpec {
  owner: SeedUser;
  ownerIndex: number;
  type?: MeetingType;
  status?: MeetingStatus;
  size?: number;
  startTime?: number;
  title?: string;
  location?: string;
  /** A guest from outside the pool, who gets an unanswered invitation. */
  invitee?: SeedUser;
}

/** When a planned meeting of `status` last changed. */
function meetingUpdatedAt(
  rng: Random,
  status: MeetingStatus,
  at: { now: number; startTime: number; createdAt: number; lastChange: number },
): number {
  switch (status) {
    case MeetingStatus.COMPLETED:
      return Math.min(at.now, at.startTime + rng.between(30, 90) * MINUTE);
    case MeetingStatus.CONFIRMED:
    case MeetingStatus.CANCELLED:
      // The last answer switched the status.
      return Math.max(at.lastChange, at.createdAt + rng.between(SECOND, MINUTE));
    case MeetingStatus.PENDING:
      return Math.max(at.lastChange, at.createdAt + rng.between(SECOND, 10 * MINUTE));
  }
}

class MeetingPlanner {
  constructor(
    private readonly rng: Random,
    private readonly request: MeetingPlanRequest,
  ) {}

  plan(spec: MeetingSpec): PlannedMeeting {
    const { rng } = this;
    const { now, pool, minParticipants, maxParticipants } = this.request;
    const type = spec.type ?? rng.weighted(TYPE_WEIGHTS);
    const size = spec.size ?? sizeFor(rng, type, minParticipants, maxParticipants);
    const fromPool = Math.max(0, Math.min(size - 1 - (spec.invitee ? 1 : 0), pool.length - 1));
    const guestCount = fromPool + (spec.invitee ? 1 : 0);
    let status = spec.status ?? rng.weighted(STATUS_WEIGHTS);
    if (guestCount === 0 && status === MeetingStatus.PENDING) {
      status = MeetingStatus.CONFIRMED; // an owner alone has accepted everything there is
    } else if (guestCount === 0 && status === MeetingStatus.CANCELLED) {
      status = MeetingStatus.COMPLETED; // cancelling takes guests who declined
    }
    const startTime = spec.startTime ?? startFor(rng, status, now);
    const horizon = Math.min(startTime, now);
    const createdAt = horizon - rng.between(HOUR, 21 * DAY);

    const guests: SeedUser[] = rng
      .distinctIndexes(pool.length, fromPool, new Set([spec.ownerIndex]), BUSY_SKEW)
      .map((i) => pool[i] as SeedUser);
    const answers = guestStatuses(rng, status, fromPool);
    if (spec.invitee) {
      const at = rng.int(0, guests.length);
      guests.splice(at, 0, spec.invitee);
      answers.splice(at, 0, ParticipantStatus.NEW);
    }

    // The owner is the first participant; guests follow, invited a moment apart.
    const participants: PlannedParticipant[] = [
      {
        id: randomUUID(),
        userId: spec.owner.id,
        status: ParticipantStatus.ACCEPTED,
        createdAt,
        updatedAt: createdAt,
      },
    ];
    const lastChange = this.inviteGuests(participants, guests, answers, { createdAt, horizon });

    const updatedAt = meetingUpdatedAt(rng, status, { now, startTime, createdAt, lastChange });

    const place = locationFor(rng);
    const accepted = participants.filter(
      (p, i) => i > 0 && p.status === ParticipantStatus.ACCEPTED,
    );
    return {
      id: randomUUID(),
      createdAt,
      updatedAt,
      title: spec.title ?? titleFor(rng, type),
      ownerId: spec.owner.id,
      startTime,
      location: spec.location ?? place.location,
      locationUrl: spec.location ? null : place.locationUrl,
      appointedBy: rng.chance(0.2) ? spec.owner.id : null,
      assignedTo:
        type === MeetingType.PROJECT_MEETING && accepted.length > 0 && rng.chance(0.4)
          ? rng.pick(accepted).userId
          : null,
      type,
      status,
      participants,
    };
  }

  /**
   * Adds `guests` to `participants`, invited a moment apart after `createdAt`, answering
   * `answers` before `horizon`; answers when the last of them answered.
   */
  private inviteGuests(
    participants: PlannedParticipant[],
    guests: readonly SeedUser[],
    answers: readonly ParticipantStatus[],
    { createdAt, horizon }: { createdAt: number; horizon: number },
  ): number {
    const { rng } = this;
    const maxStep = Math.min(3 * SECOND, (horizon - createdAt) / (2 * (guests.length + 1)));
    let invitedAt = createdAt;
    let lastChange = createdAt;
    guests.forEach((guest, i) => {
      invitedAt += rng.between(maxStep / 100, maxStep);
      const status = answers[i] ?? ParticipantStatus.NEW;
      let updatedAt = invitedAt;
      if (status !== ParticipantStatus.NEW) {
        updatedAt = invitedAt + Math.max(SECOND, rng.float() * (horizon - invitedAt));
        lastChange = Math.max(lastChange, updatedAt);
      }
      participants.push({
        id: randomUUID(),
        userId: guest.id,
        status,
        createdAt: invitedAt,
        updatedAt,
      });
    });
    return lastChange;
  }

  /** Adds the inbox user, unanswered, to a pending meeting that has room for one more. */
  invite(meeting: PlannedMeeting, invitee: SeedUser): boolean {
    const { now, maxParticipants } = this.request;
    if (
      meeting.status !== MeetingStatus.PENDING ||
      meeting.participants.length >= maxParticipants ||
      meeting.participants.some((p) => p.userId === invitee.id)
    ) {
      return false;
    }
    const last = meeting.participants[meeting.participants.length - 1] as PlannedParticipant;
    const earliest = last.createdAt + SECOND;
    const latest = Math.max(earliest, Math.min(now, meeting.startTime) - SECOND);
    const createdAt = earliest + this.rng.float() * Math.min(2 * DAY, latest - earliest);
    meeting.participants.push({
      id: randomUUID(),
      userId: invitee.id,
      status: ParticipantStatus.NEW,
      createdAt,
      updatedAt: createdAt,
    });
    return true;
  }
}

/**
 * The generated meetings, then the big meeting, then pending meetings holding the rest of the
 * inbox user's invitations (existing pending meetings with room take them first).
 */
export function planMeetings(rng: Random, request: MeetingPlanRequest): MeetingPlan {
  const { pool, demo, inbox, now } = request;
  const planner = new MeetingPlanner(rng, request);
  const demoIndex = pool.findIndex((user) => user.id === demo.id);
  const meetings: PlannedMeeting[] = [];
  for (let i = 0; i < request.meetings && pool.length > 0; i += 1) {
    // The demo user owns the first few meetings, so logging in as demo shows some right away.
    const ownerIndex = i < 5 && demoIndex >= 0 ? demoIndex : rng.index(pool.length, BUSY_SKEW);
    meetings.push(planner.plan({ owner: pool[ownerIndex] as SeedUser, ownerIndex }));
  }

  let bigMeetingSize = 0;
  let bigMeetingId: string | null = null;
  if (Math.min(request.bigMeetingParticipants, pool.length) >= 2 && demoIndex >= 0) {
    const today = Math.floor(now / DAY) * DAY;
    const big = planner.plan({
      owner: demo,
      ownerIndex: demoIndex,
      type: MeetingType.ALL_HANDS,
      status: MeetingStatus.PENDING,
      size: Math.min(request.bigMeetingParticipants, pool.length),
      startTime: today + 7 * DAY + 16 * HOUR,
      title: 'Company All-Hands Meeting',
      location: 'Main Hall',
    });
    bigMeetingSize = big.participants.length;
    bigMeetingId = big.id;
    meetings.push(big);
  }

  let invitations = request.invitations;
  for (const meeting of meetings) {
    if (invitations === 0) {
      break;
    }
    if (meeting.id !== bigMeetingId && planner.invite(meeting, inbox)) {
      invitations -= 1;
    }
  }
  let invitationMeetings = 0;
  for (; invitations > 0 && pool.length > 0; invitations -= 1) {
    const ownerIndex = rng.index(pool.length, BUSY_SKEW);
    const type = rng.weighted(TYPE_WEIGHTS);
    const size = Math.max(2, sizeFor(rng, type, request.minParticipants, request.maxParticipants));
    meetings.push(
      planner.plan({
        owner: pool[ownerIndex] as SeedUser,
        ownerIndex,
        type,
        size,
        status: MeetingStatus.PENDING,
        invitee: inbox,
      }),
    );
    invitationMeetings += 1;
  }
  return { meetings, invitationMeetings, bigMeetingSize };
}

/** The participants of the meetings, each with its meeting's id. */
export function* participantRecords(
  meetings: readonly PlannedMeeting[],
): Generator<PlannedRecord<Participant>> {
  for (const meeting of meetings) {
    for (const participant of meeting.participants) {
      yield { ...participant, meetingId: meeting.id };
    }
  }
}
