import { MINUTE_MS } from '../../platform/shared/time-zone';
import { type CalendarEntry, itipDocument, type ItipOptions, PARTSTAT } from '../calendar';
import { type ChangeNotice, MeetingEventKind, ParticipantStatus } from '../meeting';
import type { UserRecord } from '../user';
import { type MeetingNews, meetingLetter } from './letters/meeting.letter';
import { MailKind } from './mail-message.entity';
import type { Draft, PlanEnv, Planner } from './mail.draft';
import { rsvpLinks } from './mail.rsvp';
import type { Block } from './mail.text';

/** How close to a change an occurrence's edit is, to be the edit that change logged. */
const SAME_CHANGE_MS = MINUTE_MS;

/** Participants who hear of the meeting's changes: every one but the owner and who declined. */
const listeners = (entry: CalendarEntry): UserRecord[] =>
  entry.attendees
    .filter(
      ({ participant, user }) =>
        user.id !== entry.meeting.ownerId && participant.status !== ParticipantStatus.DECLINED,
    )
    .map(({ user }) => user);

/** One draft: the letter with its iTIP calendar, to `reader`. */
function draft(
  change: ChangeNotice,
  entry: CalendarEntry,
  reader: UserRecord,
  message: {
    kind: MailKind;
    news: MeetingNews;
    itip: Omit<ItipOptions, 'now'>;
    key?: string;
    extra?: readonly Block[];
  },
): Draft {
  const content = itipDocument(entry, { ...message.itip, now: new Date() });
  return {
    dedupeKey: message.key ?? `${change.cursor} ${reader.id} ${message.kind}`,
    kind: message.kind,
    user: reader,
    senderId: entry.meeting.ownerId,
    letter: meetingLetter(
      message.news,
      entry,
      reader,
      { method: message.itip.method, content },
      message.extra,
    ),
  };
}

/**
 * A REQUEST `reader` can answer (an invitation or an update): the per-invitation reply address as
 * its ORGANIZER, and the Accept and Decline links.
 */
function request(
  change: ChangeNotice,
  entry: CalendarEntry,
  reader: UserRecord,
  env: PlanEnv,
  message: { kind: MailKind; news: MeetingNews },
): Draft {
  const links = rsvpLinks(env.links, env.publicUrl, entry.meeting, reader);
  return draft(change, entry, reader, {
    ...message,
    itip: { method: 'REQUEST', organizerAddress: env.replyAddress(entry, reader) },
    extra: [
      { link: links.accept, label: 'Accept' },
      { link: links.decline, label: 'Decline' },
    ],
  });
}

/** The meeting a change is about, as its owner reads it, or null (gone, or no owner). */
async function entryOf(change: ChangeNotice, env: PlanEnv): Promise<CalendarEntry | null> {
  return change.meetingId ? env.entry(change.meetingId) : null;
}

/** Invited → the invitee gets REQUEST. */
const invited: Planner = async (change, env) => {
  const entry = await entryOf(change, env);
  const guest = entry?.attendees.find(({ user }) => user.id === change.userId)?.user;
  if (!entry || !guest || guest.id === entry.meeting.ownerId) {
    return [];
  }
  return [
    request(change, entry, guest, env, { kind: MailKind.INVITATION, news: { kind: 'invited' } }),
  ];
};

/**
 * An edit a calendar shows → REQUEST with its higher SEQUENCE to every listener; one occurrence
 * of a series cancelled by it → CANCEL with that occurrence's RECURRENCE-ID instead.
 */
const updated: Planner = async (change, env) => {
  const entry = await entryOf(change, env);
  if (!entry) {
    return [];
  }
  const at = Date.parse(change.occurredAt);
  const cancelled = entry.edits.filter(
    (edit) => edit.cancelled && Math.abs(Date.parse(edit.updatedAt) - at) <= SAME_CHANGE_MS,
  );
  const readers = listeners(entry);
  const cancels = cancelled.flatMap((edit) =>
    readers.map((reader) => {
      const originalStart = new Date(edit.originalStartTime);
      return draft(change, entry, reader, {
        kind: MailKind.CANCELLATION,
        news: { kind: 'occurrence-cancelled', originalStart },
        itip: { method: 'CANCEL', occurrence: originalStart },
        // Once per occurrence and reader, whichever change it is seen by.
        key: `${entry.meeting.id} ${edit.originalStartTime} ${reader.id} occurrence`,
      });
    }),
  );
  const fresh = await env.unsent(cancels);
  if (fresh.length > 0) {
    return fresh;
  }
  return readers.map((reader) =>
    request(change, entry, reader, env, { kind: MailKind.UPDATE, news: { kind: 'updated' } }),
  );
};

/** The meeting cancelled → CANCEL to every listener. */
const cancelled: Planner = async (change, env) => {
  const entry = await entryOf(change, env);
  return entry
    ? listeners(entry).map((reader) =>
        draft(change, entry, reader, {
          kind: MailKind.CANCELLATION,
          news: { kind: 'cancelled' },
          itip: { method: 'CANCEL' },
        }),
      )
    : [];
};

/** A participant removed (not one who left) → CANCEL to them. */
const removed: Planner = async (change, env) => {
  const entry = await entryOf(change, env);
  const user = change.userId ? await env.user(change.userId) : null;
  if (!entry || !user || change.actorId === user.id || user.id === entry.meeting.ownerId) {
    return [];
  }
  return [
    draft(change, entry, user, {
      kind: MailKind.CANCELLATION,
      news: { kind: 'removed' },
      itip: { method: 'CANCEL', only: { user, status: PARTSTAT[ParticipantStatus.DECLINED] } },
    }),
  ];
};

/** An invitee answered → the owner gets REPLY with that attendee's PARTSTAT. */
const answered: Planner = async (change, env) => {
  const entry = await entryOf(change, env);
  const mine = entry?.attendees.find(({ user }) => user.id === change.userId);
  if (!entry?.owner || !mine || mine.user.id === entry.meeting.ownerId) {
    return [];
  }
  const status = mine.participant.status;
  if (status === ParticipantStatus.NEW) {
    return [];
  }
  return [
    draft(change, entry, entry.owner, {
      kind: MailKind.ANSWER,
      news: {
        kind: 'answered',
        answerer: mine.user,
        accepted: status === ParticipantStatus.ACCEPTED,
      },
      itip: { method: 'REPLY', only: { user: mine.user, status: PARTSTAT[status] } },
    }),
  ];
};

/** The planners of meetings' changes. */
export const MEETING_PLANNERS: Readonly<Record<string, Planner>> = {
  [MeetingEventKind.PARTICIPANT_ADDED]: invited,
  [MeetingEventKind.UPDATED]: updated,
  [MeetingEventKind.RESCHEDULED]: updated,
  [MeetingEventKind.CANCELLED]: cancelled,
  [MeetingEventKind.PARTICIPANT_REMOVED]: removed,
  [MeetingEventKind.PARTICIPANT_ANSWERED]: answered,
};
