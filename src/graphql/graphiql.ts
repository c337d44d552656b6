import express, { type Router } from 'express';
import { installedPackage, packageFiles } from '../http/package-assets';

/** Where GraphiQL is served: the IDE that runs subscriptions (graphql-transport-ws). */
export const GRAPHIQL_PATH = '/graphiql';

/**
 * The browser builds the page loads, in load order, from the installed packages (UMD builds: no
 * bundler, no CDN). GraphiQL 3 runs on React 18's globals; graphql-ws is the subscription client.
 */
const ASSETS = [
  { name: 'react', files: ['umd/react.production.min.js'] },
  { name: 'react-dom', files: ['umd/react-dom.production.min.js'] },
  { name: 'graphql-ws', files: ['umd/graphql-ws.min.js'] },
  { name: 'graphiql', files: ['graphiql.min.css', 'graphiql.min.js'] },
] as const;

/** The starting headers: where the access token goes, for queries and subscriptions alike. */
const DEFAULT_HEADERS = `{
  "Authorization": "Bearer <access token>"
}
`;

/** The starting document: how to sign in, and a query to run with the token. */
const defaultQuery = (
  endpoint: string,
): string => `# GraphiQL for the Meeting API. Queries and mutations go
# over HTTP to ${endpoint}, subscriptions over a WebSocket on
# ${endpoint} (protocol graphql-transport-ws).
#
# 1. Sign in: run Login below with your e-mail (or account)
#    and password.
# 2. Put tokens.accessToken in the Headers tab below:
#    {"Authorization": "Bearer <access token>"}
#    The same header signs the WebSocket in (connection_init),
#    so subscriptions run with the same token.
# 3. Run Me, or a subscription, e.g. your invitations:
#    subscription {
#      invitationReceived { id meeting { title } }
#    }

mutation Login {
  login(input: { username: "you@example.com", password: "your password" }) {
    tokens {
      accessToken
      expiresIn
    }
  }
}

query Me {
  me {
    id
    name
    account
  }
}
`;

/**
 * Starts GraphiQL. A served file, not an inline script, so the CSP allows it as 'self'. One
 * graphql-ws client per Authorization value typed in the headers editor: the token is sent once,
 * in connection_init, so a changed token needs a new connection.
 */
function startScript(endpoint: string): string {
  const config = {
    endpoint,
    defaultQuery: defaultQuery(endpoint),
    defaultHeaders: DEFAULT_HEADERS,
  };
  return `(function () {
  'use strict';
  var config = ${JSON.stringify(config)};
  var httpUrl = new URL(config.endpoint, window.location.href);
  var wsUrl = new URL(httpUrl.href);
  wsUrl.protocol = httpUrl.protocol === 'https:' ? 'wss:' : 'ws:';
  var current = null;

  function authorizationOf(headers) {
    var names = Object.keys(headers || {});
    for (var i = 0; i < names.length; i += 1) {
      if (names[i].toLowerCase() === 'authorization') {
        return String(headers[names[i]]);
      }
    }
    return null;
  }

  // A socket that fails to open reports a bare Event, which the result pane would show as
  // {"isTrusted": true}: say what failed instead.
  function readableErrors(client) {
    return {
      subscribe: function (payload, sink) {
        return client.subscribe(payload, {
          next: sink.next,
          complete: sink.complete,
          error: function (error) {
            var failed = error instanceof Event && !(error instanceof CloseEvent);
            sink.error(failed ? new Error('Could not open the WebSocket to ' + wsUrl.href) : error);
          },
        });
      },
    };
  }

  function fetcherFor(authorization) {
    if (current && current.authorization === authorization) {
      return current.fetcher;
    }
    if (current) {
      current.client.dispose();
    }
    var client = graphqlWs.createClient({
      url: wsUrl.href,
      lazy: true,
      connectionParams: authorization === null ? {} : { Authorization: authorization },
    });
    current = {
      authorization: authorization,
      client: client,
      fetcher: GraphiQL.createFetcher({ url: httpUrl.href, wsClient: readableErrors(client) }),
    };
    return current.fetcher;
  }

  function fetcher(params, options) {
    return fetcherFor(authorizationOf(options && options.headers))(params, options);
  }

  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: config.defaultQuery,
      defaultHeaders: config.defaultHeaders,
      defaultEditorToolsVisibility: 'headers',
    }),
  );
})();
`;
}

/** The page: every URL on this origin, under GRAPHIQL_PATH. */
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
      body { margin: 0; height: 100vh; }
      #graphiql { height: 100vh; }
    </style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
${tags.join('\n')}
  </body>
</html>
`;
}

/**
 * GraphiQL, mounted at GRAPHIQL_PATH: `GET /` the page, `GET /start.js` its start-up script, and
 * `GET /assets/<package>@<version>/<file>` the listed files of the installed packages (the version
 * in the URL, so a new install is never hidden behind a cached old file).
 */
export function graphiqlRouter(endpoint: string): Router {
  const router = express.Router();
  const stylesheets: string[] = [];
  const scripts: string[] = [];
  for (const { name, files } of ASSETS) {
    const pkg = installedPackage(name);
    const mount = `/assets/${pkg.name}@${pkg.version}`;
    router.use(mount, packageFiles(pkg, { only: new Set(files.map((file) => `/${file}`)) }));
    for (const file of files) {
      (file.endsWith('.css') ? stylesheets : scripts).push(`${GRAPHIQL_PATH}${mount}/${file}`);
    }
  }
  const start = startScript(endpoint);
  const html = page(stylesheets, [...scripts, `${GRAPHIQL_PATH}/start.js`]);
  router.get('/start.js', (_req, res) => {
    res.type('text/javascript').send(start);
  });
  router.get('/', (_req, res) => {
    res.type('html').send(html);
  });
  return router;
}
