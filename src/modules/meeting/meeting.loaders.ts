import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { placeholders, selectRows } from '../../db/records';
import { type MeetingRecord, meetingRecords } from './meeting.record';

const meetings = meetingRecords();
const SELECT_MEETINGS = `select ${meetings.select('m')} from "meetings" m where m."id" in `;

/** Meetings by id, one query per batch. */
export function createMeetingByIdLoader(
  em: EntityManager,
): DataLoader<string, MeetingRecord | null> {
  return new DataLoader(async (ids) => {
    const rows = await selectRows(em, `${SELECT_MEETINGS}(${placeholders(ids.length)})`, ids);
    const byId = new Map<string, MeetingRecord>();
    for (const row of rows) {
      const meeting = meetings.read(row);
      if (meeting) {
        byId.set(meeting.id, meeting);
      }
    }
    return ids.map((id) => byId.get(id) ?? null);
  });
}
