import type { EntityManager } from '@mikro-orm/postgresql';
import DataLoader from 'dataloader';
import { Meeting } from './meeting.entity';

/** Meetings by id, one query per batch. */
export function createMeetingByIdLoader(em: EntityManager): DataLoader<string, Meeting | null> {
  return new DataLoader(async (ids) => {
    const meetings = await em.find(Meeting, { id: { $in: [...ids] } });
    const byId = new Map(meetings.map((meeting) => [meeting.id, meeting]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}
