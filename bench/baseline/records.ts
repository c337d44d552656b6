/**
 * Rows → the service's JSON records, key for key in the order the service writes them: REST
 * records (snake_case, enum values as stored) and GraphQL records (camelCase, enum names).
 * Timestamps arrive as ISO strings (see `timestamptz` in db.ts), dates as 'YYYY-MM-DD'.
 */

/** The user columns every record needs, under a prefix (`u_`) when joined. */
export const USER_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'name',
  'email',
  'account',
  'roles',
  'is_active',
  'is_verified',
  'is_superuser',
  'bio',
  'dob',
  'phone',
  'avatar_photo_id',
  'deleted_at',
] as const;

export const MEETING_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'title',
  'owner_id',
  'start_time',
  'location',
  'appointed_by_id',
  'assigned_to_id',
  'type',
  'status',
  'location_url',
] as const;

export const PARTICIPANT_COLUMNS = [
  'id',
  'created_at',
  'updated_at',
  'meeting_id',
  'user_id',
  'status',
] as const;

/** `alias.column as prefix_column, ...` for a select list. */
export function selectList(alias: string, columns: readonly string[], prefix = ''): string {
  return columns.map((c) => `${alias}."${c}" as "${prefix}${c}"`).join(', ');
}

export interface UserRow {
  id: string;
  created_at: string;
  updated_at: string;
  name: string;
  email: string;
  account: string;
  roles: string;
  is_active: boolean;
  is_verified: boolean;
  is_superuser: boolean;
  bio: string | null;
  dob: string | null;
  phone: string | null;
  avatar_photo_id: string | null;
  deleted_at: string | null;
}

export interface MeetingRow {
  id: string;
  created_at: string;
  updated_at: string;
  title: string;
  owner_id: string;
  start_time: string;
  location: string;
  appointed_by_id: string | null;
  assigned_to_id: string | null;
  type: string;
  status: string;
  location_url: string | null;
}

export interface ParticipantRow {
  id: string;
  created_at: string;
  updated_at: string;
  meeting_id: string;
  user_id: string;
  status: string;
}

/** A joined row: `p_*` participant columns and `u_*` user columns, possibly null (left join). */
export type Prefixed<P extends string, T> = { [K in keyof T as `${P}${K & string}`]: T[K] | null };

const enumNames = new Map<string, string>();
/** `all-hands` → `ALL_HANDS`: GraphQL enum names of the stored values. */
export function enumName(value: string): string {
  let name = enumNames.get(value);
  if (name === undefined) {
    name = value.toUpperCase().replace(/-/g, '_');
    enumNames.set(value, name);
  }
  return name;
}

/** `u_name` etc. of a joined row as a plain user row. */
export function userOf(row: Prefixed<'u_', UserRow>): UserRow {
  return {
    id: row.u_id as string,
    created_at: row.u_created_at as string,
    updated_at: row.u_updated_at as string,
    name: row.u_name as string,
    email: row.u_email as string,
    account: row.u_account as string,
    roles: row.u_roles as string,
    is_active: row.u_is_active as boolean,
    is_verified: row.u_is_verified as boolean,
    is_superuser: row.u_is_superuser as boolean,
    bio: row.u_bio,
    dob: row.u_dob,
    phone: row.u_phone,
    avatar_photo_id: row.u_avatar_photo_id,
    deleted_at: row.u_deleted_at,
  };
}

export function participantOf(row: Prefixed<'p_', ParticipantRow>): ParticipantRow {
  return {
    id: row.p_id as string,
    created_at: row.p_created_at as string,
    updated_at: row.p_updated_at as string,
    meeting_id: row.p_meeting_id as string,
    user_id: row.p_user_id as string,
    status: row.p_status as string,
  };
}

// ---- REST (wire) records -------------------------------------------------------------------

export function restUser(u: UserRow): object {
  return {
    name: u.name,
    email: u.email,
    account: u.account,
    id: u.id,
    roles: u.roles,
    is_active: u.is_active,
    is_verified: u.is_verified,
    is_superuser: u.is_superuser,
    bio: u.bio,
    dob: u.dob,
    phone: u.phone,
    avatar_photo_id: u.avatar_photo_id,
    deleted_at: u.deleted_at,
    created_at: u.created_at,
    updated_at: u.updated_at,
  };
}

export function restParticipant(p: ParticipantRow, user: object): object {
  return {
    meeting_id: p.meeting_id,
    user_id: p.user_id,
    id: p.id,
    user,
    status: p.status,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

export function restMeeting(m: MeetingRow, participants: object[]): object {
  return {
    title: m.title,
    owner_id: m.owner_id,
    start_time: m.start_time,
    location: m.location,
    id: m.id,
    appointed_by: m.appointed_by_id,
    assigned_to: m.assigned_to_id,
    type: m.type,
    status: m.status,
    location_url: m.location_url,
    created_at: m.created_at,
    updated_at: m.updated_at,
    participants,
  };
}

// ---- GraphQL records -----------------------------------------------------------------------

export function gqlUser(u: UserRow): object {
  return {
    name: u.name,
    email: u.email,
    account: u.account,
    id: u.id,
    roles: enumName(u.roles),
    isActive: u.is_active,
    isVerified: u.is_verified,
    isSuperuser: u.is_superuser,
    bio: u.bio,
    dob: u.dob,
    phone: u.phone,
    avatarPhotoId: u.avatar_photo_id,
    deletedAt: u.deleted_at,
    createdAt: u.created_at,
    updatedAt: u.updated_at,
  };
}

export function gqlParticipant(p: ParticipantRow, user: object): object {
  return {
    meetingId: p.meeting_id,
    userId: p.user_id,
    id: p.id,
    user,
    status: enumName(p.status),
    createdAt: p.created_at,
    updatedAt: p.updated_at,
  };
}

export function gqlMeeting(m: MeetingRow, participants: object[]): object {
  return {
    title: m.title,
    ownerId: m.owner_id,
    startTime: m.start_time,
    location: m.location,
    id: m.id,
    appointedBy: m.appointed_by_id,
    assignedTo: m.assigned_to_id,
    type: enumName(m.type),
    status: enumName(m.status),
    locationUrl: m.location_url,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    participants,
  };
}
