import type { Request, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { DocumentNotAllowedError } from '../shared/errors';
import { formatError } from './format-error';
import { acceptsOnlyJson } from './http-status';
import { apqHashOf, bareId, type NamedDocument, type TrustedDocuments } from './trusted-documents';

/** A /graphql request's fields that name its document, read where Apollo reads them. */
interface DocumentFields {
  documentId: unknown;
  extensions: unknown;
  query: unknown;
  operationName: unknown;
}

const GRAPHQL_RESPONSE_TYPE = 'application/graphql-response+json';

function jsonOrUndefined(value: string | null): unknown {
  try {
    return value === null ? undefined : JSON.parse(value);
  } catch {
    // Apollo refuses the request for it; here it names no document.
    return undefined;
  }
}

/** The fields of a POST body or a GET query string; null for anything Apollo refuses as it is. */
function fieldsOf(req: Request): DocumentFields | null {
  if (req.method === 'POST') {
    const body: unknown = req.body;
    return typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as DocumentFields)
      : null;
  }
  const at = req.url.indexOf('?');
  if (req.method !== 'GET' || at < 0) {
    return null;
  }
  const params = new URLSearchParams(req.url.slice(at + 1));
  return {
    documentId: params.get('documentId') ?? undefined,
    extensions: jsonOrUndefined(params.get('extensions')),
    query: params.get('query') ?? undefined,
    operationName: params.get('operationName') ?? undefined,
  };
}

/** The document a request names: by `documentId` first, then APQ's hash, then its text. */
function namedBy(fields: DocumentFields): NamedDocument | null {
  const { documentId, operationName } = fields;
  const id = typeof documentId === 'string' ? documentId : apqHashOf(fields.extensions);
  if (id !== undefined) {
    return { id, operationName };
  }
  return typeof fields.query === 'string' && fields.query !== ''
    ? { text: fields.query, operationName }
    : null;
}

/**
 * A `documentId` request (GraphQL over HTTP's persisted documents) as Apollo understands it: an
 * APQ request by hash, which the trusted documents answer (TrustedDocuments.persistedQueryStore).
 */
function asPersistedQuery(req: Request, fields: DocumentFields, id: string): void {
  const given = fields.extensions;
  const extensions = {
    ...(typeof given === 'object' && !Array.isArray(given) ? given : {}),
    persistedQuery: { version: 1, sha256Hash: bareId(id) },
  };
  if (req.method === 'POST') {
    (req.body as Record<string, unknown>)['extensions'] = extensions;
    return;
  }
  const at = req.url.indexOf('?');
  const params = new URLSearchParams(req.url.slice(at + 1));
  params.delete('documentId');
  params.set('extensions', JSON.stringify(extensions));
  req.url = `${req.url.slice(0, at)}?${params.toString()}`;
}

/**
 * Refuses, before Apollo parses or runs anything (and before the caller's token is checked), a
 * /graphql request whose document is not trusted, while GRAPHQL_TRUSTED_DOCUMENTS=enforce; under
 * `log` it lets it run and logs it. A request that names no document passes: Apollo answers it
 * (the IDE page, or its own 400). Mounted only when trusted documents are on.
 */
export function trustedDocumentsGuard(trusted: TrustedDocuments, logger: Logger): RequestHandler {
  const refusal = new DocumentNotAllowedError();
  // The answer is the same for every refused request: shaped once, as Apollo shapes errors.
  const body = JSON.stringify({ errors: [formatError(logger)(refusal.toJSON(), refusal)] });
  return (req, res, next) => {
    const fields = fieldsOf(req);
    const named = fields && namedBy(fields);
    if (!fields || !named) {
      next();
      return;
    }
    const known =
      named.id !== undefined
        ? trusted.textOf(named.id) !== undefined
        : trusted.trusts(named.text as string);
    if (!known && !trusted.admitsUnknown(named, 'http')) {
      const accept = req.headers.accept;
      // As every request error here: 400, but 200 to a client that accepts only JSON.
      const onlyJson = acceptsOnlyJson(accept);
      res
        .status(onlyJson ? 200 : 400)
        .type(!onlyJson && accept?.includes(GRAPHQL_RESPONSE_TYPE) ? GRAPHQL_RESPONSE_TYPE : 'json')
        // As Apollo answers an unknown persisted query: a cache must not keep the refusal.
        .set('Cache-Control', 'private, no-cache, must-revalidate')
        .send(body);
      return;
    }
    if (typeof fields.documentId === 'string') {
      asPersistedQuery(req, fields, fields.documentId);
    }
    next();
  };
}
