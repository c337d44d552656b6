import type { RouteSpec } from './route';
import { validationExample } from './openapi-examples';
import type { ClientInput } from './openapi-inputs';
import type { JsonObject } from './openapi-schemas';

type CodedStatus = 401 | 403 | 404 | 409;

/**
 * The coded failures of each operation, beyond those every route shares (docs/rest-contract.md §2,
 * §4).
 */
const failures: Readonly<Record<string, Partial<Record<CodedStatus, readonly string[]>>>> = {
  Register: { 409: ['EMAIL_ALREADY_REGISTERED', 'ACCOUNT_NAME_ALREADY_TAKEN'] },
  Login: { 401: ['INCORRECT_EMAIL_OR_PASSWORD'] },
  UserByAccount: { 404: ['USER_NOT_FOUND'] },
  FollowStatus: { 404: ['USER_NOT_FOUND'] },
  Follow: { 404: ['USER_NOT_FOUND'], 409: ['CANNOT_FOLLOW_YOURSELF'] },
  Unfollow: { 404: ['USER_NOT_FOUND'] },
  CreateMeeting: { 404: ['USER_NOT_FOUND'], 409: ['MEETING_FULL'] },
  Meeting: { 404: ['MEETING_NOT_FOUND'] },
  AddParticipant: {
    403: ['ONLY_MEETING_OWNER_CAN_ADD_PARTICIPANTS'],
    404: ['MEETING_NOT_FOUND', 'USER_NOT_FOUND'],
    409: ['USER_ALREADY_A_PARTICIPANT', 'MEETING_CLOSED', 'MEETING_FULL'],
  },
  ApproveMeeting: {
    403: ['NOT_A_PARTICIPANT'],
    404: ['MEETING_NOT_FOUND'],
    409: ['MEETING_CLOSED'],
  },
  DeclineMeeting: {
    403: ['NOT_A_PARTICIPANT', 'OWNER_CANNOT_DECLINE'],
    404: ['MEETING_NOT_FOUND'],
    409: ['MEETING_CLOSED'],
  },
};

const failureTitles: Record<CodedStatus, string> = {
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
};

export const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string): JsonObject => ({
  $ref: `#/components/responses/${name}`,
});
const json = (schema: JsonObject, examples?: JsonObject): JsonObject => ({
  'application/json': { schema, ...(examples ? { examples } : {}) },
});
const codeExamples = (codes: readonly string[]): JsonObject =>
  Object.fromEntries(codes.map((code) => [code, { value: { errors: code } }]));
const backticked = (codes: readonly string[]): string => codes.map((c) => `\`${c}\``).join(', ');

function coded(title: string, codes: readonly string[], headers?: JsonObject): JsonObject {
  return {
    description: `${title}: ${backticked(codes)}.`,
    ...(headers ? { headers } : {}),
    content: json(schemaRef('ErrorCode'), codeExamples(codes)),
  };
}

const challenge = { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } };
const replayed = { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } };
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
const noStore = { 'Cache-Control': { schema: { type: 'string', enum: ['no-store'] } } };
const tagged = { ETag: { $ref: '#/components/headers/ETag' } };

/** Responses many routes share, referenced from components. */
export const sharedResponses: Record<string, JsonObject> = {
  NotModified: {
    description:
      "The If-None-Match header names the current answer's ETag: nothing it shows has changed. " +
      'No body.',
    headers: tagged,
  },
  Unauthorized: coded('No bearer token, or a bad one', ['NOT_AUTHENTICATED', 'INVALID_TOKEN'], {
    ...challenge,
  }),
  // Every route that reads a body is a POST, which takes an Idempotency-Key.
  MalformedBody: coded('The body cannot be parsed, or the Idempotency-Key is malformed', [
    'MALFORMED_BODY',
    'IDEMPOTENCY_KEY_INVALID',
  ]),
  MalformedKey: coded('The Idempotency-Key is malformed', ['IDEMPOTENCY_KEY_INVALID']),
  KeyReused: coded('The Idempotency-Key was sent before with another request', [
    'IDEMPOTENCY_KEY_REUSED',
  ]),
  PayloadTooLarge: coded('The body is too large', ['PAYLOAD_TOO_LARGE']),
  UnsupportedMediaType: coded('The body has a media type this route does not read', [
    'UNSUPPORTED_MEDIA_TYPE',
  ]),
  TooManyRequests: coded('Too many attempts', ['TOO_MANY_REQUESTS'], { ...retryAfter }),
  InternalError: coded('An unexpected failure', ['INTERNAL_ERROR']),
  ServiceUnavailable: coded(
    'The service is unavailable (the database cannot be reached, or it is shutting down)',
    ['SERVICE_UNAVAILABLE'],
  ),
};

