import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

/**
 * How many visible users a two- or three-character text occurs in (lower-cased, in name, account
 * or e-mail). Written only by the database's triggers on users (see migration 20261122060000);
 * searches read their totals here.
 */
@Entity({ tableName: 'user_search_grams' })
export class UserSearchGram {
  @PrimaryKey({ type: 'text' })
  gram!: string;

  @Property({ type: 'integer' })
  users!: number;
}
