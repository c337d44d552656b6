import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import {
  ArgsType,
  type ClassType,
  Field,
  FieldResolver,
  Int,
  ObjectType,
  registerEnumType,
  Resolver,
  Root,
} from 'type-graphql';
import { DEFAULT_SLICE_SIZE, type Slice, type SliceRequest } from '../sql/keyset';
import { MAX_PAGE_SIZE } from '../shared/pagination';

/** A list's direction along its order. */
export enum SortDirection {
  ASC = 'asc',
  DESC = 'desc',
}
registerEnumType(SortDirection, { name: 'SortDirection', description: 'Ascending or descending.' });

@ObjectType({ simpleResolvers: true, description: 'Where a slice of a list stands in the list.' })
export class PageInfo {
  @Field({ description: 'More records follow the last of this slice.' })
  hasNextPage!: boolean;

  @Field({ description: 'Records precede the first of this slice.' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Cursor of the first edge, if any.' })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: 'Cursor of the last edge, if any.' })
  endCursor!: string | null;
}

/** A slice of a list (Relay cursor connections); the total is counted only when asked for. */
export interface ConnectionResult<T> {
  edges: Array<{ cursor: string; node: T }>;
  nodes: T[];
  pageInfo: PageInfo;
  count: () => Promise<number>;
}

/** Arguments of every connection: a slice after or before a cursor, at most MAX_PAGE_SIZE long. */
@ArgsType()
export class ConnectionArgs implements SliceRequest {
  @Field(() => Int, {
    nullable: true,
    description: `The first n records after \`after\`, 1 to ${MAX_PAGE_SIZE} (default ${DEFAULT_SLICE_SIZE}).`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  first?: number | null;

  @Field(() => String, { nullable: true, description: 'A cursor: read the records after it.' })
  @IsOptional()
  @IsString()
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `The last n records before \`before\`, 1 to ${MAX_PAGE_SIZE}; not with \`first\`.`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  last?: number | null;

  @Field(() => String, { nullable: true, description: 'A cursor: read the records before it.' })
  @IsOptional()
  @IsString()
  before?: string | null;
}

/** A slice as a connection; `count` runs only if the client selects `totalCount`. */
export function toConnection<T>(
  slice: Slice<T>,
  count: () => Promise<number>,
): ConnectionResult<T> {
  return {
    edges: slice.records.map((node, index) => ({ cursor: slice.cursors[index] as string, node })),
    nodes: slice.records,
    pageInfo: {
      hasNextPage: slice.hasNextPage,
      hasPreviousPage: slice.hasPreviousPage,
      startCursor: slice.cursors[0] ?? null,
      endCursor: slice.cursors[slice.cursors.length - 1] ?? null,
    },
    count,
  };
}

/**
 * The connection type of a node type (`<Name>Connection` with `<Name>Edge`), and the resolver of
 * its `totalCount`, which the schema must list among its resolvers.
 */
export function Connection<T extends object>(node: ClassType<T>, name: string) {
  @ObjectType(`${name}Edge`, { simpleResolvers: true, description: `A ${name} in a list.` })
  class Edge {
    @Field({ description: 'Where this record stands: pass it as `after` or `before`.' })
    cursor!: string;

    @Field(() => node, { description: 'The record.' })
    node!: T;
  }

  @ObjectType(`${name}Connection`, { description: `A slice of a list of ${name} records.` })
  class ConnectionType {
    @Field(() => [Edge], { description: 'The records of this slice with their cursors.' })
    edges!: Edge[];

    @Field(() => [node], { description: 'The records of this slice.' })
    nodes!: T[];

    @Field(() => PageInfo, { description: 'Where this slice stands in the list.' })
    pageInfo!: PageInfo;
  }

  @Resolver(() => ConnectionType)
  class ConnectionResolver {
    @FieldResolver(() => Int, { description: 'How many records the whole list holds.' })
    totalCount(@Root() connection: ConnectionResult<T>): Promise<number> {
      return connection.count();
    }
  }

  return { type: ConnectionType, resolver: ConnectionResolver };
}