/** RFC 6749 §5.2 answers, or the contract's for failures met before the grant is read. */
function oauthFailure(
  description: string,
  oauth: string[],
  contract: string[],
  headers: JsonObject = {},
): JsonObject {
  return {
    description,
    headers: { ...noStore, ...headers },
    content: json(
      { oneOf: [schemaRef('OAuthError'), schemaRef('ErrorCode')] },
      {
        ...Object.fromEntries(
          oauth.map((error) => [error, { value: { error, error_description: '...' } }]),
        ),
        ...codeExamples(contract),
      },
    ),
  };
}

/**
 * Invalid input, with an example naming fields of the route's own `inputs`; on a POST, also the
 * Idempotency-Key sent before with another request.
 */
const validationFailed = (inputs: readonly ClientInput[], keyed: boolean): JsonObject =>
  keyed
    ? {
        description:
          'Invalid input: one `VALIDATION_<FIELD>_<REASON>` per bad field; or ' +
          '`IDEMPOTENCY_KEY_REUSED`: the Idempotency-Key was sent before with another request.',
        content: json(
          { oneOf: [schemaRef('ValidationErrors'), schemaRef('ErrorCode')] },
          {
            example: { value: validationExample(inputs) },
            ...codeExamples(['IDEMPOTENCY_KEY_REUSED']),
          },
        ),
      }
    : {
        description: 'Invalid input: one `VALIDATION_<FIELD>_<REASON>` per bad field.',
        content: json(schemaRef('ValidationErrors'), {
          example: { value: validationExample(inputs) },
        }),
      };

/** Idempotency-Key's answers on a POST: a replay is marked; 409 while the first request runs. */
const IN_USE = 'IDEMPOTENCY_KEY_IN_USE';

/**
 * The responses of a route: its success (from the table) and every failure it can answer with,
 * in the contract's shapes (RFC 6749 §5.2 for the token endpoint). `inputs` are the route's
 * client inputs (path, query and body), which a 422 names.
 */
