import { isUUID } from 'class-validator';
import type { FollowRecord, FollowStore } from '../follow';
import type { MeetingLoaders, MeetingRecord, MeetingService, ParticipantRecord } from '../meeting';
import type { ResourceLoaders, ResourceRecord } from '../resource';
import { isVisibleUser, type UserLoaders, type UserRecord } from '../user';
import { asNode } from '../../platform/graphql/node-interface';
import type { NodeKind, NodeTypeName } from './node.store';
import type { StoreSet } from '../../platform/composition/context';
import type { NodeStore } from './node.store';

/** The stores `node` works with. */
export type NodeStores = StoreSet<{ nodes: NodeStore; follows: FollowStore }>;
type Stores = NodeStores;
export type NodeLoaders = UserLoaders & MeetingLoaders & Pick<ResourceLoaders, 'resources'>;
type Loaders = NodeLoaders;

/** A record `node` can answer. */
export type NodeRecord =
  | UserRecord
  | MeetingRecord
  | ParticipantRecord
  | FollowRecord
  | ResourceRecord;

/**
 * Refetches objects by id with the visibility rules of the other reads: a user others can see
 * (or the caller), a meeting its owner, participants and admins see, a participant of such a
 * meeting, a follow of which the caller is one side, any resource. Anything else is null, as an unknown id is.
 */
export class NodeService {
  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
    private readonly meetings: MeetingService,
  ) {}

  /** The visible record of each id, in the order of the ids (null where none is). */
  async byIds(viewer: UserRecord, ids: readonly string[]): Promise<(NodeRecord | null)[]> {
    const uuids = [...new Set(ids.filter((id) => isUUID(id)).map((id) => id.toLowerCase()))];
    const kinds = uuids.length > 0 ? await this.stores.nodes.kindsOf(uuids) : new Map();
    const followIds = [...kinds].filter(([, kind]) => kind.type === 'Follow').map(([id]) => id);
    const follows = new Map(
      (followIds.length > 0 ? await this.stores.follows.byIds(followIds) : []).map((f) => [
        f.id,
        f,
      ]),
    );
    return Promise.all(
      ids.map(async (id) => {
        const key = isUUID(id) ? id.toLowerCase() : '';
        const kind = kinds.get(key) as NodeKind | undefined;
        const record = kind ? await this.visible(viewer, key, kind, follows) : null;
        return record && kind ? asNode(kind.type, record) : null;
      }),
    );
  }

  private async visible(
    viewer: UserRecord,
    id: string,
    kind: NodeKind,
    follows: ReadonlyMap<string, FollowRecord>,
  ): Promise<NodeRecord | null> {
    const byType: Record<NodeTypeName, () => Promise<NodeRecord | null>> = {
      User: async () => {
        const user = await this.loaders.users.load(id);
        return user && (user.id === viewer.id || isVisibleUser(user)) ? user : null;
      },
      Meeting: () => this.meetings.visible(viewer, id),
      Participant: async () => {
        const meeting = kind.meetingId && (await this.meetings.visible(viewer, kind.meetingId));
        const participants = meeting
          ? await this.loaders.participantsByMeeting.load(meeting.id)
          : [];
        return participants.find((participant) => participant.id === id) ?? null;
      },
      Follow: async () => {
        const follow = follows.get(id);
        return follow && (follow.followerId === viewer.id || follow.followingId === viewer.id)
          ? follow
          : null;
      },
      Resource: () => this.loaders.resources.load(id),
    };
    return byType[kind.type]();
  }
}
