import { Connection } from '../../platform/graphql/connection';
import { User } from './user.entity';

/** Slices of user lists (search results). */
export const UserConnection = Connection(User, 'User');