export function responsesOf(
  route: RouteSpec,
  operationName: string | null,
  inputs: readonly ClientInput[],
): Record<string, JsonObject> {
  const keyed = route.method === 'post';
  const read = route.method === 'get';
  const success: JsonObject = {
    description: route.response.description,
    ...(keyed ? { headers: replayed } : {}),
    ...(read ? { headers: tagged } : {}),
    content: json(route.response.schema as JsonObject),
  };
  const hasBody = route.body !== 'none';
  if (route.errorStyle === 'oauth') {
    return {
      [route.response.status]: { ...success, headers: { ...noStore, ...replayed } },
      400: oauthFailure(
        'The grant failed or the request is invalid (RFC 6749 §5.2); a body that cannot be ' +
          'parsed is answered with `MALFORMED_BODY`, a malformed Idempotency-Key with ' +
          '`IDEMPOTENCY_KEY_INVALID`.',
        ['invalid_request', 'invalid_grant', 'unsupported_grant_type'],
        ['MALFORMED_BODY', 'IDEMPOTENCY_KEY_INVALID'],
      ),
      409: coded('The first request with this Idempotency-Key is still running', [IN_USE]),
      413: responseRef('PayloadTooLarge'),
      422: responseRef('KeyReused'),
      415: responseRef('UnsupportedMediaType'),
      429: oauthFailure('Too many attempts.', ['slow_down'], ['TOO_MANY_REQUESTS'], retryAfter),
      500: oauthFailure('An unexpected failure.', ['server_error'], ['INTERNAL_ERROR']),
      503: oauthFailure(
        'The service is temporarily unavailable.',
        ['temporarily_unavailable'],
        ['SERVICE_UNAVAILABLE'],
      ),
    };
  }
  const own = (operationName && failures[operationName]) || {};
  const responses: Record<string, JsonObject> = { [route.response.status]: success };
  if (read) {
    responses['304'] = responseRef('NotModified');
  }
  if (hasBody || keyed) {
    responses['400'] = responseRef(hasBody ? 'MalformedBody' : 'MalformedKey');
  }
  if (own[401]) {
    const codes = [...(route.public ? [] : ['NOT_AUTHENTICATED', 'INVALID_TOKEN']), ...own[401]];
    responses['401'] = coded(failureTitles[401], codes, challenge);
  } else if (!route.public) {
    responses['401'] = responseRef('Unauthorized');
  }
  for (const status of [403, 404, 409] as const) {
    const codes = status === 409 && keyed ? [...(own[status] ?? []), IN_USE] : own[status];
    if (codes) {
      responses[status] = coded(failureTitles[status], codes);
    }
  }
  if (hasBody) {
    responses['413'] = responseRef('PayloadTooLarge');
    responses['415'] = responseRef('UnsupportedMediaType');
  }
  if (inputs.length > 0) {
    responses['422'] = validationFailed(inputs, keyed);
  } else if (keyed) {
    responses['422'] = responseRef('KeyReused');
  }
  responses['429'] = responseRef('TooManyRequests');
  responses['500'] = responseRef('InternalError');
  responses['503'] = responseRef('ServiceUnavailable');
  return responses;
}

/** Headers the responses refer to. */
export const sharedHeaders: Record<string, JsonObject> = {
  'Idempotent-Replayed': {
    description:
      '`true` on an answer sent again for a retry with the same Idempotency-Key (or rebuilt ' +
      'from a write that committed while its first answer was lost); absent otherwise.',
    schema: { type: 'string', enum: ['true'] },
  },
  ETag: {
    description:
      'The strong entity tag of the answer (RFC 9110 §8.8.3): it changes whenever anything the ' +
      'answer shows changes. Send it back in If-None-Match to be answered 304 while it holds.',
    schema: { type: 'string', pattern: '^"[A-Za-z0-9_-]{27}"$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description:
      'The RFC 6750 challenge: `Bearer realm="api"`, with `error="invalid_token"` when the ' +
      'token is malformed, expired or no longer valid.',
    schema: { type: 'string' },
  },
};

/**
 * The request headers routes take, referenced from components: If-None-Match on every GET, the
 * Idempotency-Key header on every POST (docs/rest-contract.md §8).
 */
export const sharedParameters: Record<string, JsonObject> = {
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'ETags of answers the client holds (RFC 9110 §13.1.2), or `*`: when one names the current ' +
      'answer, it is answered 304 without a body. A client that sends none sees no change.',
    schema: { type: 'string' },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe (draft-ietf-httpapi-idempotency-key-header): 1 to 255 printable ' +
      'ASCII characters (spaces only inside; the draft\'s quoted form `"…"` names the same key), ' +
      'kept 24 hours, owned by the caller (without a valid token: by the key and the route). A ' +
      'retry with the same key, method, path and body is answered with the first answer, byte ' +
      'for byte, with `Idempotent-Replayed: true`, and changes nothing; a write that committed ' +
      'while its answer was lost is answered with its success. The same key with another ' +
      'request: 422 `IDEMPOTENCY_KEY_REUSED`; while the first request runs: 409 ' +
      '`IDEMPOTENCY_KEY_IN_USE`; a malformed key: 400 `IDEMPOTENCY_KEY_INVALID`. Answers ' +
      '5xx, 401, 408 and 429 are not kept: the retry runs again.',
    schema: {
      type: 'string',
      minLength: 1,
      maxLength: 257,
      pattern: '^[\\x21-\\x7E]([\\x20-\\x7E]*[\\x21-\\x7E])?$',
    },
  },
};
