import { FollowResolver } from './follow.resolver';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import { Follow } from './follow.entity';
import { type FollowLoaders, FollowService, type FollowStores } from './follow.service';
import { FollowStore } from './follow.store';
import { FollowConnection } from './follow.types';

export { type FollowRecord, FollowStore } from './follow.store';

/** Who follows whom. */
export const followModule = defineModule({
  name: 'follow',
  entities: [Follow],
  resolvers: [FollowResolver, FollowConnection.resolver],
  stores: { follows: FollowStore },
  services: {
    follows: (p: ServiceParts<FollowStores, FollowLoaders>) =>
      new FollowService(p.stores, p.loaders),
  },
});
