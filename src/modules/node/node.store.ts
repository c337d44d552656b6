import type { EntityManager } from '@mikro-orm/postgresql';
import { arrayLiteral, selectRows } from '../../platform/sql/rows';

/** The object types a `node` id can name (each a table below). */
export type NodeTypeName = 'User' | 'Meeting' | 'Participant' | 'Follow' | 'Resource';

/** What an id names: the type of its record, and the meeting of a participant. */
export interface NodeKind {
  type: NodeTypeName;
  meetingId: string | null;
}

/** The tables whose ids are nodes (ids are random UUIDs: unique across them). */
const TABLES: ReadonlyArray<[NodeTypeName, string, string]> = [
  ['User', 'users', 'null::uuid'],
  ['Meeting', 'meetings', 'null::uuid'],
  ['Participant', 'participants', '"meeting_id"'],
  ['Follow', 'follows', 'null::uuid'],
  ['Resource', 'resources', 'null::uuid'],
];

const KINDS = TABLES.map(
  ([type, table, meeting]) =>
    `select "id", '${type}' as "type", ${meeting} as "meeting_id" from "${table}" ` +
    `where "id" = any(?::uuid[])`,
).join(' union all ');

/** Finds which table holds an id, for refetching any object by id. */
export class NodeStore {
  constructor(private readonly em: EntityManager) {}

  /** The kind of each id that names a record, in one statement (ids must be UUIDs). */
  async kindsOf(ids: readonly string[]): Promise<Map<string, NodeKind>> {
    const list = arrayLiteral(ids);
    const rows = await selectRows(
      this.em,
      KINDS,
      TABLES.map(() => list),
    );
    return new Map(
      rows.map((row) => [
        String(row['id']),
        {
          type: row['type'] as NodeTypeName,
          meetingId: typeof row['meeting_id'] === 'string' ? row['meeting_id'] : null,
        },
      ]),
    );
  }
}
