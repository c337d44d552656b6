import type { RequestHandler } from 'express';
import { GRAPHQL_PATH } from './platform/graphql/apollo';
import { SDL_PATH } from './platform/graphql/sdl-download';
import { DOCS_PATH, OPENAPI_PATH } from '../rest/docs';
import { REST_PREFIX } from '../rest/router';
import { HEALTH_PATH } from './platform/http/health.routes';
import { MAIL_PATHS } from './modules/mail';

/** The home page's own path. */
export const HOME_PATH = '/';

/**
 * The service's pages and documents for people, by name: the home page links them and the start
 * log prints them (publicAddresses), so the two never disagree.
 */
const PLACES = {
  ide: {
    path: GRAPHQL_PATH,
    label: 'GraphQL IDE',
    about: 'GraphiQL: sign in, run queries, mutations and subscriptions, explore the schema.',
  },
  restDocs: {
    path: `${REST_PREFIX}${DOCS_PATH}`,
    label: 'REST API docs',
    about: 'Swagger UI for the REST facade; try requests in the page.',
  },
  openapi: {
    path: `${REST_PREFIX}${OPENAPI_PATH}`,
    label: 'OpenAPI document',
    about: 'The REST facade described as OpenAPI 3 (JSON).',
  },
  sdl: {
    path: SDL_PATH,
    label: 'GraphQL schema (SDL)',
    about: 'The schema as a schema.graphql file, for code generators and editors.',
  },
  liveness: {
    path: `${HEALTH_PATH}/liveness`,
    label: 'Liveness',
    about: 'Answers 204 while the process can serve.',
  },
  readiness: {
    path: `${HEALTH_PATH}/readiness`,
    label: 'Readiness',
    about: 'Answers 204 while the database answers too.',
  },
  devMail: {
    path: MAIL_PATHS.devMail,
    label: 'Mail (development)',
    about: 'The messages the service made, newest first, when no SMTP_URL sends them.',
  },
} as const;

type Place = keyof typeof PLACES;

/** Absolute addresses of the home page and the places it links, below `baseUrl`. */
export function publicAddresses(baseUrl: string): {
  home: string;
  ide: string;
  restDocs: string;
  openapi: string;
  sdl: string;
  health: { liveness: string; readiness: string };
} {
  const at = (place: Place): string => `${baseUrl}${PLACES[place].path}`;
  return {
    home: `${baseUrl}${HOME_PATH}`,
    ide: at('ide'),
    restDocs: at('restDocs'),
    openapi: at('openapi'),
    sdl: at('sdl'),
    health: { liveness: at('liveness'), readiness: at('readiness') },
  };
}

/**
 * The base URL a browser on this machine opens for a service listening at `listenUrl`: an
 * unspecified address (`0.0.0.0`, `::`: every interface) is no address a browser can open, so it
 * is shown as `localhost`; any other address as it is.
 */
export function browserBaseUrl(listenUrl: string): string {
  const url = new URL(listenUrl);
  if (url.hostname === '0.0.0.0' || url.hostname === '[::]') {
    url.hostname = 'localhost';
  }
  return url.origin;
}

/** What the start log line says: where to open the service, and where it listens. */
export function startedAt(
  listenUrl: string,
): { url: string; listening: string } & ReturnType<typeof publicAddresses> & { graphql: string } {
  const url = browserBaseUrl(listenUrl);
  return { url, listening: listenUrl, graphql: `${url}${GRAPHQL_PATH}`, ...publicAddresses(url) };
}

/** The page: links only (no script, no asset of another origin), styled inline. */
function page(): string {
  const items = Object.values(PLACES).map(
    ({ path, label, about }) =>
      `      <li><a href="${path}">${label}</a> <code>${path}</code><br />${about}</li>`,
  );
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Meeting API</title>
    <!-- No icon of its own: this keeps the browser from asking for /favicon.ico (a 404). -->
    <link rel="icon" href="data:," />
    <style>
      body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; color: #222; }
      h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
      ul { list-style: none; padding: 0; }
      li { margin: 0.9rem 0; }
      a { font-weight: 600; }
      code { color: #666; font-size: 0.85rem; margin-left: 0.3rem; }
    </style>
  </head>
  <body>
    <h1>Meeting API</h1>
    <p>Meeting coordination over GraphQL, with a REST facade.</p>
    <ul>
${items.join('\n')}
    </ul>
  </body>
</html>
`;
}

/** `GET /` (and HEAD): the home page, rendered once. */
export function homePage(): RequestHandler {
  const html = page();
  return (_req, res) => {
    res.type('html').send(html);
  };
}
