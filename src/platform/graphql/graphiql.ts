import type { ApolloServerPlugin } from '@apollo/server';
import express, { type RequestHandler, type Router } from 'express';
import { assetFiles, builtAssets, NOT_BUILT } from '../http/built-assets';
import { notFound } from '../http/http-errors';
import { nameRoute } from '../observability/request-tracking';

/** Where the IDE's scripts, styles and workers are served, below the GraphQL endpoint. */
export const IDE_ASSETS_PATH = '/graphql/ide';

/** Where GraphiQL lived before it moved to the endpoint itself: old bookmarks are redirected. */
export const OLD_GRAPHIQL_PATH = '/graphiql';

/**
 * The page: the sign-in bar, then GraphiQL. Its one script is a module of this origin (no inline
 * script); it reads the endpoint (a path of this service's, no markup in it) from #graphiql's
 * data-endpoint. `base` is where the bundle is served, null when it was not built.
 */
function page(endpoint: string, base: string | null): string {
  const head = base ? `    <link rel="stylesheet" href="${base}/graphiql.css" />\n` : '';
  const body = base
    ? `    <div id="graphiql" data-endpoint="${endpoint}">Loading GraphiQL…</div>
    <script type="module" src="${base}/graphiql.js"></script>`
    : `    <p id="graphiql">${NOT_BUILT('GraphiQL')}</p>`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Meeting API – GraphiQL</title>
    <!-- No icon of its own: this keeps the browser from asking for /favicon.ico (a 404). -->
    <link rel="icon" href="data:," />
${head}    <style>
      body { margin: 0; height: 100vh; display: flex; flex-direction: column; font-family: system-ui, sans-serif; }
      #graphiql { flex: 1; min-height: 0; }
      .ide-bar { display: flex; align-items: center; gap: 1rem; padding: 0.4rem 1rem; font-size: 0.9rem; border-bottom: 1px solid #ddd; }
      .ide-bar form, .ide-bar #signed-in { display: flex; align-items: center; gap: 0.5rem; }
      .ide-bar [hidden] { display: none !important; }
      .ide-bar input { font: inherit; padding: 0.2rem 0.4rem; }
      .ide-bar button { font: inherit; padding: 0.2rem 0.8rem; cursor: pointer; }
      #sign-in-message { color: #a33; }
    </style>
  </head>
  <body>
    <header class="ide-bar">
      <a href="/">Meeting API</a>
      <form id="sign-in" autocomplete="on">
        <label>E-mail or account <input name="username" autocomplete="username" required /></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" required /></label>
        <button type="submit">Sign in</button>
      </form>
      <div id="signed-in" hidden>
        Signed in as <strong id="viewer"></strong>
        <button type="button" id="sign-out">Sign out</button>
      </div>
      <span id="sign-in-message" role="status"></span>
    </header>
${body}
  </body>
</html>
`;
}

/** GraphiQL for one endpoint: the page, and the router that serves what the page loads. */
export interface GraphiqlIde {
  /** The page, rendered once; browsers opening the endpoint get it (graphiqlLandingPage). */
  html: string;
  /**
   * Mounted at IDE_ASSETS_PATH: `GET /<stamp>/<file>` the files `npm run build` bundled
   * (scripts/build-assets.cjs: the page's script and styles, its fonts, Monaco's workers),
   * cached for good since the stamp in the URL changes with them. Anything else below it is the
   * contract's 404, not a GraphQL request.
   */
  router: Router;
}

export function graphiqlIde(endpoint: string): GraphiqlIde {
  const router = express.Router();
  // One label for every file of the bundle: the stamp and the names are no route of their own.
  router.use((_req, _res, next) => {
    nameRoute(`${IDE_ASSETS_PATH}/:stamp/*`);
    next();
  });
  const bundle = builtAssets('graphiql');
  if (bundle) {
    router.use(`/${bundle.stamp}`, assetFiles(bundle, { immutable: true }));
  }
  router.use(notFound);
  const base = bundle ? `${IDE_ASSETS_PATH}/${bundle.stamp}` : null;
  return { html: page(endpoint, base), router };
}

/** `GET /graphiql`: a permanent redirect to the IDE's new home, the endpoint itself. */
export const toGraphiqlAtEndpoint =
  (endpoint: string): RequestHandler =>
  (_req, res) => {
    res.redirect(301, endpoint);
  };

/** Apollo landing page plugin: browsers opening the endpoint get the IDE page given. */
export function graphiqlLandingPage(html: string): ApolloServerPlugin {
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html };
        },
      };
    },
  };
}
