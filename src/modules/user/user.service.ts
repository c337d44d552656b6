import type { CountAttempt } from '../../platform/auth/attempt-limiter';
import type { PasswordHasher } from '../../platform/auth/password';
import { onUniqueViolation } from '../../platform/shared/db-errors';
import { ConflictError } from '../../platform/shared/errors';
import { type ConnectionResult, toConnection } from '../../platform/graphql/connection';
import type { SliceRequest } from '../../platform/sql/keyset';
import type { Page } from '../../platform/shared/pagination';
import { storedTimeZone } from '../../platform/shared/time-zone';
import type { RegisterInput, UpdateProfileInput } from './user.inputs';
import type { ProfileChanges, UserRecord } from './user.store';
import type { StoreSet } from '../../platform/composition/context';
import type { ChangeLogStore } from '../../platform/live/change-log';
import type { UserStore } from './user.store';
import { sortedWeek } from './working-hours';
import { mutedAfter } from './mail-preferences';
import { PROFILE_UPDATED, userChange, verificationRequested } from './user-change';

/** The stores user services work with. */
export type UserStores = StoreSet<{ users: UserStore; events: ChangeLogStore }>;
type Stores = UserStores;

/** Optional text as stored: trimmed, and empty as null. */
const optionalText = (value: string | null): string | null => value?.trim() || null;

const emailTaken = () => new ConflictError('EMAIL_ALREADY_REGISTERED', 'Email already registered');
const accountTaken = () =>
  new ConflictError('ACCOUNT_NAME_ALREADY_TAKEN', 'Account name already taken');

export class UserService {
  constructor(
    private readonly stores: Stores,
    private readonly passwords: PasswordHasher,
    private readonly limit: CountAttempt,
  ) {}

  /** Registers a user; only the listed fields are read, so no privilege can be asked for. */
  async register(args: RegisterInput): Promise<UserRecord> {
    const email = args.email.trim().toLowerCase();
    await this.limit({ action: 'register', account: email });
    const account = args.account.trim().toLowerCase();
    const taken = await this.stores.users.taken(email, account);
    if (taken.email) {
      throw emailTaken();
    }
    if (taken.account) {
      throw accountTaken();
    }
    const fields = {
      name: args.name.trim(),
      email,
      account,
      passwordHash: await this.passwords.hash(args.password),
    };
    // A concurrent registration of the same address or name fails like a sequential one. The
    // change log asks for the verification message in the same transaction (mail reads it).
    const create = () =>
      this.stores.ormTransaction(async (tx) => {
        const user = await tx.users.create(fields);
        await tx.events.append([verificationRequested(user.id)]);
        return user;
      });
    return onUniqueViolation(create, {
      users_email_unique: emailTaken,
      users_account_unique: accountTaken,
    });
  }

  /**
   * Changes the caller's own profile: only the fields given, and only these (the profile and
   * the availability preference), so email, account, roles and flags cannot change here.
   */
  updateProfile(viewer: UserRecord, input: UpdateProfileInput): Promise<UserRecord> {
    const changes: ProfileChanges = {};
    // Validation refuses a null name, so `name` is either absent or text.
    if (typeof input.name === 'string') {
      changes.name = input.name.trim();
    }
    if (input.bio !== undefined) {
      changes.bio = optionalText(input.bio);
    }
    if (input.phone !== undefined) {
      changes.phone = optionalText(input.phone);
    }
    if (input.dob !== undefined) {
      changes.dob = input.dob;
    }
    if (input.avatarPhotoId !== undefined) {
      changes.avatarPhotoId = input.avatarPhotoId ?? null;
    }
    if (typeof input.shareAvailability === 'boolean') {
      changes.shareAvailability = input.shareAvailability;
    }
    if (input.timeZone !== undefined) {
      changes.timeZone = storedTimeZone(input.timeZone);
    }
    if (input.workingHours !== undefined) {
      changes.workingHours = input.workingHours && sortedWeek(input.workingHours);
    }
    if (input.mailPreferences) {
      changes.mailMuted = mutedAfter(viewer.mailMuted, input.mailPreferences);
    }
    return this.stores.ormTransaction(async (tx) => {
      const user = await tx.users.updateProfile(viewer.id, changes);
      // Others see a profile: the change log says it changed (not what), as it does of meetings.
      await tx.events.append([userChange(PROFILE_UPDATED, viewer.id, viewer.id)]);
      return user;
    });
  }

  byAccount(account: string): Promise<UserRecord> {
    return this.stores.users.visible({ account: account.trim().toLowerCase() });
  }

  /** A slice of the search's matches, by name. */
  async searchSlice(q: string, request: SliceRequest): Promise<ConnectionResult<UserRecord>> {
    const { slice, count } = await this.stores.users.searchSlice(q.trim(), request);
    return toConnection(slice, count);
  }

  /** Case-insensitive substring search over name, account and e-mail; ordered by name, id. */
  search(q: string, page: Page): Promise<{ data: UserRecord[]; count: number }> {
    return this.stores.users.search(q.trim(), page);
  }
}
