import { RefreshToken } from '../modules/auth/refresh-token.entity';
import { Follow } from '../modules/follow/follow.entity';
import { Meeting } from '../modules/meeting/meeting.entity';
import { Participant } from '../modules/participant/participant.entity';
import { UserSearchGram } from '../modules/user/user-search-gram.entity';
import { User } from '../modules/user/user.entity';
import { BaseEntity } from '../shared/base.entity';

export const entities = [
  BaseEntity,
  User,
  UserSearchGram,
  Follow,
  Meeting,
  Participant,
  RefreshToken,
];
