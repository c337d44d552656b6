import { Connection } from '../../shared/connection';
import { User } from './user.entity';

/** Slices of user lists (search results). */
export const UserConnection = Connection(User, 'User');
