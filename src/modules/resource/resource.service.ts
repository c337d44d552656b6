import type { StoreSet } from '../../platform/composition/context';
import { type ConnectionResult, toConnection } from '../../platform/graphql/connection';
import { ForbiddenError } from '../../platform/shared/errors';
import type { SliceRequest } from '../../platform/sql/keyset';
import { isAdmin, type UserRecord } from '../user';
import {
  type CreateResourceInput,
  RESOURCE_FIELDS,
  type ResourceFilterInput,
  STORED_AS,
  type UpdateResourceInput,
} from './resource.inputs';
import type { ResourceFields, ResourceRecord, ResourceStore } from './resource.store';

/** The stores resources work with. */
export type ResourceStores = StoreSet<{ resources: ResourceStore }>;

const onlyAdmins = () =>
  new ForbiddenError('ONLY_ADMINS_MANAGE_RESOURCES', 'Only admins can make or change resources');

/** The stored form of the fields an input gives (left out: not given). */
function stored(input: Partial<CreateResourceInput>): Partial<ResourceFields> {
  const fields: Partial<ResourceFields> = {};
  for (const field of RESOURCE_FIELDS) {
    const value = input[field];
    if (value !== undefined) {
      // `satisfies` on STORED_AS checks each function against its field.
      const store = STORED_AS[field] as (given: unknown) => unknown;
      Object.assign(fields, { [field]: store(value) });
    }
  }
  return fields;
}

/** Resources: admins make, change and delete them; everyone signed in lists them. */
export class ResourceService {
  constructor(private readonly stores: ResourceStores) {}

  async create(viewer: UserRecord, input: CreateResourceInput): Promise<ResourceRecord> {
    requireAdmin(viewer);
    // The input requires name and capacity; the rest take the entity's defaults when left out.
    return this.stores.resources.create(stored(input) as ResourceFields);
  }

  async update(viewer: UserRecord, input: UpdateResourceInput): Promise<ResourceRecord> {
    requireAdmin(viewer);
    return this.stores.resources.update(input.resourceId, stored(input));
  }

  async remove(viewer: UserRecord, id: string): Promise<ResourceRecord> {
    requireAdmin(viewer);
    return this.stores.resources.remove(id);
  }

  /** A slice of the resources the filter takes, by name. */
  async list(
    filter: ResourceFilterInput | null | undefined,
    request: SliceRequest,
  ): Promise<ConnectionResult<ResourceRecord>> {
    const { slice, count } = await this.stores.resources.slice(filter, request);
    return toConnection(slice, count);
  }
}

function requireAdmin(viewer: UserRecord): void {
  if (!isAdmin(viewer)) {
    throw onlyAdmins();
  }
}
