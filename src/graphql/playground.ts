import type { ApolloServerPlugin } from '@apollo/server';
import type { RequestHandler } from 'express';
import { renderPlaygroundPage } from 'graphql-playground-html';
import { installedPackage, packageFiles } from '../http/package-assets';

/** Where the Playground's own scripts and styles are served from: this service, not a CDN. */
export const PLAYGROUND_ASSETS_PATH = '/graphql-playground';
const PACKAGE_PATH = '/graphql-playground-react/build';

/** Serves the installed graphql-playground-react build, so the page works with no internet. */
export function playgroundAssets(): RequestHandler {
  return packageFiles(installedPackage('graphql-playground-react'), { directory: 'build' });
}

export const playgroundAssetsMount = `${PLAYGROUND_ASSETS_PATH}${PACKAGE_PATH}`;

/** The Playground page, with asset links pointing at this origin and no web-font request. */
export function renderPlayground(endpoint: string): string {
  return renderPlaygroundPage({
    endpoint,
    cdnUrl: PLAYGROUND_ASSETS_PATH,
    title: 'Meeting API – GraphQL Playground',
    settings: { 'request.credentials': 'same-origin', 'schema.polling.enable': false },
  }).replace(/<link href="https:\/\/fonts\.googleapis\.com[^>]*>/, '');
}

/** Apollo landing page plugin: browsers opening /graphql get the Playground page given. */
export function playgroundLandingPage(html: string): ApolloServerPlugin {
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
