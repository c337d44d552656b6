import type { BodyKind } from './body';
import type { RequestValues } from './wire';

/** A JSON Schema fragment for the OpenAPI document (records are referenced by name). */
export type SchemaRef = { $ref: string } | { type: 'array'; items: { $ref: string } };

/** How a route answers on success. */
export interface RouteResponse {
  status: number;
  description: string;
  schema: SchemaRef;
  /** A fixed `{ "message": … }` body; without one, the body is the operation's root field. */
  message?: string;
}

/**
 * One REST endpoint: which GraphQL operation it runs, where its variables come from (path,
 * then query, then body, by snake_case name or a rename) and how the result is answered.
 */
export interface RouteSpec {
  method: 'get' | 'post';
  /** Express path under /api/v1, e.g. `/meeting/:meeting_id`. */
  path: string;
  /** The operation's name in rest/operations/*.graphql, or a choice made from the request. */
  operation: string | ((values: RequestValues) => string | null);
  summary: string;
  tag: 'auth' | 'user' | 'follow' | 'meeting' | 'health';
  /** No bearer token needed. */
  public?: boolean;
  /** What the body may be; GET routes read none. */
  body: BodyKind;
  /** GraphQL variable → the client's name for it, where it is not the plain snake_case. */
  renames?: Readonly<Record<string, string>>;
  /** Error bodies: the contract's (default) or RFC 6749 §5.2 for the token endpoint. */
  errorStyle?: 'contract' | 'oauth';
  response: RouteResponse;
}

export const ref = (name: string): { $ref: string } => ({ $ref: `#/components/schemas/${name}` });
export const listOf = (name: string): SchemaRef => ({ type: 'array', items: ref(name) });
