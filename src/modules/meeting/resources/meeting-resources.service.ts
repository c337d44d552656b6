import { ConflictError, NotFoundError } from '../../../platform/shared/errors';
import { RESOURCE_LIMITS, type ResourceLoaders, resourceNotFound } from '../../resource';
import type { UserRecord } from '../../user';
import { MeetingEventKind } from '../meeting-event';
import type { MeetingStores } from '../meeting.stores';
import type { MeetingLoaders, MeetingRecord } from '../meeting.store';
import { changeLocked, requireManager, requireOpen } from '../locked-change';
import type { AddResourceInput, RemoveResourceInput } from './meeting-resources.inputs';
import { bookingPlan } from './booking-plan';

type Loaders = MeetingLoaders & Pick<ResourceLoaders, 'resources' | 'resourcesByMeeting'>;

/**
 * The rooms and other resources a meeting books, changed by its owner (or an admin) while it is
 * open. A change of them is an edit calendars show (LOCATION, the room as an attendee): the
 * meeting's revision goes up and its subscribers hear UPDATED.
 */
export class MeetingResourcesService {
  constructor(
    private readonly stores: MeetingStores,
    private readonly loaders: Loaders,
    /** How many days ahead a series books its resources. */
    private readonly horizonDays: number,
  ) {}

  /** Books a resource for the meeting's time; booking one it books already changes nothing. */
  async add(viewer: UserRecord, input: AddResourceInput): Promise<MeetingRecord> {
    if (!(await this.loaders.resources.load(input.resourceId))) {
      throw resourceNotFound();
    }
    return this.edit(viewer, input.meetingId, async (meeting, tx) => {
      const booked = (await tx.bookings.ofMeetings([meeting.id])).get(meeting.id) ?? [];
      if (booked.some((resource) => resource.id === input.resourceId)) {
        return false;
      }
      if (booked.length >= RESOURCE_LIMITS.perMeeting) {
        throw new ConflictError(
          'TOO_MANY_RESOURCES',
          `A meeting books at most ${RESOURCE_LIMITS.perMeeting} resources`,
        );
      }
      const edits =
        meeting.recurrence === null
          ? []
          : ((await tx.occurrences.ofMeetings([meeting.id])).get(meeting.id) ?? []);
      const plan = bookingPlan(meeting, edits, new Date(), this.horizonDays);
      await tx.bookings.attach(meeting.id, [input.resourceId], plan.spans, plan.bookedUntil);
      return true;
    });
  }

  /** Frees a resource the meeting books (else RESOURCE_NOT_BOOKED). */
  remove(viewer: UserRecord, input: RemoveResourceInput): Promise<MeetingRecord> {
    return this.edit(viewer, input.meetingId, async (meeting, tx) => {
      if (!(await tx.bookings.detach(meeting.id, input.resourceId))) {
        throw new NotFoundError('RESOURCE_NOT_BOOKED', 'The meeting does not book this resource');
      }
      return true;
    });
  }

  /**
   * Runs `work` on the locked meeting, which its owner (or an admin) changes while it is open;
   * when `work` changed its resources, the meeting is a new revision.
   */
  private async edit(
    viewer: UserRecord,
    meetingId: string,
    work: (meeting: MeetingRecord, tx: MeetingStores) => Promise<boolean>,
  ): Promise<MeetingRecord> {
    const meeting = await changeLocked(
      this.stores,
      this.loaders,
      viewer,
      meetingId,
      async ({ meeting }, tx) => {
        requireManager(viewer, meeting, 'ONLY_MEETING_OWNER_CAN_BOOK');
        requireOpen(meeting);
        return (await work(meeting, tx))
          ? {
              meeting: await tx.meetings.update(meeting, {}, { touch: true }),
              change: { kind: MeetingEventKind.UPDATED },
            }
          : { meeting };
      },
    );
    this.loaders.resourcesByMeeting.clear(meetingId);
    return meeting;
  }
}
