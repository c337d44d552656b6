import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { NotFoundError } from '../../platform/shared/errors';
import { inKeyOrder, KnownLoader } from '../../platform/shared/known-loader';
import {
  countList,
  type KeysetOrder,
  type ListQuery,
  readSlice,
  type Slice,
  type SliceRequest,
} from '../../platform/sql/keyset';
import { type ReadModel, readerOf, tableOf, toReadModel } from '../../platform/sql/read-model';
import { byIds, readAll, selectByIds, selectRows } from '../../platform/sql/rows';
import { Resource } from './resource.entity';
import { storedFeatures } from './resource.inputs';

/** A resource as queries and mutations answer it. */
export type ResourceRecord = ReadModel<Resource>;

/** What an admin sets on a resource. */
export type ResourceFields = Pick<
  Resource,
  'name' | 'capacity' | 'building' | 'floor' | 'features' | 'timeZone' | 'workingHours'
>;

/** Which resources a list or a room search takes: every condition given holds. */
export interface ResourceFilter {
  minCapacity?: number | null;
  building?: string | null;
  features?: readonly string[] | null;
}

export const resourceNotFound = (): NotFoundError =>
  new NotFoundError('RESOURCE_NOT_FOUND', 'Resource not found');

export const resources = readerOf(Resource);
export const RESOURCES = `"${tableOf(Resource)}"`;
const SELECT = `select ${resources.select('r')} from ${RESOURCES} r`;
const BY_IDS = byIds(`${SELECT} where r."id" {match}`);
const BY_NAME: KeysetOrder<ResourceRecord> = {
  columns: [
    { sql: 'r."name"', key: 'name', type: 'text' },
    { sql: 'r."id"', key: 'id', type: 'uuid' },
  ],
  direction: 'asc',
};

/** The conditions of a filter over resources aliased `r` (true when it has none). */
export function filterSql(filter: ResourceFilter | null | undefined): {
  where: string;
  params: unknown[];
} {
  const conditions: string[] = [];
  const params: unknown[] = [];
  if (filter?.minCapacity) {
    conditions.push('r."capacity" >= ?');
    params.push(filter.minCapacity);
  }
  if (filter?.building?.trim()) {
    conditions.push('lower(r."building") = lower(?)');
    params.push(filter.building.trim());
  }
  if (filter?.features && filter.features.length > 0) {
    conditions.push('r."features" @> ?::jsonb');
    params.push(JSON.stringify(storedFeatures(filter.features)));
  }
  return { where: conditions.length > 0 ? conditions.join(' and ') : 'true', params };
}

/** Every read and write of resources themselves (their bookings: BookingStore). */
export class ResourceStore {
  constructor(private readonly em: EntityManager) {}

  /** Resources by id, in one statement. */
  async byIds(ids: readonly string[]): Promise<ResourceRecord[]> {
    return ids.length === 0 ? [] : readAll(resources, await selectByIds(this.em, BY_IDS, ids));
  }

  /** A slice of the resources a filter takes, by name, and their count. */
  async slice(
    filter: ResourceFilter | null | undefined,
    request: SliceRequest,
  ): Promise<{ slice: Slice<ResourceRecord>; count: () => Promise<number> }> {
    const query: ListQuery = { select: SELECT, ...filterSql(filter) };
    const slice = await readSlice(this.em, query, BY_NAME, resources, request);
    return { slice, count: () => countList(this.em, query) };
  }

  /** Writes a new resource (the ORM's unit of work: admins' writes are rare). */
  async create(fields: ResourceFields): Promise<ResourceRecord> {
    const resource = this.em.create(Resource, fields);
    await this.em.flush();
    return toReadModel(resource);
  }

  /** Changes a resource (RESOURCE_NOT_FOUND when there is none). */
  async update(id: string, changes: Partial<ResourceFields>): Promise<ResourceRecord> {
    const resource = await this.em.findOne(Resource, { id });
    if (!resource) {
      throw resourceNotFound();
    }
    this.em.assign(resource, changes);
    await this.em.flush();
    return toReadModel(resource);
  }

  /** Deletes a resource and its bookings (RESOURCE_NOT_FOUND when there is none). */
  async remove(id: string): Promise<ResourceRecord> {
    const rows = await selectRows(
      this.em,
      `delete from ${RESOURCES} r where r."id" = ? returning ${resources.select('r')}`,
      [id],
    );
    const [removed] = readAll(resources, rows);
    if (!removed) {
      throw resourceNotFound();
    }
    return removed;
  }
}

/** The loaders of a request: resources by id, and each meeting's booked resources. */
export function resourceLoaders(stores: {
  readonly resources: ResourceStore;
  readonly bookings: { ofMeetings(ids: readonly string[]): Promise<Map<string, ResourceRecord[]>> };
}) {
  const byId = new KnownLoader<string, ResourceRecord | null>(async (ids) =>
    inKeyOrder(ids, await stores.resources.byIds(ids)),
  );
  return {
    resources: byId,
    resourcesByMeeting: new DataLoader<string, ResourceRecord[]>(async (meetingIds) => {
      const found = await stores.bookings.ofMeetings(meetingIds);
      for (const list of found.values()) {
        for (const resource of list) {
          byId.prime(resource.id, resource);
        }
      }
      return meetingIds.map((id) => found.get(id) ?? []);
    }),
  };
}

/** A request's loaders of resources (resourceLoaders). */
export type ResourceLoaders = ReturnType<typeof resourceLoaders>;
