import type { LinkTokens } from '../../platform/auth/link-tokens';
import type { StoreSet } from '../../platform/composition/context';
import type { ChangeLogStore } from '../../platform/live/change-log';
import { AppError, ValidationFailedError } from '../../platform/shared/errors';
import { type MeetingRecord, type MeetingService, ParticipantStatus } from '../meeting';
import { type MailTopic, type UserRecord, type UserStore, verificationRequested } from '../user';
import { MailStatus } from './mail-message.entity';
import { MAIL_LIMITS } from './mail.limits';
import type { ItipReply } from './mail.itip-reply';
import { VERIFY_PURPOSE } from './mail.links';
import { RSVP_PURPOSE, type RsvpAnswer, rsvpClaimsOf } from './mail.rsvp';
import type { MailRecord, MailStore } from './mail.store';
import { UNSUBSCRIBE_PURPOSE, unsubscribeClaimsOf } from './mail.unsubscribe';

/** The stores mail's services work with. */
export type MailStores = StoreSet<{ users: UserStore; events: ChangeLogStore; mail: MailStore }>;

/** A verification link that does not verify: forged, expired, or of an address since changed. */
export class VerificationRefusedError extends ValidationFailedError {
  constructor(readonly why: 'forged' | 'expired' | 'revoked') {
    super(
      { token: 'INVALID_FORMAT' },
      why === 'expired'
        ? 'This verification link has expired: ask for a new one.'
        : 'This verification link is not valid (any more): ask for a new one.',
    );
  }
}

/** An RSVP link that does not answer: forged, expired, or of a participant no longer there. */
export class RsvpRefusedError extends ValidationFailedError {
  constructor(readonly why: 'forged' | 'expired' | 'revoked') {
    super({ token: 'INVALID_FORMAT' }, 'This link cannot answer the invitation.');
  }
}

/** An unsubscribe link that does not unsubscribe: forged, expired, or of a user since gone. */
export class UnsubscribeRefusedError extends ValidationFailedError {
  constructor(readonly why: 'forged' | 'expired' | 'revoked') {
    super({ token: 'INVALID_FORMAT' }, 'This unsubscribe link is not valid (any more).');
  }
}

/** What an unsubscribe link turns off, and for whom. */
export interface UnsubscribeTarget {
  user: UserRecord;
  topic: MailTopic;
}

/** What an inbound message came to (the reason is logged, never the message). */
export interface InboundOutcome {
  applied: boolean;
  reason: string;
}

/** The PARTSTATs a REPLY is applied for (TENTATIVE and the rest leave the answer as it is). */
const REPLY_ANSWERS: Readonly<Record<string, RsvpAnswer>> = {
  ACCEPTED: 'accept',
  DECLINED: 'decline',
};

/** A participant as an RSVP link names them: the meeting, the user and their answer so far. */
export interface RsvpTarget {
  meeting: MeetingRecord;
  user: UserRecord;
  status: ParticipantStatus;
}

/**
 * Verifying addresses (the link's token, asking for another message) and answering invitations
 * by their links.
 */
export class MailService {
  constructor(
    private readonly stores: MailStores,
    private readonly links: LinkTokens,
    private readonly meetings: MeetingService,
  ) {}

  /** The participant an RSVP token names, as they stand now (else RsvpRefusedError). */
  async rsvpTarget(token: string): Promise<RsvpTarget> {
    const read = this.links.read(RSVP_PURPOSE, token);
    if ('refused' in read) {
      throw new RsvpRefusedError(read.refused);
    }
    const claims = rsvpClaimsOf(read.claims);
    if (!claims) {
      throw new RsvpRefusedError('forged');
    }
    const { meeting, participants } = await this.meetings.snapshot(claims.meetingId);
    const mine = participants.find((participant) => participant.userId === claims.userId);
    const [user] = mine ? await this.stores.users.byIds([claims.userId]) : [];
    if (!meeting || !mine || !user) {
      throw new RsvpRefusedError('revoked');
    }
    return { meeting, user, status: mine.status };
  }

