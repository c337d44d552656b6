import { Follow } from '../modules/follow/follow.entity';
import { Meeting } from '../modules/meeting/meeting.entity';
import { Participant } from '../modules/participant/participant.entity';
import { User } from '../modules/user/user.entity';
import { BaseEntity } from '../shared/base.entity';

export const entities = [BaseEntity, User, Follow, Meeting, Participant];
