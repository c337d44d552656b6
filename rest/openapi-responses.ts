import type { RouteSpec } from './route';
import { validationExample } from './openapi-examples';
import type { ClientInput } from './openapi-inputs';
import type { JsonObject } from './openapi-schemas';

type CodedStatus = 401 | 403 | 404 | 409;

/** The coded failures of each operation, beyond those every route shares (CONTRACT §2, §4). */
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
const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
const noStore = { 'Cache-Control': { schema: { type: 'string', enum: ['no-store'] } } };

/** Responses many routes share, referenced from components. */
export const sharedResponses: Record<string, JsonObject> = {
  Unauthorized: coded('No bearer token, or a bad one', ['NOT_AUTHENTICATED', 'INVALID_TOKEN'], {
    ...challenge,
  }),
  MalformedBody: coded('The body cannot be parsed', ['MALFORMED_BODY']),
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

/** Invalid input, with an example naming fields of the route's own `inputs`. */
const validationFailed = (inputs: readonly ClientInput[]): JsonObject => ({
  description: 'Invalid input: one `VALIDATION_<FIELD>_<REASON>` per bad field.',
  content: json(schemaRef('ValidationErrors'), {
    example: { value: validationExample(inputs) },
  }),
});

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
  const success: JsonObject = {
    description: route.response.description,
    content: json(route.response.schema as JsonObject),
  };
  const hasBody = route.body !== 'none';
  if (route.errorStyle === 'oauth') {
    return {
      [route.response.status]: { ...success, headers: noStore },
      400: oauthFailure(
        'The grant failed or the request is invalid (RFC 6749 §5.2); a body that cannot be ' +
          'parsed is answered with `MALFORMED_BODY`.',
        ['invalid_request', 'invalid_grant', 'unsupported_grant_type'],
        ['MALFORMED_BODY'],
      ),
      413: responseRef('PayloadTooLarge'),
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
  if (hasBody) {
    responses['400'] = responseRef('MalformedBody');
  }
  if (own[401]) {
    const codes = [...(route.public ? [] : ['NOT_AUTHENTICATED', 'INVALID_TOKEN']), ...own[401]];
    responses['401'] = coded(failureTitles[401], codes, challenge);
  } else if (!route.public) {
    responses['401'] = responseRef('Unauthorized');
  }
  for (const status of [403, 404, 409] as const) {
    const codes = own[status];
    if (codes) {
      responses[status] = coded(failureTitles[status], codes);
    }
  }
  if (hasBody) {
    responses['413'] = responseRef('PayloadTooLarge');
    responses['415'] = responseRef('UnsupportedMediaType');
  }
  if (inputs.length > 0) {
    responses['422'] = validationFailed(inputs);
  }
  responses['429'] = responseRef('TooManyRequests');
  responses['500'] = responseRef('InternalError');
  responses['503'] = responseRef('ServiceUnavailable');
  return responses;
}

/** Headers the responses refer to. */
export const sharedHeaders: Record<string, JsonObject> = {
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
