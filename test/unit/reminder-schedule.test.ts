import { Meeting, MeetingStatus, MeetingType } from '../../src/modules/meeting/meeting.entity';
import { toReadModel } from '../../src/platform/sql/read-model';
import type { MeetingRecord } from '../../src/modules/meeting/meeting.store';
import type { OccurrenceChangeRecord } from '../../src/modules/meeting/schedule/occurrence.store';
import {
  type RemindedMeeting,
  remindersToSchedule,
  reminderKey,
  stillDue,
} from '../../src/modules/mail/reminders/reminder.schedule';

/*
 * Which reminders a meeting wants scheduled, and whether one is still due as it fires (issue 40):
 * the next occurrence of a series for each reminderMinutes value, a moved occurrence where it
 * went, a cancelled one skipped, one already sent not again, none for a closed meeting or one
 * late by more than a minute.
 */

const MEETING_ID = '11111111-1111-4111-8111-111111111111';
const NOW = new Date('2030-01-01T08:00:00.000Z');

/**
 * A meeting's record as reads answer it: an entity with its own defaults for what the test leaves
 * alone (so a new field with a default needs nothing here), as the read model gives it.
 */
function meeting(changes: Partial<MeetingRecord> = {}): MeetingRecord {
  const entity = Object.assign(new Meeting(), {
    id: MEETING_ID,
    createdAt: new Date('2029-12-01T00:00:00.000Z'),
    updatedAt: new Date('2029-12-01T00:00:00.000Z'),
    title: 'Daily standup',
    startTime: new Date('2030-01-01T09:00:00.000Z'),
    location: 'Room 101',
    type: MeetingType.STANDUP,
    status: MeetingStatus.CONFIRMED,
    ownerId: '22222222-2222-4222-8222-222222222222',
    durationMinutes: 15,
    timeZone: 'UTC',
    recurrence: 'FREQ=DAILY;COUNT=5',
    recurrenceEndsAt: new Date('2030-01-05T09:15:00.000Z'),
  });
  return { ...toReadModel(entity), ...changes };
}

const edit = (
  original: string,
  change: Partial<OccurrenceChangeRecord>,
): OccurrenceChangeRecord => ({
  id: '33333333-3333-4333-8333-333333333333',
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
  meetingId: MEETING_ID,
  originalStartTime: original,
  startTime: null,
  cancelled: false,
  ...change,
});

const plan = (remind: RemindedMeeting, sent: string[] = [], now = NOW) =>
  remindersToSchedule(remind, new Set(sent), now).map(({ occurrenceStart, minutes, runAt }) => ({
    occurrenceStart,
    minutes,
    runAt: runAt.toISOString(),
  }));

describe('reminders to schedule', () => {
  it('schedules each minutes value before the next occurrence of a series', () => {
    expect(plan({ meeting: meeting({ reminderMinutes: [10, 120] }), edits: [] })).toEqual([
      {
        occurrenceStart: '2030-01-01T09:00:00.000Z',
        minutes: 10,
        runAt: '2030-01-01T08:50:00.000Z',
      },
      // Two hours before the first is past: the next day's.
      {
        occurrenceStart: '2030-01-02T09:00:00.000Z',
        minutes: 120,
        runAt: '2030-01-02T07:00:00.000Z',
      },
    ]);
  });

  it('moves on to the next occurrence once a reminder was sent', () => {
    const sent = reminderKey({
      meetingId: MEETING_ID,
      occurrenceStart: '2030-01-01T09:00:00.000Z',
      minutes: 10,
    });
    expect(plan({ meeting: meeting(), edits: [] }, [sent])).toEqual([
      {
        occurrenceStart: '2030-01-02T09:00:00.000Z',
        minutes: 10,
        runAt: '2030-01-02T08:50:00.000Z',
      },
    ]);
  });

  it('skips a cancelled occurrence and follows a moved one', () => {
    const edits = [
      edit('2030-01-01T09:00:00.000Z', { cancelled: true }),
      edit('2030-01-02T09:00:00.000Z', { startTime: '2030-01-02T13:00:00.000Z' }),
    ];
    expect(plan({ meeting: meeting(), edits })).toEqual([
      {
        occurrenceStart: '2030-01-02T13:00:00.000Z',
        minutes: 10,
        runAt: '2030-01-02T12:50:00.000Z',
      },
    ]);
  });

  it('schedules none for a cancelled or completed meeting, or one without reminders', () => {
    for (const status of [MeetingStatus.CANCELLED, MeetingStatus.COMPLETED]) {
      expect(plan({ meeting: meeting({ status }), edits: [] })).toEqual([]);
    }
    expect(plan({ meeting: meeting({ reminderMinutes: [] }), edits: [] })).toEqual([]);
  });

  it('sends one just missed at once, and none late by more than a minute', () => {
    const single = meeting({ recurrence: null, recurrenceEndsAt: null });
    const justMissed = new Date('2030-01-01T08:50:30.000Z');
    expect(plan({ meeting: single, edits: [] }, [], justMissed)).toEqual([
      { occurrenceStart: '2030-01-01T09:00:00.000Z', minutes: 10, runAt: justMissed.toISOString() },
    ]);
    expect(plan({ meeting: single, edits: [] }, [], new Date('2030-01-01T08:52:00.000Z'))).toEqual(
      [],
    );
  });
});

describe('a reminder as it fires', () => {
  const reminder = {
    meetingId: MEETING_ID,
    occurrenceStart: '2030-01-01T09:00:00.000Z',
    minutes: 10,
  };
  const at = new Date('2030-01-01T08:50:01.000Z');

  it('is due while the meeting, the minutes and the occurrence stand', () => {
    expect(stillDue({ meeting: meeting(), edits: [] }, reminder, at)).toBe(true);
  });

  it('is not due once the meeting is cancelled, the minutes changed, the occurrence moved or cancelled, or it is past', () => {
    expect(
      stillDue({ meeting: meeting({ status: MeetingStatus.CANCELLED }), edits: [] }, reminder, at),
    ).toBe(false);
    expect(stillDue({ meeting: meeting({ reminderMinutes: [5] }), edits: [] }, reminder, at)).toBe(
      false,
    );
    const moved = [edit(reminder.occurrenceStart, { startTime: '2030-01-01T10:00:00.000Z' })];
    expect(stillDue({ meeting: meeting(), edits: moved }, reminder, at)).toBe(false);
    const cancelled = [edit(reminder.occurrenceStart, { cancelled: true })];
    expect(stillDue({ meeting: meeting(), edits: cancelled }, reminder, at)).toBe(false);
    expect(
      stillDue({ meeting: meeting(), edits: [] }, reminder, new Date('2030-01-01T09:01:30.000Z')),
    ).toBe(false);
  });
});
