import type { EntityManager } from '@mikro-orm/postgresql';
import { type ChangeNotice, MeetingEventKind } from '../meeting';
import { EMAIL_VERIFICATION_REQUESTED, type UserRecord, UserStore } from '../user';
import { MailKind } from './mail-message.entity';
import type { Draft, PlanEnv, Planner } from './mail.draft';
import { MEETING_PLANNERS } from './mail.meeting-plan';
import { verificationLink } from './mail.links';
import { verificationLetter } from './letters/verification.letter';
import { topicOf, unsubscribeLink, wants } from './mail.unsubscribe';
import { reminded } from './reminders/reminder.plan';

const recipientOf = (user: UserRecord) => ({ name: user.name, address: user.email });

/** The verification message, to an address not verified yet. */
const verification: Planner = async (change, env) => {
  const user = change.userId ? await env.user(change.userId) : null;
  if (!user || user.emailVerified || !user.isActive) {
    return [];
  }
  const link = verificationLink(env.links, env.publicUrl, user);
  return [
    {
      dedupeKey: `${change.cursor} ${user.id} ${MailKind.VERIFICATION}`,
      kind: MailKind.VERIFICATION,
      user,
      senderId: null,
      letter: verificationLetter(recipientOf(user), link),
    },
  ];
};

/** The planners of the change log's kinds; a kind without one makes no message. */
const PLANNERS: Readonly<Record<string, Planner>> = {
  [EMAIL_VERIFICATION_REQUESTED]: verification,
  ...MEETING_PLANNERS,
  [MeetingEventKind.REMINDER]: reminded,
};

/** Users by id, each read once for a batch. */
export function userCache(em: EntityManager): (id: string) => Promise<UserRecord | null> {
  const users = new Map<string, Promise<UserRecord | null>>();
  return (id) => {
    let user = users.get(id);
    if (!user) {
      user = new UserStore(em).byIds([id]).then(([found]) => found ?? null);
      users.set(id, user);
    }
    return user;
  };
}

/** Why a draft was left out. */
export type SkipReason = 'unverified' | 'muted' | 'rate_limit';

/** A draft as it is sent: with the one-click unsubscribe link of its kind, if one covers it. */
function withUnsubscribe(draft: Draft, env: PlanEnv): Draft {
  const topic = topicOf(draft.kind);
  return topic
    ? {
        ...draft,
        letter: {
          ...draft.letter,
          unsubscribe: unsubscribeLink(env.links, env.publicUrl, draft.user, topic),
        },
      }
    : draft;
}

/** MAIL_PER_SENDER_PER_HOUR, and how many invitations a user caused in the last hour. */
export interface SenderLimit {
  perHour: number;
  sentInLastHour(senderId: string): Promise<number>;
}

/**
 * The messages of a batch of changes, in the log's order. Only verification goes to an address
 * not verified yet, and nothing of a kind its recipient turned off (User.mailMuted); past
 * MAIL_PER_SENDER_PER_HOUR invitations caused by one user, the invitation is still made,
 * without mail.
 */
export async function planChanges(
  changes: readonly ChangeNotice[],
  env: PlanEnv,
  limit: SenderLimit,
): Promise<{ drafts: Draft[]; skipped: Array<{ draft: Draft; reason: SkipReason }> }> {
  const drafts: Draft[] = [];
  const skipped: Array<{ draft: Draft; reason: SkipReason }> = [];
  const invitations = new Map<string, number>();
  const overLimit = async (draft: Draft): Promise<boolean> => {
    if (draft.kind !== MailKind.INVITATION || draft.senderId === null) {
      return false;
    }
    const sender = draft.senderId;
    const sent = invitations.get(sender) ?? (await limit.sentInLastHour(sender));
    invitations.set(sender, sent + 1);
    return sent >= limit.perHour;
  };
  for (const change of changes) {
    const planner = PLANNERS[change.kind];
    for (const draft of planner ? await planner(change, env) : []) {
      if (draft.kind !== MailKind.VERIFICATION && !draft.user.emailVerified) {
        skipped.push({ draft, reason: 'unverified' });
      } else if (!wants(draft.user, draft.kind)) {
        skipped.push({ draft, reason: 'muted' });
      } else if (await overLimit(draft)) {
        skipped.push({ draft, reason: 'rate_limit' });
      } else {
        drafts.push(withUnsubscribe(draft, env));
      }
    }
  }
  return { drafts, skipped };
}
