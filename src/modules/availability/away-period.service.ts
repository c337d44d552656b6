import { AppError, ValidationFailedError } from '../../platform/shared/errors';
import { DAY_MS } from '../../platform/shared/time-zone';
import type { StoreSet } from '../../platform/composition/context';
import { type MeetingService, requireWindow } from '../meeting';
import type { UserRecord } from '../user';
import { declineReasonOf } from './away-declines';
import type { AwayDeclineStore, SweepScope } from './away-declines.store';
import { AWAY_LIMITS, AwayKind } from './away-period.entity';
import type {
  CreateAwayPeriodInput,
  MyAwayPeriodsArgs,
  UpdateAwayPeriodInput,
} from './away-period.inputs';
import type { AwayPeriodRecord, AwayPeriodStore, NewAwayPeriod } from './away-period.store';

/** The stores time away works with. */
export type AwayStores = StoreSet<{ awayPeriods: AwayPeriodStore; awayDeclines: AwayDeclineStore }>;

/** An invitation to decline for someone away, and why. */
export interface AwayDecline {
  meetingId: string;
  userId: string;
  reason: string;
}

/** The invitations in `scope` to decline for their invitees, who are away then. */
export async function awayDeclines(
  store: AwayDeclineStore,
  scope: SweepScope,
): Promise<AwayDecline[]> {
  return (await store.invitations(scope)).flatMap((invitation) => {
    const reason = declineReasonOf(invitation);
    return reason === null
      ? []
      : [{ meetingId: invitation.meetingId, userId: invitation.userId, reason }];
  });
}

/**
 * Declines `decline` for `user` as their own answer would (events, webhooks), with its reason;
 * a meeting that closed or changed meanwhile refuses it, which leaves it as it is.
 */
export async function declineFor(
  meetings: MeetingService,
  user: UserRecord,
  decline: AwayDecline,
): Promise<void> {
  try {
    await meetings.decline(user, decline.meetingId, decline.reason);
  } catch (error) {
    if (!(error instanceof AppError)) {
      throw error;
    }
  }
}

/**
 * A period as it would be stored, checked: its length, and declining only out of office (field
 * names as the input's own validation names them).
 */
function checked(period: NewAwayPeriod): NewAwayPeriod {
  const length = Date.parse(period.end) - Date.parse(period.start);
  if (length <= 0) {
    throw ValidationFailedError.of('end', 'TOO_SMALL');
  }
  if (length > AWAY_LIMITS.days * DAY_MS) {
    throw ValidationFailedError.of('end', 'TOO_LARGE');
  }
  if (period.declineInvitations && period.kind !== AwayKind.OUT_OF_OFFICE) {
    throw ValidationFailedError.of('declineInvitations', 'INVALID_CHOICE');
  }
  return period;
}

/** The caller's time away: their periods, and the invitations declined for them meanwhile. */
export class AwayPeriodService {
  constructor(
    private readonly stores: AwayStores,
    private readonly meetings: MeetingService,
  ) {}

  async create(viewer: UserRecord, input: CreateAwayPeriodInput): Promise<AwayPeriodRecord> {
    const period = checked({
      userId: viewer.id,
      start: input.start.toISOString(),
      end: input.end.toISOString(),
      kind: input.kind,
      title: input.title.trim(),
      declineInvitations: input.declineInvitations ?? false,
    });
    const created = await this.stores.awayPeriods.insert(period);
    await this.declineInvitations(viewer, created);
    return created;
  }

  async update(viewer: UserRecord, input: UpdateAwayPeriodInput): Promise<AwayPeriodRecord> {
    const current = await this.stores.awayPeriods.own(viewer.id, input.awayPeriodId);
    const changes = {
      ...(input.start ? { start: input.start.toISOString() } : {}),
      ...(input.end ? { end: input.end.toISOString() } : {}),
      ...(input.kind ? { kind: input.kind } : {}),
      ...(typeof input.title === 'string' ? { title: input.title.trim() } : {}),
      ...(typeof input.declineInvitations === 'boolean'
        ? { declineInvitations: input.declineInvitations }
        : {}),
    };
    checked({ ...current, ...changes });
    const updated = await this.stores.awayPeriods.update(viewer.id, current.id, changes);
    await this.declineInvitations(viewer, updated);
    return updated;
  }

  /** Deletes one of the caller's periods; invitations declined meanwhile stay declined. */
  remove(viewer: UserRecord, awayPeriodId: string): Promise<AwayPeriodRecord> {
    return this.stores.awayPeriods.remove(viewer.id, awayPeriodId);
  }

  /** The caller's periods that overlap the window, earliest first. */
  mine(viewer: UserRecord, args: MyAwayPeriodsArgs): Promise<AwayPeriodRecord[]> {
    requireWindow(args.from, args.to, AWAY_LIMITS.windowDays);
    return this.stores.awayPeriods.mine(viewer.id, args.from, args.to);
  }

  /** A declining period declines the caller's open invitations within it at once. */
  private async declineInvitations(viewer: UserRecord, period: AwayPeriodRecord): Promise<void> {
    if (!period.declineInvitations) {
      return;
    }
    for (const decline of await awayDeclines(this.stores.awayDeclines, { userId: viewer.id })) {
      await declineFor(this.meetings, viewer, decline);
    }
  }
}
