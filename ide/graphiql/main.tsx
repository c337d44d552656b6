// First: Monaco asks where its workers are as soon as GraphiQL creates an editor.
import './monaco-workers';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { GraphiQL, HISTORY_PLUGIN } from 'graphiql';
import { createRoot } from 'react-dom/client';
import '@graphiql/plugin-explorer/style.css';
import 'graphiql/style.css';
import { defaultQuery } from './default-query';
import { sessionFetcher } from './fetcher';
import { startSignInBar } from './sign-in-bar';

/**
 * The IDE page's script (served at /graphql/ide/<version>/graphiql.js): the sign-in bar, then
 * GraphiQL 5 with its history and the Explorer (the query builder) in the sidebar. The page names
 * the endpoint (`data-endpoint` on #graphiql); nothing here names a host.
 */
const root = document.getElementById('graphiql');
if (!root?.dataset['endpoint']) {
  throw new Error('the page has no #graphiql with a data-endpoint');
}
const endpoint = root.dataset['endpoint'];
const { fetcher, sessionChanged } = sessionFetcher(endpoint);
startSignInBar(endpoint, sessionChanged);

// Made once: GraphiQL compares its plugins by identity.
const plugins = [HISTORY_PLUGIN, explorerPlugin()];

createRoot(root).render(
  <GraphiQL fetcher={fetcher} defaultQuery={defaultQuery(endpoint)} plugins={plugins} />,
);
