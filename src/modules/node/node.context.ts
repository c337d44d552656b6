import type { OperationContext } from '../../platform/composition/context';
import type { UserRecord } from '../user';
import type { NodeService } from './node.service';

/** An operation's context as `node`'s resolver reads it. */
export type Context = OperationContext<{ nodes: NodeService }, unknown, UserRecord>;
