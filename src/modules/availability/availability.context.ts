import type { OperationContext } from '../../platform/composition/context';
import type { UserRecord } from '../user';
import type { AvailabilityService } from './availability.service';
import type { AwayPeriodService } from './away-period.service';

/** An operation's context as availability's resolvers read it. */
export type Context = OperationContext<
  { availability: AvailabilityService; awayPeriods: AwayPeriodService },
  unknown,
  UserRecord
>;
