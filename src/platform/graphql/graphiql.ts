import type { ApolloServerPlugin } from '@apollo/server';
import express, { type RequestHandler, type Router } from 'express';
import { notFound } from '../http/http-errors';
import { installedPackage, packageFiles } from '../http/package-assets';
import { graphiqlStartScript } from './graphiql-start';

/** Where the IDE's scripts and styles are served, below the GraphQL endpoint it explores. */
export const IDE_ASSETS_PATH = '/graphql/ide';

/** Where GraphiQL lived before it moved to the endpoint itself: old bookmarks are redirected. */
export const OLD_GRAPHIQL_PATH = '/graphiql';

/**
 * The browser builds the page loads, in load order, from the installed packages (UMD builds: no
 * bundler, no CDN). GraphiQL 3 runs on React 18's globals; graphql-ws is the subscription client;
 * the Explorer plugin (3.2, the line for GraphiQL 3.9's @graphiql/react 0.29) reads React and
 * GraphiQL's own globals.
 */
const ASSETS = [
  { name: 'react', files: ['umd/react.production.min.js'] },
  { name: 'react-dom', files: ['umd/react-dom.production.min.js'] },
  { name: 'graphql-ws', files: ['umd/graphql-ws.min.js'] },
  { name: 'graphiql', files: ['graphiql.min.css', 'graphiql.min.js'] },
  { name: '@graphiql/plugin-explorer', files: ['dist/style.css', 'dist/index.umd.js'] },
] as const;

/** The starting document: what the page does, and queries to run once signed in. */
const defaultQuery = (
  endpoint: string,
): string => `# GraphiQL for the Meeting API. Queries and mutations go
# over HTTP to ${endpoint}, subscriptions over a WebSocket on
# ${endpoint} (protocol graphql-transport-ws).
#
# Sign in with the bar above (e-mail or account, and password):
# every request then carries your access token, subscriptions
# included. A token of your own in the Headers tab
# ({"Authorization": "Bearer …"}) takes its place.
#
# Run Me, or subscribe to your invitations and keep this tab
# open while someone invites you to a meeting.

query Me {
  me {
    id
    name
    account
  }
}

subscription MyInvitations {
  invitationReceived {
    id
    meeting {
      title
    }
  }
}
`;

/** The page: the sign-in bar, then GraphiQL; every URL on this origin, no inline script. */
function page(stylesheets: string[], scripts: string[]): string {
  const links = stylesheets.map((href) => `    <link rel="stylesheet" href="${href}" />`);
  const tags = scripts.map((src) => `    <script src="${src}"></script>`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Meeting API – GraphiQL</title>
    <!-- No icon of its own: this keeps the browser from asking for /favicon.ico (a 404). -->
    <link rel="icon" href="data:," />
${links.join('\n')}
    <style>
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
    <div id="graphiql">Loading GraphiQL…</div>
${tags.join('\n')}
  </body>
</html>
`;
}

/** GraphiQL for one endpoint: the page, and the router that serves what the page loads. */
export interface GraphiqlIde {
  /** The page, rendered once; browsers opening the endpoint get it (graphiqlLandingPage). */
  html: string;
  /**
   * Mounted at IDE_ASSETS_PATH: `GET /start.js` the start-up script and
   * `GET /assets/<package>@<version>/<file>` the listed files of the installed packages (the
   * version in the URL, so a new install is never hidden behind a cached old file). Anything
   * else below it is the contract's 404, not a GraphQL request.
   */
  router: Router;
}

export function graphiqlIde(endpoint: string): GraphiqlIde {
  const router = express.Router();
  const stylesheets: string[] = [];
  const scripts: string[] = [];
  for (const { name, files } of ASSETS) {
    const pkg = installedPackage(name);
    const mount = `/assets/${pkg.name}@${pkg.version}`;
    router.use(mount, packageFiles(pkg, { only: new Set(files.map((file) => `/${file}`)) }));
    for (const file of files) {
      (file.endsWith('.css') ? stylesheets : scripts).push(`${IDE_ASSETS_PATH}${mount}/${file}`);
    }
  }
  const start = graphiqlStartScript({ endpoint, defaultQuery: defaultQuery(endpoint) });
  router.get('/start.js', (_req, res) => {
    res.type('text/javascript').send(start);
  });
  router.use(notFound);
  return { html: page(stylesheets, [...scripts, `${IDE_ASSETS_PATH}/start.js`]), router };
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
