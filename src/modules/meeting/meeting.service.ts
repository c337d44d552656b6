import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { onUniqueViolation } from '../../shared/db-errors';
import {
  ConflictError,
  ForbiddenError,
  NotFoundError,
  ValidationFailedError,
} from '../../shared/errors';
import { type Page, pageClause, pageParams } from '../../shared/pagination';
import { readAll } from '../../db/records';
import { selectRows } from '../../db/select';
import { participantRecords, type ParticipantRecord } from '../participant/participant.record';
import { meetingRecords, type MeetingRecord } from './meeting.record';
import type { Loaders } from '../../loaders';
import { Participant, ParticipantStatus } from '../participant/participant.entity';
import { User } from '../user/user.entity';
import type { UserRecord } from '../user/user.record';
import { Meeting, MeetingStatus } from './meeting.entity';
import type { AddParticipantArgs, CreateMeetingArgs } from './meeting.inputs';
import { managesMeeting, seesMeeting, statusAfterAnswers } from './meeting.rules';
import { VISIBLE_USER } from '../user/user.rules';

const meetingNotFound = () => new NotFoundError('MEETING_NOT_FOUND', 'Meeting not found');
const userNotFound = () => new NotFoundError('USER_NOT_FOUND', 'User not found');
const meetingClosed = () => new ConflictError('MEETING_CLOSED', 'The meeting is closed');
const alreadyParticipant = () =>
  new ConflictError('USER_ALREADY_A_PARTICIPANT', 'The user is already a participant');

/** Statuses in which a meeting still waits for answers. */
const OPEN_STATUSES = [MeetingStatus.PENDING, MeetingStatus.CONFIRMED];

const meetings = meetingRecords();
const participants = participantRecords();
const SELECT_MINE =
  `select ${meetings.select('m')} from "meetings" m where m."owner_id" = ? or m."id" in ` +
  `(select p."meeting_id" from "participants" p where p."user_id" = ? and p."status" = ?) ` +
  `order by m."start_time" desc, m."id" desc`;
const SELECT_REQUESTS =
  `select ${participants.select('p')} from "participants" p ` +
  `join "meetings" m on m."id" = p."meeting_id" ` +
  `where p."user_id" = ? and p."status" = ? and m."status" in (?, ?) ` +
  `order by p."created_at" desc, p."id" desc`;

/** A locked meeting with its participants, as a write sees it. */
interface LockedMeeting {
  meeting: Meeting;
  participants: Participant[];
}

export class MeetingService {
  constructor(
    private readonly em: EntityManager,
    private readonly loaders: Loaders,
  ) {}

  /** A meeting the viewer may see (owner, participant, admin); anyone else is told it does not exist. */
  async get(viewer: UserRecord, meetingId: string): Promise<MeetingRecord> {
    const meeting = await this.loaders.meetings.load(meetingId);
    if (!meeting) {
      throw meetingNotFound();
    }
    // Owners and admins need no participant list to be let in.
    if (
      !managesMeeting(viewer, meeting) &&
      !seesMeeting(viewer, meeting, await this.loaders.participantsByMeeting.load(meetingId))
    ) {
      throw meetingNotFound();
    }
    return meeting;
  }

  /** Meetings the viewer owns or has accepted, latest start first. */
  async listMine(viewer: UserRecord, page: Page): Promise<MeetingRecord[]> {
    const rows = await selectRows(this.em, `${SELECT_MINE}${pageClause(page)}`, [
      viewer.id,
      viewer.id,
      ParticipantStatus.ACCEPTED,
      ...pageParams(page),
    ]);
    return readAll(meetings, rows);
  }

  /** The viewer's unanswered invitations to meetings still open, newest first. */
  async requests(viewer: UserRecord, page: Page): Promise<ParticipantRecord[]> {
    const rows = await selectRows(this.em, `${SELECT_REQUESTS}${pageClause(page)}`, [
      viewer.id,
      ParticipantStatus.NEW,
      ...OPEN_STATUSES,
      ...pageParams(page),
    ]);
    return readAll(participants, rows);
  }

