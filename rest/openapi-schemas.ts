/**
 * The records of the REST facade as JSON Schema (OpenAPI 3.1 dialect), written once, exactly as
 * spec/interface.md lists them. Every field is always present (CONTRACT §1), so every field is
 * required and an empty optional is `null`; no other field may appear.
 */

/** A JSON Schema or another OpenAPI fragment; kept loose, the linter and the tests check it. */
export type JsonObject = { [keyword: string]: unknown };

const string = (extra: JsonObject = {}): JsonObject => ({ type: 'string', ...extra });
const uuid = (description: string): JsonObject => string({ format: 'uuid', description });
const dateTime = (description: string): JsonObject => string({ format: 'date-time', description });
const nullable = (schema: JsonObject): JsonObject => ({
  ...schema,
  type: [schema['type'], 'null'],
});
const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

/** An object whose properties are all required and which has no others. */
function record(description: string, properties: Record<string, JsonObject>): JsonObject {
  return {
    type: 'object',
    description,
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
  };
}

const timestamps = {
  created_at: dateTime('When the record was created (UTC).'),
  updated_at: dateTime('When the record was last changed (UTC).'),
};

const UserPublic = record('The public user record; it omits sensitive information.', {
  name: string({ minLength: 8, maxLength: 40, description: 'Display name.' }),
  email: string({ format: 'email', maxLength: 255, description: 'E-mail address (lower-case).' }),
  account: string({ maxLength: 32, description: 'Account name.' }),
  id: uuid('Unique identifier.'),
  roles: string({ enum: ['user', 'admin'], default: 'user', description: 'The role.' }),
  is_active: { type: 'boolean', default: true, description: 'Inactive users cannot sign in.' },
  is_verified: { type: 'boolean', default: true, description: 'The e-mail address is verified.' },
  is_superuser: { type: 'boolean', default: false, description: 'May see and change all.' },
  bio: nullable(string({ maxLength: 200, description: 'Short biography.' })),
  dob: nullable(string({ format: 'date', description: 'Date of birth (YYYY-MM-DD).' })),
  phone: nullable(string({ maxLength: 20, description: 'Phone number.' })),
  avatar_photo_id: nullable(uuid('Id of the avatar photo.')),
  deleted_at: nullable(string({ format: 'date', description: 'Date of deletion (YYYY-MM-DD).' })),
  ...timestamps,
});

const ParticipantPublic = record('A participant of a meeting, with the user record.', {
  meeting_id: uuid('Id of the meeting.'),
  user_id: uuid('Id of the participating user.'),
  id: uuid('Unique identifier.'),
  user: ref('UserPublic'),
  status: string({
    enum: ['new', 'accepted', 'declined'],
    default: 'new',
    description: 'The answer: new (not answered yet), accepted or declined.',
  }),
  ...timestamps,
});

const MeetingPublic = record('A meeting with its participants.', {
  title: string({ minLength: 6, maxLength: 40, description: 'Title.' }),
  owner_id: uuid('Id of the user who owns the meeting.'),
  start_time: dateTime('When the meeting starts (UTC).'),
  location: string({ minLength: 6, maxLength: 40, description: 'Where the meeting takes place.' }),
  id: uuid('Unique identifier.'),
  appointed_by: nullable(uuid('Id of the user who appointed the meeting.')),
  assigned_to: nullable(uuid('Id of the user the meeting is assigned to.')),
  type: string({
    enum: ['all-hands', 'one-on-one', 'team-meeting', 'standup', 'project-meeting'],
    default: 'all-hands',
    description: 'The kind of meeting.',
  }),
  status: string({
    enum: ['pending', 'confirmed', 'cancelled', 'completed'],
    default: 'pending',
    description: 'pending until every participant has accepted, then confirmed.',
  }),
  location_url: nullable(string({ maxLength: 100, description: 'Link to join.' })),
  ...timestamps,
  participants: {
    type: 'array',
    items: ref('ParticipantPublic'),
    description: 'The participants, ordered by created_at, then id.',
  },
});

const FollowEntry = record('A user the current user follows.', {
  id: uuid('Id of the follow relation.'),
  following_id: uuid('Id of the followed user.'),
  user: { ...ref('UserPublic'), description: 'The followed user.' },
  ...timestamps,
});

const FollowerEntry = record('A user who follows the current user.', {
  id: uuid('Id of the follow relation.'),
  follower_id: uuid('Id of the following user.'),
  following_id: uuid('Id of the followed user (the current user).'),
  user: { ...ref('UserPublic'), description: 'The following user.' },
  ...timestamps,
});

const list = (description: string, item: string, countOf: string): JsonObject =>
  record(description, {
    data: { type: 'array', items: ref(item) },
    count: { type: 'integer', minimum: 0, description: `Total number of ${countOf}.` },
  });

const ERROR_CODE = '^[A-Z][A-Z0-9_]*$';

/** Every component schema of the document. */
export const componentSchemas: Readonly<Record<string, JsonObject>> = {
  UserPublic,
  ParticipantPublic,
  MeetingPublic,
  FollowEntry,
  FollowerEntry,
  UserPage: list('A page of users.', 'UserPublic', 'matches, not the page size'),
  FollowingList: list('The users the current user follows.', 'FollowEntry', 'follows'),
  FollowersList: list('The users who follow the current user.', 'FollowerEntry', 'followers'),
  FollowStatus: record('How the current user and another user follow each other.', {
    is_following: { type: 'boolean', description: 'The current user follows the user.' },
    is_followed_by: { type: 'boolean', description: 'The user follows the current user.' },
    is_mutual: { type: 'boolean', description: 'Both follow each other.' },
  }),
  Message: record('A confirmation.', { message: string({ description: 'What happened.' }) }),
  TokenResponse: record('An OAuth 2.0 token response (RFC 6749 §5.1).', {
    access_token: string({ description: 'A signed JWT; send it as `Authorization: Bearer`.' }),
    refresh_token: string({ description: 'Trades for a new pair at POST /auth/token.' }),
    token_type: string({ enum: ['bearer'], description: 'Always `bearer`.' }),
    expires_in: { type: 'integer', minimum: 1, description: 'Seconds the access token lives.' },
  }),
  ErrorCode: record('A failure other than invalid input.', {
    errors: string({ pattern: ERROR_CODE, description: 'The code, e.g. MEETING_NOT_FOUND.' }),
  }),
  ValidationErrors: record('Invalid input: one entry per bad field.', {
    errors: {
      type: 'object',
      description:
        'Field as the client sent it (`q`, `meeting.title`, `participants.[0].user_id`) → ' +
        '`VALIDATION_<FIELD>_<REASON>`.',
      minProperties: 1,
      additionalProperties: string({ pattern: '^VALIDATION_[A-Z0-9_]+$' }),
    },
  }),
  OAuthError: record('An OAuth 2.0 error response (RFC 6749 §5.2).', {
    error: string({
      enum: [
        'invalid_request',
        'invalid_grant',
        'unsupported_grant_type',
        'slow_down',
        'server_error',
        'temporarily_unavailable',
      ],
      description: 'The error code.',
    }),
    error_description: string({ description: 'A human-readable explanation.' }),
  }),
};
