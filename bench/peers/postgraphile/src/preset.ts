import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { makePgService } from 'postgraphile/adaptors/pg';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';

/**
 * PostGraphile v5 as its documentation sets it up: the amber preset over the `public` schema,
 * no GraphiQL, no watch mode. Two additions: enum values holding `-` (the meeting types
 * `all-hands`, `one-on-one`, ...) are not valid GraphQL names, so the inflector maps `-` to `_`
 * first; and, with a verified caller, its id goes to PostgreSQL as the `jwt.claims.sub` setting
 * of the request's transaction, as PostGraphile's JWT guides do.
 */

const DashedEnumValuesPlugin: GraphileConfig.Plugin = {
  name: 'BenchDashedEnumValuesPlugin',
  version: '0.0.0',
  inflection: {
    replace: {
      enumValue(previous, _options, value, codec) {
        return previous?.call(this, value.replace(/-/g, '_'), codec) ?? value;
      },
    },
  },
};

export function preset(
  pool: pg.Pool,
  callerOf: ((req: IncomingMessage) => string | undefined) | null,
): GraphileConfig.Preset {
  return {
    extends: [PostGraphileAmberPreset],
    plugins: [DashedEnumValuesPlugin],
    pgServices: [
      makePgService({
        pool,
        schemas: ['public'],
        ...(callerOf === null
          ? {}
          : {
              pgSettings: (requestContext: Grafast.RequestContext) => {
                const req = requestContext.node?.req;
                const caller = req === undefined ? undefined : callerOf(req);
                return caller === undefined ? {} : { 'jwt.claims.sub': caller };
              },
            }),
      }),
    ],
    grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
    grafast: { explain: false },
  };
}
