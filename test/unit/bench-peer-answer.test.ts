import { peerAnswerProblems } from '../../bench/lib/peers';

// The benchmark times PostGraphile only once its meeting holds the service's data: these are the
// cases that must stop the run.

const user = (id: string) => ({
  id,
  name: `User ${id}`,
  roles: 'USER',
  dob: null,
  createdAt: '2026-11-22T09:30:00.000Z',
});
const participant = (id: string, userId: string) => ({
  id,
  userId,
  status: 'ACCEPTED',
  user: user(userId),
});
const serviceMeeting = {
  id: 'm1',
  type: 'ALL_HANDS',
  appointedBy: null,
  startTime: '2026-11-30T16:00:00.000Z',
  participants: [participant('p1', 'u1'), participant('p2', 'u2')],
};
const serviceBody = JSON.stringify({ data: { meeting: serviceMeeting } });

/** A user as PostGraphile v5 (amber) answers it. */
const peerUser = (id: string) => ({
  rowId: id,
  name: `User ${id}`,
  roles: 'user',
  dob: null,
  createdAt: '2026-11-22T09:30:00.000000+00:00',
});

/** The same meeting as PostGraphile answers it. */
function peerMeeting() {
  return {
    rowId: 'm1',
    type: 'all_hands',
    appointedById: null,
    startTime: '2026-11-30T16:00:00.000000+00:00',
    participantsByMeetingId: {
      nodes: ['u1', 'u2'].map((userId, i) => ({
        rowId: `p${i + 1}`,
        userId,
        status: 'accepted',
        userByUserId: peerUser(userId),
      })),
    },
  };
}
const peerBody = (meeting: object) => JSON.stringify({ data: { meetingByRowId: meeting } });

describe("PostGraphile's meeting against the service's", () => {
  it('passes when it holds the same data under its own names and formats', () => {
    expect(peerAnswerProblems(serviceBody, peerBody(peerMeeting()))).toEqual([]);
  });

  it('fails when a participant is missing', () => {
    const meeting = peerMeeting();
    meeting.participantsByMeetingId.nodes.pop();
    expect(peerAnswerProblems(serviceBody, peerBody(meeting))).toEqual([
      "meeting.participants: 2 items in the service's answer, 1 in PostGraphile's",
    ]);
  });

  it('fails when the participants come in another order', () => {
    const meeting = peerMeeting();
    meeting.participantsByMeetingId.nodes.reverse();
    expect(peerAnswerProblems(serviceBody, peerBody(meeting))).toContain(
      'meeting.participants[0].id: "p1" from the service, "p2" from PostGraphile',
    );
  });

  it('fails when a field differs or is not asked for', () => {
    const meeting = peerMeeting();
    (meeting.participantsByMeetingId.nodes[0] as { userByUserId: object }).userByUserId = {
      ...peerUser('u1'),
      name: 'Someone Else',
    };
    const withoutStart: Partial<typeof meeting> = { ...meeting };
    delete withoutStart.startTime;
    expect(peerAnswerProblems(serviceBody, peerBody(withoutStart))).toEqual(
      expect.arrayContaining([
        "meeting.startTime: PostGraphile's answer has no startTime",
        'meeting.participants[0].user.name: "User u1" from the service, "Someone Else" from PostGraphile',
      ]),
    );
  });

  it('fails on an error answer', () => {
    expect(
      peerAnswerProblems(serviceBody, JSON.stringify({ errors: [{ message: 'boom' }] })),
    ).toEqual([expect.stringContaining('no meetingByRowId')]);
  });
});
