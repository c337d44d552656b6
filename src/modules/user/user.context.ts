import type { OperationContext } from '../../platform/composition/context';
import type { UserService } from './user.service';
import type { UserLoaders, UserRecord } from './user.store';

/** An operation's context as the user module's resolvers read it. */
export type Context = OperationContext<{ users: UserService }, UserLoaders, UserRecord>;
