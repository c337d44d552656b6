import type { OperationContext } from '../../platform/composition/context';
import type { UserRecord } from '../user';
import type { AvailabilityService } from './availability.service';

/** An operation's context as availability's resolvers read it. */
export type Context = OperationContext<{ availability: AvailabilityService }, unknown, UserRecord>;
