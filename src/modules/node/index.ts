import { NodeResolver } from './node.resolver';
import type { ServiceParts } from '../../platform/composition/context';
import { defineModule } from '../../platform/composition/module';
import type { MeetingService } from '../meeting';
import { type NodeLoaders, NodeService, type NodeStores } from './node.service';
import { NodeStore } from './node.store';

/** `node` and `nodes`: any record by its id. */
export const nodeModule = defineModule({
  name: 'node',
  resolvers: [NodeResolver],
  stores: { nodes: NodeStore },
  services: {
    nodes: (p: ServiceParts<NodeStores, NodeLoaders, unknown, { meetings: MeetingService }>) =>
      new NodeService(p.stores, p.loaders, p.services.meetings),
  },
});
