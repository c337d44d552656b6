import { createHash, randomBytes } from 'node:crypto';
import { NotFoundError } from '../../platform/shared/errors';
import { DAY_MS } from '../../platform/shared/time-zone';
import type {
  MeetingLoaders,
  MeetingRecord,
  MeetingService,
  OccurrenceChangeRecord,
  OccurrenceLoaders,
  ParticipantRecord,
} from '../meeting';
import type { UserLoaders, UserRecord } from '../user';
import type { ResourceLoaders, ResourceRecord } from '../resource';
import { feedUrl } from './calendar.links';
import type { CalendarFeedView } from './calendar.types';
import { type CalendarEntry, icsDocument, type IcsDocument, renderingOf, weakTag } from './ics';
import type { StoreSet } from '../../platform/composition/context';
import type { CalendarStore } from './calendar.store';

/** The stores calendar feeds work with. */
export type CalendarStores = StoreSet<{ calendar: CalendarStore }>;
type Stores = CalendarStores;
export type CalendarLoaders = UserLoaders &
  MeetingLoaders &
  OccurrenceLoaders &
  Pick<ResourceLoaders, 'resourcesByMeeting'>;
type Loaders = CalendarLoaders;

/**
 * What a feed holds: the meetings of the last `pastDays` days and every later one (a series while
 * it has not ended that long ago), at most `meetings` of them (the latest starts).
 */
export const FEED_LIMITS = { pastDays: 90, meetings: 1000 } as const;

/**
 * A feed's secret: 256 random bits, hexadecimal, behind a prefix that says what it is (as
 * `whsec_` does for webhook secrets), so that log scrubbing and secret scanners recognise it
 * (src/platform/observability/log-safety.ts masks `<prefix>_<64 hex digits>`).
 */
const SECRET_PREFIX = 'cal_';
const SECRET = /^cal_[0-9a-f]{64}$/;

