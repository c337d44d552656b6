import type { OperationContext } from '../../platform/composition/context';
import type { UserLoaders, UserRecord } from '../user';
import type { MeetingLifecycleService } from './lifecycle/meeting-lifecycle.service';
import type { MeetingService } from './meeting.service';
import type { MeetingLoaders } from './meeting.store';
import type { OccurrenceLoaders } from './schedule/occurrence.store';
import type { MeetingResourcesService } from './resources/meeting-resources.service';

/** The services of the meeting module. */
export interface MeetingServices {
  meetings: MeetingService;
  meetingLifecycle: MeetingLifecycleService;
  meetingResources: MeetingResourcesService;
}

/** An operation's context as the meeting module's resolvers read it. */
export type Context = OperationContext<
  MeetingServices,
  UserLoaders & MeetingLoaders & OccurrenceLoaders,
  UserRecord
>;
