import type { OperationContext } from '../../platform/composition/context';
import type { UserLoaders, UserRecord } from '../user';
import type { FollowService } from './follow.service';

/** An operation's context as the follow module's resolvers read it. */
export type Context = OperationContext<{ follows: FollowService }, UserLoaders, UserRecord>;
