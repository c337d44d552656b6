import type { EntityManager } from '@mikro-orm/postgresql';
import { byIds, executeRows, readAll, selectByIds } from '../../../platform/sql/rows';
import { insertOf, type ReadModel, readerOf, toReadModel } from '../../../platform/sql/read-model';
import { KnownLoader } from '../../../platform/shared/known-loader';
import { OccurrenceChange } from './occurrence.entity';

/** A change of one occurrence, as reads answer it. */
export type OccurrenceChangeRecord = ReadModel<OccurrenceChange>;

const changes = readerOf(OccurrenceChange);
const OF_MEETINGS = byIds(
  `select ${changes.select('c')} from "meeting_occurrence_changes" c ` +
    `where c."meeting_id" {match} order by c."original_start_time"`,
);

/** Every read and write of occurrence changes. */
export class OccurrenceStore {
  constructor(private readonly em: EntityManager) {}

  /** The changed occurrences of each meeting, in one statement. */
  async ofMeetings(meetingIds: readonly string[]): Promise<Map<string, OccurrenceChangeRecord[]>> {
    const byMeeting = new Map<string, OccurrenceChangeRecord[]>(meetingIds.map((id) => [id, []]));
    for (const change of readAll(changes, await selectByIds(this.em, OF_MEETINGS, meetingIds))) {
      byMeeting.get(change.meetingId)?.push(change);
    }
    return byMeeting;
  }

  /** Records how one occurrence now stands (replacing an earlier change of it). */
  async put(
    change: Pick<OccurrenceChange, 'meetingId' | 'originalStartTime' | 'startTime' | 'cancelled'>,
  ): Promise<OccurrenceChangeRecord> {
    const record = toReadModel(Object.assign(new OccurrenceChange(), change));
    const { sql, params } = insertOf(OccurrenceChange, record);
    const [row] = await executeRows(
      this.em,
      `${sql} on conflict ("meeting_id", "original_start_time") do update set ` +
        `"start_time" = excluded."start_time", "cancelled" = excluded."cancelled", ` +
        `"updated_at" = excluded."updated_at" ` +
        `returning ${changes.select(`"meeting_occurrence_changes"`)}`,
      params,
    );
    return row ? (changes.read(row) ?? record) : record;
  }

  /** Drops a meeting's changed occurrences (its series was rescheduled). */
  async clear(meetingId: string): Promise<void> {
    await executeRows(this.em, `delete from "meeting_occurrence_changes" where "meeting_id" = ?`, [
      meetingId,
    ]);
  }
}

/** A request's loader of meetings' changed occurrences. */
export function occurrenceLoaders(stores: { readonly occurrences: OccurrenceStore }) {
  return {
    occurrenceChanges: new KnownLoader<string, OccurrenceChangeRecord[]>(async (ids) => {
      const found = await stores.occurrences.ofMeetings(ids);
      return ids.map((id) => found.get(id) ?? []);
    }),
  };
}

/** A request's loaders of series' changed occurrences (occurrenceLoaders). */
export type OccurrenceLoaders = ReturnType<typeof occurrenceLoaders>;