  /** Creates a pending meeting with the owner as an accepted participant and the invited users. */
  async create(viewer: UserRecord, args: CreateMeetingArgs): Promise<Meeting> {
    const invited = args.participants.map((participant) => participant.userId.toLowerCase());
    const problems: Record<string, 'INVALID_CHOICE'> = {};
    invited.forEach((userId, index) => {
      if (userId === viewer.id || invited.indexOf(userId) !== index) {
        problems[`participants.${index}.userId`] = 'INVALID_CHOICE';
      }
    });
    if (Object.keys(problems).length > 0) {
      throw new ValidationFailedError(problems);
    }
    const { meeting: input } = args;
    // Ids are compared lower-cased, so one user given in two letter cases counts once.
    const referenced = [
      ...new Set(
        [...invited, input.appointedBy, input.assignedTo]
          .filter((id): id is string => !!id)
          .map((id) => id.toLowerCase()),
      ),
    ];
    const found = await this.em.count(User, {
      id: { $in: referenced },
      ...VISIBLE_USER,
    });
    if (found !== referenced.length) {
      throw userNotFound();
    }
    const meeting = this.em.create(Meeting, {
      title: input.title.trim(),
      ...(input.type ? { type: input.type } : {}),
      startTime: new Date(input.startTime),
      location: input.location.trim(),
      locationUrl: input.locationUrl ?? null,
      owner: this.em.getReference(User, viewer.id),
      appointedBy: input.appointedBy
        ? this.em.getReference(User, input.appointedBy.toLowerCase())
        : null,
      assignedTo: input.assignedTo
        ? this.em.getReference(User, input.assignedTo.toLowerCase())
        : null,
    });
    // Explicit timestamps keep the owner first and the guests in the order given.
    const start = meeting.createdAt.getTime();
    this.em.create(Participant, {
      meeting,
      user: this.em.getReference(User, viewer.id),
      status: ParticipantStatus.ACCEPTED,
      createdAt: new Date(start),
    });
    args.participants.forEach((participant, index) => {
      this.em.create(Participant, {
        meeting,
        user: this.em.getReference(User, invited[index] as string),
        status: participant.status ?? ParticipantStatus.NEW,
        createdAt: new Date(start + 1 + index),
      });
    });
    await this.em.flush();
    return meeting;
  }

  /** Adds a user to a meeting; only its owner (or an admin) may. */
  async addParticipant(viewer: UserRecord, args: AddParticipantArgs): Promise<Participant> {
    const userId = args.userId.toLowerCase();
    const participant = await onUniqueViolation(
      () =>
        this.em.transactional(async (em) => {
          const { meeting, participants } = await this.lockVisible(em, viewer, args.meetingId);
          if (!managesMeeting(viewer, meeting)) {
            throw new ForbiddenError(
              'ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS',
              'Only the meeting owner can add participants',
            );
          }
          if (meeting.isClosed) {
            throw meetingClosed();
          }
          const user = await em.findOne(User, { id: userId, ...VISIBLE_USER });
          if (!user) {
            throw userNotFound();
          }
          if (participants.some((existing) => existing.userId === userId)) {
            throw alreadyParticipant();
          }
          const added = em.create(Participant, { meeting, user, status: args.status });
          if (
            meeting.status === MeetingStatus.CONFIRMED &&
            args.status !== ParticipantStatus.ACCEPTED
          ) {
            meeting.status = MeetingStatus.PENDING;
          }
          return added;
        }),
      { participants_meeting_user_unique: alreadyParticipant },
    );
    this.forget(args.meetingId);
    return participant;
  }

  /** The viewer accepts; once everyone has, the meeting is confirmed. Repeating changes nothing. */
  approve(viewer: UserRecord, meetingId: string): Promise<Meeting> {
    return this.answer(viewer, meetingId, ParticipantStatus.ACCEPTED);
  }

  /** The viewer declines; once every guest has, the meeting is cancelled. */
  decline(viewer: UserRecord, meetingId: string): Promise<Meeting> {
    return this.answer(viewer, meetingId, ParticipantStatus.DECLINED);
  }

  private async answer(
    viewer: UserRecord,
    meetingId: string,
    status: ParticipantStatus,
  ): Promise<Meeting> {
    const meeting = await this.em.transactional(async (em) => {
      const locked = await this.lockVisible(em, viewer, meetingId);
      const mine = locked.participants.find((participant) => participant.userId === viewer.id);
      if (!mine) {
        throw new ForbiddenError('NOT_A_PARTICIPANT', 'You are not a participant of this meeting');
      }
      if (locked.meeting.isClosed) {
        throw meetingClosed();
      }
      if (status === ParticipantStatus.DECLINED && locked.meeting.ownerId === viewer.id) {
        throw new ForbiddenError(
          'OWNER_CANNOT_DECLINE',
          'The owner cannot decline their own meeting',
        );
      }
      mine.status = status;
      locked.meeting.status = statusAfterAnswers(
        locked.meeting.status,
        locked.meeting.ownerId,
        locked.participants,
      );
      return locked.meeting;
    });
    this.forget(meetingId);
    return meeting;
  }

  /** Locks the meeting row for this transaction and checks that the viewer may see it. */
  private async lockVisible(
    em: EntityManager,
    viewer: UserRecord,
    meetingId: string,
  ): Promise<LockedMeeting> {
    const meeting = await em.findOne(
      Meeting,
      { id: meetingId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!meeting) {
      throw meetingNotFound();
    }
    const participants = await em.find(
      Participant,
      { meeting: meetingId },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    if (!seesMeeting(viewer, meeting, participants)) {
      throw meetingNotFound();
    }
    return { meeting, participants };
  }

  /** Drops cached reads of a meeting this request has just changed. */
  private forget(meetingId: string): void {
    this.loaders.meetings.clear(meetingId);
    this.loaders.participantsByMeeting.clear(meetingId);
  }
}