  /**
   * Answers the invitation an RSVP token names, as its participant, through the same rules as
   * approveMeeting and declineMeeting: answering again the same way changes nothing.
   */
  async rsvp(token: string, answer: RsvpAnswer): Promise<RsvpTarget> {
    const { user, meeting } = await this.rsvpTarget(token);
    const answered =
      answer === 'accept'
        ? await this.meetings.approve(user, meeting.id)
        : await this.meetings.decline(user, meeting.id);
    return {
      meeting: answered,
      user,
      status: answer === 'accept' ? ParticipantStatus.ACCEPTED : ParticipantStatus.DECLINED,
    };
  }

  /** The user and the kind of mail an unsubscribe token names (else UnsubscribeRefusedError). */
  async unsubscribeTarget(token: string): Promise<UnsubscribeTarget> {
    const read = this.links.read(UNSUBSCRIBE_PURPOSE, token);
    if ('refused' in read) {
      throw new UnsubscribeRefusedError(read.refused);
    }
    const claims = unsubscribeClaimsOf(read.claims);
    if (!claims) {
      throw new UnsubscribeRefusedError('forged');
    }
    const [user] = await this.stores.users.byIds([claims.userId]);
    if (!user) {
      throw new UnsubscribeRefusedError('revoked');
    }
    return { user, topic: claims.topic };
  }

  /**
   * Turns off the kind of mail an unsubscribe token names, for its user, without sign-in (the
   * token is the proof); again: no change.
   */
  async unsubscribe(token: string): Promise<UnsubscribeTarget> {
    const target = await this.unsubscribeTarget(token);
    if (!(await this.stores.users.mute(target.user.id, target.topic))) {
      throw new UnsubscribeRefusedError('revoked');
    }
    return target;
  }

  /** Marks the address a verification token names verified (again: no change). */
  async verifyEmail(token: string): Promise<UserRecord> {
    const read = this.links.read(VERIFY_PURPOSE, token);
    if ('refused' in read) {
      throw new VerificationRefusedError(read.refused);
    }
    const { u, e } = read.claims;
    const user =
      typeof u === 'string' && typeof e === 'string'
        ? await this.stores.users.markEmailVerified(u, e)
        : null;
    if (!user) {
      throw new VerificationRefusedError('revoked');
    }
    return user;
  }

  /** Asks for a new verification message to the caller's address, unless it is verified. */
  async resendVerification(viewer: UserRecord): Promise<boolean> {
    if (viewer.emailVerified) {
      return false;
    }
    await this.stores.events.append([verificationRequested(viewer.id)]);
    return true;
  }

  /**
   * Applies an iTIP REPLY received at a participant's reply address, for that participant only:
   * ACCEPTED accepts and DECLINED declines through the rules of approveMeeting and
   * declineMeeting; anything else (another event, another attendee, TENTATIVE, an answer the
   * meeting refuses) is ignored, and says why.
   */
  async applyReply(participantId: string, reply: ItipReply): Promise<InboundOutcome> {
    const participant = await this.stores.mail.participant(participantId);
    const [user] = participant ? await this.stores.users.byIds([participant.userId]) : [];
    if (!participant || !user) {
      return { applied: false, reason: 'participant gone' };
    }
    if (reply.method !== 'REPLY' || reply.uid !== participant.meetingId) {
      return { applied: false, reason: 'not a reply to this meeting' };
    }
    const mine = reply.attendees.find((attendee) => attendee.address === user.email);
    const answer = mine ? REPLY_ANSWERS[mine.partstat] : undefined;
    if (!answer) {
      return { applied: false, reason: mine ? 'no answer to apply' : 'another attendee' };
    }
    try {
      await (answer === 'accept'
        ? this.meetings.approve(user, participant.meetingId)
        : this.meetings.decline(user, participant.meetingId));
      return { applied: true, reason: answer };
    } catch (error) {
      if (error instanceof AppError) {
        return { applied: false, reason: error.message };
      }
      throw error;
    }
  }

  /** The newest messages kept for the development mail page. */
  keptMessages(): Promise<MailRecord[]> {
    return this.stores.mail.newestKept(MAIL_LIMITS.devPageSize);
  }

  /** One kept message with its bytes, or null (another id, or a message sent by SMTP). */
  async keptMessage(id: string): Promise<{ message: MailRecord; raw: string } | null> {
    const found = await this.stores.mail.withRaw(id);
    return found?.message.status === MailStatus.KEPT ? found : null;
  }
}
