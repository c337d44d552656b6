import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';

export const MAX_PAGE_SIZE = 100;

/** A page request: rows to skip, then at most `limit` rows (null: all of them). */
export interface Page {
  skip: number;
  limit: number | null;
}

/** ` limit ? offset ?` (or ` offset ?` for all rows), to append to a query. */
export const pageClause = (page: Page): string =>
  page.limit === null ? ' offset ?' : ' limit ? offset ?';

/** The values of pageClause's placeholders. */
export const pageParams = (page: Page): number[] =>
  page.limit === null ? [page.skip] : [page.limit, page.skip];

/** Arguments `skip` and `limit` with the given default limit (null: no cap unless asked). */
export function PageArgs(defaultLimit: number | null): ClassType<Page> {
  @ArgsType()
  class PageArgsClass implements Page {
    @Field(() => Int, { defaultValue: 0, description: 'How many records to skip (≥ 0).' })
    @IsInt()
    @Min(0)
    skip: number = 0;

    @Field(() => Int, {
      nullable: defaultLimit === null,
      defaultValue: defaultLimit ?? undefined,
      description: `How many records to return, 1 to ${MAX_PAGE_SIZE}${
        defaultLimit === null ? ' (all when omitted)' : ''
      }.`,
    })
    @IsOptional()
    @IsInt()
    @Min(1)
    @Max(MAX_PAGE_SIZE)
    limit: number | null = defaultLimit;
  }
  return PageArgsClass;
}

/** A page of records with the total number of matches. */
export function Paginated<T extends object>(
  itemType: ClassType<T>,
  name: string,
): ClassType<{ data: T[]; count: number }> {
  @ObjectType(name, {
    simpleResolvers: true,
    description: `A page of ${itemType.name} records with the total count.`,
  })
  class PaginatedClass {
    @Field(() => [itemType], { description: 'The records of this page.' })
    data!: T[];

    @Field(() => Int, { description: 'Total number of matching records, not the page size.' })
    count!: number;
  }
  return PaginatedClass;
}
