// @ts-check
'use strict';
/**
 * How TypeScript becomes JavaScript here, for the build (scripts/build.cjs) and for the tests
 * (test/helpers/light/register-typescript.cjs), so that the tests run the code as the service
 * runs it:
 * legacy decorators with their design-type metadata (type-graphql and MikroORM read it), class
 * fields assigned in the constructor, not defined (tsconfig's useDefineForClassFields: false),
 * CommonJS modules.
 * @type {import('@swc/core').Options}
 */
const SWC_OPTIONS = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    target: 'es2022',
    keepClassNames: true,
  },
  module: { type: 'commonjs', strictMode: true },
  sourceMaps: true,
  swcrc: false,
  configFile: false,
};

module.exports = { SWC_OPTIONS };
