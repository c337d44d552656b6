import { loadConfig } from '../../src/app-config';
import { ConfigError } from '../../src/config';
import { DEFAULT_JWT_SECRET } from '../../src/platform/auth/auth.settings';
import { waitBudgetMs } from '../../src/platform/observability/request-tracking';

describe('configuration', () => {
  it('defaults to port 8000 and the embedded database under ./data', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8000);
    expect(config.database).toEqual({
      kind: 'embedded',
      dataDir: './data',
      poolSize: 10,
      restartAttempts: 5,
    });
    expect(config.auth.accessTokenTtl).toBe(3600);
    expect(config.auth.refreshTokenTtl).toBe(30 * 86400);
  });

  it('restarts a dead embedded server 5 times by default, or as EMBEDDED_RESTART_ATTEMPTS says', () => {
    expect(loadConfig({ EMBEDDED_RESTART_ATTEMPTS: '0' }).database).toMatchObject({
      kind: 'embedded',
      restartAttempts: 0,
    });
    expect(() => loadConfig({ EMBEDDED_RESTART_ATTEMPTS: '-1' })).toThrow(
      /EMBEDDED_RESTART_ATTEMPTS/,
    );
    expect(loadConfig({ DATABASE_URL: 'postgres://db/x' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://db/x',
      poolSize: 10,
    });
  });

  it('lets refresh tokens be retried for 30 s by default, 0 for strict rotation, never negative', () => {
    expect(loadConfig({}).auth.refreshReuseInterval).toBe(30);
    expect(loadConfig({ REFRESH_TOKEN_REUSE_INTERVAL: '0' }).auth.refreshReuseInterval).toBe(0);
    expect(() => loadConfig({ REFRESH_TOKEN_REUSE_INTERVAL: '-1' })).toThrow(
      /REFRESH_TOKEN_REUSE_INTERVAL/,
    );
  });

  it('bounds subscriptions by default and refuses bounds that are not positive whole numbers', () => {
    expect(loadConfig({}).subscriptions).toEqual({
      perSocket: 20,
      socketsPerUser: 10,
      queueSize: 100,
    });
    expect(
      loadConfig({
        SUBSCRIPTIONS_PER_SOCKET: '5',
        SOCKETS_PER_USER: '3',
        SUBSCRIPTION_QUEUE_SIZE: '1000',
      }).subscriptions,
    ).toEqual({ perSocket: 5, socketsPerUser: 3, queueSize: 1000 });
    try {
      loadConfig({
        SUBSCRIPTIONS_PER_SOCKET: '0',
        SOCKETS_PER_USER: 'many',
        SUBSCRIPTION_QUEUE_SIZE: '1.5',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(problems).toEqual([
        'SUBSCRIPTIONS_PER_SOCKET',
        'SOCKETS_PER_USER',
        'SUBSCRIPTION_QUEUE_SIZE',
      ]);
    }
  });

  it('runs any GraphQL document by default; trusted documents are logged or enforced on demand', () => {
    expect(loadConfig({}).trustedDocuments).toEqual({ mode: 'off', file: null });
    expect(
      loadConfig({
        GRAPHQL_TRUSTED_DOCUMENTS: 'enforce',
        GRAPHQL_TRUSTED_DOCUMENTS_FILE: 'client/persisted-documents.json',
      }).trustedDocuments,
    ).toEqual({ mode: 'enforce', file: 'client/persisted-documents.json' });
    expect(loadConfig({ GRAPHQL_TRUSTED_DOCUMENTS: 'log' }).trustedDocuments.mode).toBe('log');
    expect(() => loadConfig({ GRAPHQL_TRUSTED_DOCUMENTS: 'on' })).toThrow(
      /GRAPHQL_TRUSTED_DOCUMENTS/,
    );
  });

  it('uses PostgreSQL when DATABASE_URL is set', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db:5432/x' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db:5432/x',
      poolSize: 10,
    });
  });

  it('reaches PostgreSQL through a transaction pooler, with a direct URL for LISTEN and migrations', () => {
    const env = {
      DATABASE_URL: 'postgres://u@pooler:6432/x',
      DATABASE_POOLER: 'transaction',
      DATABASE_DIRECT_URL: 'postgres://u@db:5432/x',
    };
    expect(loadConfig(env).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@pooler:6432/x',
      poolSize: 10,
      pooler: 'transaction',
      directUrl: 'postgres://u@db:5432/x',
    });
    // A direct URL alone (a session pooler in front): LISTEN and migrations still go straight.
    expect(loadConfig({ ...env, DATABASE_POOLER: 'session' }).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@pooler:6432/x',
      poolSize: 10,
      directUrl: 'postgres://u@db:5432/x',
    });
  });

  it('refuses a transaction pooler without DATABASE_DIRECT_URL, and pooler settings without DATABASE_URL', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as ConfigError).problems;
      }
      throw new Error('expected a ConfigError');
    };
    expect(
      problems({ DATABASE_URL: 'postgres://u@pooler:6432/x', DATABASE_POOLER: 'transaction' }),
    ).toEqual([expect.stringMatching(/^DATABASE_DIRECT_URL: must be set when DATABASE_POOLER=/)]);
    expect(problems({ DATABASE_DIRECT_URL: 'postgres://u@db:5432/x' })).toEqual([
      expect.stringMatching(/^DATABASE_URL: must be set with DATABASE_POOLER=transaction or/),
    ]);
    expect(
      problems({ DATABASE_URL: 'postgres://u@db/x', DATABASE_POOLER: 'statement' })[0],
    ).toMatch(/^DATABASE_POOLER:/);
  });

  it('reads from the replicas of DATABASE_READ_URLS, and refuses them without DATABASE_URL or as other URLs', () => {
    const env = {
      DATABASE_URL: 'postgres://u@db:5432/x',
      DATABASE_READ_URLS: ' postgres://u@replica1:5432/x, postgresql://u@replica2/x ',
    };
    expect(loadConfig(env).database).toEqual({
      kind: 'postgres',
      url: 'postgres://u@db:5432/x',
      poolSize: 10,
      replicas: {
        urls: ['postgres://u@replica1:5432/x', 'postgresql://u@replica2/x'],
        maxLagMs: 5000,
      },
    });
    expect(loadConfig({ ...env, DATABASE_READ_MAX_LAG_MS: '2000' }).database).toMatchObject({
      replicas: { maxLagMs: 2000 },
    });
    const problems = (given: Record<string, string>): string[] => {
      try {
        loadConfig(given);
      } catch (error) {
        return (error as ConfigError).problems;
      }
      throw new Error('expected a ConfigError');
    };
    expect(problems({ DATABASE_READ_URLS: 'postgres://u@replica1/x' })).toEqual([
      expect.stringMatching(/^DATABASE_READ_URLS: needs DATABASE_URL/),
    ]);
    expect(problems({ ...env, DATABASE_READ_URLS: 'http://replica1/x' })[0]).toMatch(
      /^DATABASE_READ_URLS\.0: must be postgres:\/\/ URLs/,
    );
    expect(problems({ ...env, DATABASE_READ_MAX_LAG_MS: '10' })[0]).toMatch(
      /^DATABASE_READ_MAX_LAG_MS:/,
    );
  });

  it('names every bad variable', () => {
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'not a url' });
      throw new Error('expected a ConfigError');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const { problems } = error as ConfigError;
      expect(problems.map((p) => p.split(':')[0])).toEqual(['PORT', 'LOG_LEVEL', 'DATABASE_URL']);
    }
  });

  it('refuses to run in production with the default signing secret', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/JWT_SECRET/);
    expect(() => loadConfig({ NODE_ENV: 'production', JWT_SECRET: DEFAULT_JWT_SECRET })).toThrow(
      ConfigError,
    );
    expect(
      loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'a-long-secret-of-our-own' }).introspection,
    ).toBe(false);
  });

  it('needs the external issuer and its JWKS URL together', () => {
    expect(() => loadConfig({ OAUTH_EXTERNAL_ISSUER: 'https://idp.example' })).toThrow(
      /OAUTH_EXTERNAL/,
    );
  });

  it('gives a request one budget for its database waits, less a reserve for answering', () => {
    expect(loadConfig({ REQUEST_TIMEOUT_MS: '9000' }).requestTimeoutMs).toBe(9000);
    expect(waitBudgetMs(9000)).toBe(7200);
    expect(waitBudgetMs(2000)).toBe(1600);
    expect(waitBudgetMs(30_000)).toBe(28_000);
    expect(waitBudgetMs(1000)).toBe(750);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '500' })).toThrow(/REQUEST_TIMEOUT_MS/);
  });

  it('serves metrics on the service port by default, or on a port of their own, or not at all', () => {
    expect(loadConfig({}).metrics).toEqual({ enabled: true, path: '/metrics', port: null });
    expect(loadConfig({ METRICS_PORT: '9100', METRICS_PATH: '/m' }).metrics).toEqual({
      enabled: true,
      path: '/m',
      port: 9100,
    });
    expect(loadConfig({ METRICS: 'false' }).metrics.enabled).toBe(false);
    expect(() => loadConfig({ METRICS_PATH: 'metrics' })).toThrow(/METRICS_PATH/);
  });
});
