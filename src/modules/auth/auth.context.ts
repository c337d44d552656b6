import type { OperationContext } from '../../platform/composition/context';
import type { UserRecord, UserService } from '../user';
import type { AuthService } from './auth.service';

/** An operation's context as sign-in's resolvers read it. */
export type Context = OperationContext<
  { auth: AuthService; users: UserService },
  unknown,
  UserRecord
>;