const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString('hex')}`;

/** How a secret is stored: SHA-256 is enough for 256 random bits (nothing to guess). */
const hashOf = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/** A feed that does not exist (an unknown or replaced secret): as any unknown address. */
const feedNotFound = () => new NotFoundError('NOT_FOUND', 'No such calendar feed');

/** A document whose ETag is known before it is built (by `document`, when it is needed). */
export interface PendingDocument {
  etag: string;
  document: () => Promise<IcsDocument>;
}

/** Values of a DataLoader's loadMany, or its first error. */
function loaded<V>(values: ReadonlyArray<V | Error>): V[] {
  const failed = values.find((value): value is Error => value instanceof Error);
  if (failed) {
    throw failed;
  }
  return values as V[];
}

/** Calendar feeds and iCalendar documents of meetings. */
export class CalendarService {
  constructor(
    private readonly stores: Stores,
    private readonly loaders: Loaders,
    private readonly meetings: MeetingService,
    /** The base of the addresses handed out (PUBLIC_URL). */
    private readonly publicUrl: string,
  ) {}

  /** The viewer's feed, or null; its address is not shown again (only its hash is kept). */
  async feed(viewer: UserRecord): Promise<CalendarFeedView | null> {
    const feed = await this.stores.calendar.feedOf(viewer.id);
    return feed ? { url: null, createdAt: feed.createdAt } : null;
  }

  /** A new feed for the viewer, with its address (shown this once); the old one stops working. */
  async createFeed(viewer: UserRecord): Promise<CalendarFeedView> {
    const secret = newSecret();
    const feed = await this.stores.calendar.replaceFeed(viewer.id, hashOf(secret));
    return { url: feedUrl(this.publicUrl, secret), createdAt: feed.createdAt };
  }

  /** Ends the viewer's feed; whether there was one. */
  revokeFeed(viewer: UserRecord): Promise<boolean> {
    return this.stores.calendar.removeFeed(viewer.id);
  }

  /**
   * The feed a secret names: its ETag, and its document, built only when asked for (a client
   * that holds the ETag's document is answered without it). The document holds the meetings its
   * user owns or was invited to, not older than FEED_LIMITS.pastDays. An unknown secret is
   * NOT_FOUND, like any unknown address.
   */
  async feedDocument(secret: string, now = new Date()): Promise<PendingDocument> {
    const since = new Date(now.getTime() - FEED_LIMITS.pastDays * DAY_MS);
    // A malformed secret names no feed: no statement is sent for it.
    const found = SECRET.test(secret)
      ? await this.stores.calendar.feedBySecretHash(hashOf(secret), since, FEED_LIMITS.meetings)
      : null;
    if (!found) {
      throw feedNotFound();
    }
    const { feed } = found;
    // Read before the document's data, so an ETag never names a newer state than its document.
    const etag = weakTag(found.fingerprint, renderingOf(now));
    return {
      etag,
      document: async () => {
        const latestFirst = await this.stores.calendar.meetingsOf(
          feed.userId,
          since,
          FEED_LIMITS.meetings,
        );
        const entries = await this.entries(
          latestFirst.meetings.reverse(),
          latestFirst.bookingRooms,
        );
        const user = await this.loaders.users.load(feed.userId);
        return icsDocument(entries, {
          name: user ? `Meetings of ${user.name}` : 'Meetings',
          since: new Date(feed.createdAt),
          now,
          etag,
        });
      },
    };
  }

  /** The document of one meeting the viewer may see (else MEETING_NOT_FOUND). */
  async meetingDocument(
    viewer: UserRecord,
    meetingId: string,
    now = new Date(),
  ): Promise<IcsDocument> {
    const entry = await this.meetingEntry(viewer, meetingId);
    const { meeting } = entry;
    return icsDocument([entry], { name: meeting.title, since: new Date(meeting.updatedAt), now });
  }

  /** The calendar entry of one meeting the viewer may see (else MEETING_NOT_FOUND). */
  async meetingEntry(viewer: UserRecord, meetingId: string): Promise<CalendarEntry> {
    const meeting = await this.meetings.get(viewer, meetingId);
    const [entry] = await this.entries([meeting]);
    return entry as CalendarEntry;
  }

  /**
   * The calendar entries of meetings: their participants with their users (one statement,
   * unless the loaders hold them already), a series' changed occurrences and the resources they
   * book (one more each; the rooms only of those in `bookingRooms`, when it is known).
   */
  private async entries(
    meetings: readonly MeetingRecord[],
    bookingRooms?: ReadonlySet<string>,
  ): Promise<CalendarEntry[]> {
    const series = meetings.filter((meeting) => meeting.recurrence !== null).map((m) => m.id);
    const ids = meetings.map((meeting) => meeting.id);
    const withRooms = bookingRooms ? ids.filter((id) => bookingRooms.has(id)) : ids;
    const [participants, edits, resources] = await Promise.all([
      this.loaders.participantsByMeeting.loadMany(ids),
      this.loaders.occurrenceChanges.loadMany(series),
      this.loaders.resourcesByMeeting.loadMany(withRooms),
    ]);
    const roomsOf = new Map<string, ResourceRecord[]>();
    loaded(resources).forEach((list, index) => roomsOf.set(withRooms[index] as string, list));
    const editsOf = new Map<string, OccurrenceChangeRecord[]>();
    loaded(edits).forEach((list, index) => editsOf.set(series[index] as string, list));
    const lists = loaded(participants);
    // Read along with the participants (the owner is one of them): answered without a statement.
    const userIds = new Set([
      ...meetings.map((meeting) => meeting.ownerId),
      ...lists.flat().map((participant) => participant.userId),
    ]);
    const users = new Map(
      loaded(await this.loaders.users.loadMany([...userIds]))
        .filter((user): user is UserRecord => user !== null)
        .map((user) => [user.id, user]),
    );
    return meetings.map((meeting, index) => ({
      meeting,
      owner: users.get(meeting.ownerId) ?? null,
      attendees: (lists[index] ?? []).flatMap((participant: ParticipantRecord) => {
        const user = users.get(participant.userId);
        return user ? [{ participant, user }] : [];
      }),
      edits: editsOf.get(meeting.id) ?? [],
      resources: roomsOf.get(meeting.id) ?? [],
    }));
  }
}
