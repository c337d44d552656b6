import { UserResolver } from './user.resolver';
import type { PasswordHasher } from '../../platform/auth/password';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { UserSearchGram } from './user-search-gram.entity';
import { User } from './user.entity';
import { callerLookup } from './user.caller';
import { type UserStores, UserService } from './user.service';
import { userLoaders, UserStore } from './user.store';
import { UserConnection } from './user.types';

export { User, USER_LIMITS } from './user.entity';
export { isMailTopic, MAIL_TOPIC_NAMES, MAIL_TOPICS, type MailTopic } from './mail-preferences';
export { RegisterInput } from './user.inputs';
export { isAdmin, isVisibleUser, seesAvailabilityOf, visibleUserSql } from './user.rules';
export type { UserService } from './user.service';
export {
  EMAIL_VERIFICATION_REQUESTED,
  USER_SUBJECT,
  userChange,
  verificationRequested,
} from './user-change';
export {
  sortedWeek,
  TIME_OF_DAY,
  Weekday,
  WORKING_HOURS_LIMITS,
  WorkingPeriod,
  WorkingPeriodInput,
  type WorkingPeriodRecord,
  WorkingWeekField,
  workingWeekOf,
} from './working-hours';
export { type UserLoaders, type UserRecord, userNotFound, UserStore } from './user.store';

/** Users: registration, profiles, search, and who a token names. */
export const userModule = defineModule({
  name: 'user',
  entities: [User, UserSearchGram],
  resolvers: [UserResolver, UserConnection.resolver],
  stores: { users: UserStore },
  loaders: (stores: { readonly users: UserStore }) => userLoaders(stores),
  services: {
    users: (p: ServiceParts<UserStores, unknown, { passwords: PasswordHasher }>) =>
      new UserService(p.stores, p.deps.passwords, p.limit),
  },
  caller: (stores: { readonly users: UserStore }) => callerLookup(stores.users),
});
