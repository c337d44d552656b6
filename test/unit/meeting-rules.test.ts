import { MeetingStatus } from '../../src/modules/meeting/meeting.entity';
import { seenBy, seesMeeting, statusAfterAnswers } from '../../src/modules/meeting/meeting.rules';
import { ParticipantStatus } from '../../src/modules/meeting/participants/participant.entity';
import { Role } from '../../src/modules/user/user.role';

const { NEW, ACCEPTED, DECLINED } = ParticipantStatus;
const owner = { userId: 'owner', status: ACCEPTED };

describe('a meeting status after answers', () => {
  it('stays pending while anyone has not accepted', () => {
    expect(
      statusAfterAnswers(MeetingStatus.PENDING, 'owner', [owner, { userId: 'a', status: NEW }]),
    ).toBe(MeetingStatus.PENDING);
  });

  it('becomes confirmed when everyone accepted', () => {
    expect(
      statusAfterAnswers(MeetingStatus.PENDING, 'owner', [
        owner,
        { userId: 'a', status: ACCEPTED },
      ]),
    ).toBe(MeetingStatus.CONFIRMED);
  });

  it('becomes cancelled when every guest declined', () => {
    expect(
      statusAfterAnswers(MeetingStatus.CONFIRMED, 'owner', [
        owner,
        { userId: 'a', status: DECLINED },
        { userId: 'b', status: DECLINED },
      ]),
    ).toBe(MeetingStatus.CANCELLED);
  });

  it('goes back to pending when a guest of a confirmed meeting declines but others remain', () => {
    expect(
      statusAfterAnswers(MeetingStatus.CONFIRMED, 'owner', [
        owner,
        { userId: 'a', status: DECLINED },
        { userId: 'b', status: ACCEPTED },
      ]),
    ).toBe(MeetingStatus.PENDING);
  });

  it('never reopens a cancelled or completed meeting', () => {
    for (const closed of [MeetingStatus.CANCELLED, MeetingStatus.COMPLETED]) {
      expect(statusAfterAnswers(closed, 'owner', [owner, { userId: 'a', status: ACCEPTED }])).toBe(
        closed,
      );
    }
  });
});

describe('who may see a meeting', () => {
  it('is the same answer as a list (seenBy, admins aside) and as a check (seesMeeting)', () => {
    const meeting = { ownerId: 'owner' };
    const participants = [{ userId: 'a' }, { userId: 'b' }];
    const member = { roles: Role.USER, isSuperuser: false };
    const admin = { roles: Role.ADMIN, isSuperuser: false };
    for (const id of ['owner', 'a', 'b', 'outsider']) {
      expect(seesMeeting({ ...member, id }, meeting, participants)).toBe(
        seenBy(meeting, participants).includes(id),
      );
      expect(seesMeeting({ ...admin, id }, meeting, participants)).toBe(true);
    }
    expect(seenBy(meeting, [])).toEqual(['owner']);
  });
});
