import type { OperationContext } from '../../platform/composition/context';
import type { UserRecord } from '../user';
import type { ResourceService } from './resource.service';

/** An operation's context as the resources' resolver reads it. */
export type Context = OperationContext<{ resources: ResourceService }, unknown, UserRecord>;
