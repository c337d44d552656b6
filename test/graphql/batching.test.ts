import { useTestApp } from '../helpers/use-test-app';
import type { SeededUser } from '../helpers/seed';

const NESTED_MEETING = `query ($id: UUID!) {
  meeting(meetingId: $id) {
    id title owner { id account }
    participants { id status user { id name account } meeting { id } }
  }
}`;

describe('nested meeting queries are batched', () => {
  const t = useTestApp();
  let owner: SeededUser;
  let guests: SeededUser[];

  beforeAll(async () => {
    owner = await t.seed.user();
    guests = await t.seed.users(50);
  });

  async function statementsFor(
    meetingId: string,
    token: string,
  ): Promise<{ count: number; participants: number }> {
    let participants = 0;
    const count = await t.countQueries(async () => {
      const data = await t.gql.data<{ meeting: { participants: unknown[] } }>(
        NESTED_MEETING,
        { id: meetingId },
        token,
      );
      participants = data.meeting.participants.length;
    });
    return { count, participants };
  }

  it('costs the same few SQL statements for 1 participant as for 50', async () => {
    const small = await t.seed
      .meeting(owner)
      .inviting(guests[0] as SeededUser)
      .create();
    const large = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();

    const one = await statementsFor(small.id, owner.token);
    const fifty = await statementsFor(large.id, owner.token);

    expect(one.participants).toBe(2);
    expect(fifty.participants).toBe(51);
    expect(fifty.count).toBe(one.count);
    expect(fifty.count).toBeLessThanOrEqual(4);
  });

  it('stays constant when a participant (not the owner) reads the meeting', async () => {
    const large = await t.seed
      .meeting(owner)
      .inviting(...guests)
      .create();
    const asGuest = await statementsFor(large.id, (guests[10] as SeededUser).token);
    expect(asGuest.participants).toBe(51);
    expect(asGuest.count).toBeLessThanOrEqual(4);
  });
});
