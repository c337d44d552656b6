import { declineReasonOf } from '../../src/modules/availability/away-declines';
import { BusyKind, flattenKinds, type KindSpan } from '../../src/modules/availability/busy-time';

const at = (hour: number) => new Date(Date.UTC(2027, 1, 1, hour));
const span = (start: number, end: number, kind: BusyKind): KindSpan => ({
  start: at(start),
  end: at(end),
  kind,
});

describe('busy ranges of several kinds', () => {
  it('merge within a kind and show the weightiest kind where kinds overlap', () => {
    expect(
      flattenKinds([
        span(9, 10, BusyKind.TENTATIVE),
        span(8, 12, BusyKind.FOCUS),
        span(10, 11, BusyKind.BUSY),
        span(11, 13, BusyKind.BUSY),
        span(12, 14, BusyKind.OUT_OF_OFFICE),
        span(16, 17, BusyKind.TENTATIVE),
        span(17, 18, BusyKind.TENTATIVE),
      ]),
    ).toEqual([
      span(8, 10, BusyKind.FOCUS),
      span(10, 12, BusyKind.BUSY),
      span(12, 14, BusyKind.OUT_OF_OFFICE),
      span(16, 18, BusyKind.TENTATIVE),
    ]);
  });

  it('leave out empty spans and answer nothing for nothing', () => {
    expect(flattenKinds([span(9, 9, BusyKind.BUSY)])).toEqual([]);
    expect(flattenKinds([])).toEqual([]);
  });
});

describe('the reason an invitation is declined for someone away', () => {
  const periods = [
    { start: at(0), end: at(24), title: 'Holiday' },
    { start: new Date(Date.UTC(2027, 1, 2)), end: new Date(Date.UTC(2027, 1, 3)), title: 'Trip' },
  ];
  const meeting = (
    startTime: string,
    recurrence: string | null,
    recurrenceEndsAt: string | null,
  ) => ({
    meetingId: 'm',
    userId: 'u',
    meeting: {
      startTime,
      durationMinutes: 60,
      timeZone: 'UTC',
      recurrence,
      recurrenceEndsAt,
      edits: [] as Array<{
        originalStartTime: string;
        startTime: string | null;
        cancelled: boolean;
      }>,
    },
    periods,
  });

  it("is the period's title for a meeting that overlaps it, and none for one outside", () => {
    expect(declineReasonOf(meeting('2027-02-01T23:30:00.000Z', null, null))).toBe('Holiday');
    expect(declineReasonOf(meeting('2027-02-03T09:00:00.000Z', null, null))).toBeNull();
  });

  it('covers a series only when every occurrence is in some period, and never an endless one', () => {
    const twoDays = meeting(
      '2027-02-01T09:00:00.000Z',
      'FREQ=DAILY;COUNT=2',
      '2027-02-02T10:00:00.000Z',
    );
    expect(declineReasonOf(twoDays)).toBe('Holiday');
    const threeDays = meeting(
      '2027-02-01T09:00:00.000Z',
      'FREQ=DAILY;COUNT=3',
      '2027-02-03T10:00:00.000Z',
    );
    expect(declineReasonOf(threeDays)).toBeNull();
    // Its third occurrence cancelled, the rest lie within the periods.
    threeDays.meeting.edits.push({
      originalStartTime: '2027-02-03T09:00:00.000Z',
      startTime: null,
      cancelled: true,
    });
    expect(declineReasonOf(threeDays)).toBe('Holiday');
    expect(declineReasonOf(meeting('2027-02-01T09:00:00.000Z', 'FREQ=DAILY', null))).toBeNull();
  });
});
