import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { makePgService } from 'postgraphile/adaptors/pg';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { jsonPgSmartTags } from 'postgraphile/utils';

/**
 * PostGraphile v5 as its documentation sets it up: the amber preset over the `public` schema,
 * no GraphiQL, no watch mode, the password hashes left out of the schema. Two additions: enum values holding `-` (the meeting types
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

/** Users' password hashes are no field of the schema (the service never answers them either). */
const HiddenPasswordHashesPlugin = jsonPgSmartTags({
  version: 1,
  config: { class: { users: { attribute: { password_hash: { tags: { behavior: '-*' } } } } } },
});

export function preset(
  pool: pg.Pool,
  callerOf: ((req: IncomingMessage) => string | undefined) | null,
): GraphileConfig.Preset {
  return {
    extends: [PostGraphileAmberPreset],
    plugins: [DashedEnumValuesPlugin, HiddenPasswordHashesPlugin],
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
