import { listOf, ref, type RouteResponse, type RouteSpec } from './route';

const record = (name: string, status = 200, description = 'OK'): RouteResponse => ({
  status,
  description,
  schema: ref(name),
});

const records = (name: string): RouteResponse => ({
  status: 200,
  description: 'OK',
  schema: listOf(name),
});

const message = (text: string): RouteResponse => ({
  status: 200,
  description: text,
  schema: ref('Message'),
  message: text,
});

/** Every REST endpoint, declared once: the router and the OpenAPI document are built from it. */
export const routes: readonly RouteSpec[] = [
  {
    method: 'post',
    path: '/auth/register',
    operation: 'Register',
    summary: 'Register a user',
    tag: 'auth',
    public: true,
    body: 'form',
    response: record('UserPublic', 201, 'The registered user'),
  },
  {
    method: 'post',
    path: '/auth/login',
    operation: 'Login',
    summary: 'Sign in with email and password',
    tag: 'auth',
    public: true,
    body: 'form',
    renames: { username: 'email' },
    response: record('TokenResponse'),
  },
  {
    method: 'post',
    path: '/auth/token',
    operation: ({ body }) => {
      const grant = body['grant_type'];
      if (grant === 'password') {
        return 'Login';
      }
      if (
        grant === 'refresh_token' ||
        (grant === undefined && body['refresh_token'] !== undefined)
      ) {
        return 'RefreshToken';
      }
      return null;
    },
    summary: 'OAuth 2.0 token endpoint (password and refresh_token grants)',
    tag: 'auth',
    public: true,
    body: 'form',
    errorStyle: 'oauth',
    response: record('TokenResponse'),
  },
  {
    method: 'get',
    path: '/user/me',
    operation: 'Me',
    summary: 'The current user',
    tag: 'user',
    body: 'none',
    response: record('UserPublic'),
  },
  {
    method: 'get',
    path: '/user/search',
    operation: 'SearchUsers',
    summary: 'Search users by name, account or email',
    tag: 'user',
    body: 'none',
    response: record('UserPage'),
  },
  {
    method: 'get',
    path: '/user/:account',
    operation: 'UserByAccount',
    summary: 'A user by account name',
    tag: 'user',
    body: 'none',
    response: record('UserPublic'),
  },
  ...(['/follow/following', '/follow/me/following'] as const).map(
    (path): RouteSpec => ({
      method: 'get',
      path,
      operation: 'Following',
      summary: 'The users the current user follows',
      tag: 'follow',
      body: 'none',
      response: record('FollowingList'),
    }),
  ),
  ...(['/follow/followers', '/follow/me/followers'] as const).map(
    (path): RouteSpec => ({
      method: 'get',
      path,
      operation: 'Followers',
      summary: 'The users who follow the current user',
      tag: 'follow',
      body: 'none',
      response: record('FollowersList'),
    }),
  ),
  {
    method: 'get',
    path: '/follow/status/:user_id',
    operation: 'FollowStatus',
    summary: 'Whether the current user and another follow each other',
    tag: 'follow',
    body: 'none',
    response: record('FollowStatus'),
  },
  ...(['/follow/follow/:user_id', '/follow/:user_id/add'] as const).map(
    (path): RouteSpec => ({
      method: 'post',
      path,
      operation: 'Follow',
      summary: 'Follow a user',
      tag: 'follow',
      body: 'none',
      response: message('User followed successfully'),
    }),
  ),
  ...(['/follow/unfollow/:user_id', '/follow/:user_id/remove'] as const).map(
    (path): RouteSpec => ({
      method: 'post',
      path,
      operation: 'Unfollow',
      summary: 'Stop following a user',
      tag: 'follow',
      body: 'none',
      response: message('User unfollowed successfully'),
    }),
  ),
  {
    method: 'post',
    path: '/meeting/create',
    operation: 'CreateMeeting',
    summary: 'Create a meeting and invite participants',
    tag: 'meeting',
    body: 'json',
    response: record('MeetingPublic', 201, 'The created meeting'),
  },
  {
    method: 'get',
    path: '/meeting/index',
    operation: 'MyMeetings',
    summary: 'Meetings the current user owns or has accepted',
    tag: 'meeting',
    body: 'none',
    response: records('MeetingPublic'),
  },
  {
    method: 'get',
    path: '/meeting/requests',
    operation: 'MeetingRequests',
    summary: "The current user's unanswered invitations",
    tag: 'meeting',
    body: 'none',
    response: records('ParticipantPublic'),
  },
  {
    method: 'get',
    path: '/meeting/:meeting_id',
    operation: 'Meeting',
    summary: 'Get a meeting',
    tag: 'meeting',
    body: 'none',
    response: record('MeetingPublic'),
  },
  {
    method: 'post',
    path: '/meeting/:meeting_id/participants/add',
    operation: 'AddParticipant',
    summary: 'Add a participant to a meeting',
    tag: 'meeting',
    body: 'json',
    response: record('ParticipantPublic'),
  },
  {
    method: 'post',
    path: '/meeting/:meeting_id/approve',
    operation: 'ApproveMeeting',
    summary: 'Approve a meeting',
    tag: 'meeting',
    body: 'none',
    response: message('Meeting approved successfully'),
  },
  {
    method: 'post',
    path: '/meeting/:meeting_id/decline',
    operation: 'DeclineMeeting',
    summary: 'Decline a meeting',
    tag: 'meeting',
    body: 'none',
    response: message('Meeting declined successfully'),
  },
];
