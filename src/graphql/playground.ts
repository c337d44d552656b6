import { dirname, join } from 'node:path';
import type { ApolloServerPlugin } from '@apollo/server';
import express, { type RequestHandler } from 'express';
import { renderPlaygroundPage } from 'graphql-playground-html';

/** Where the Playground's own scripts and styles are served from: this service, not a CDN. */
export const PLAYGROUND_ASSETS_PATH = '/graphql-playground';
const PACKAGE_PATH = '/graphql-playground-react/build';

/** Serves the installed graphql-playground-react build, so the page works with no internet. */
export function playgroundAssets(): RequestHandler {
  const buildDir = join(dirname(require.resolve('graphql-playground-react/package.json')), 'build');
  return express.static(buildDir, { index: false, maxAge: '1d', immutable: true });
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
