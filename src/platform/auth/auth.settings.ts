import { z } from 'zod';
import { environmentSettings } from '../settings/environment.settings';
import { defineSettings } from '../settings/settings';
import { optionalUrl } from '../settings/values';

// Tokens and sign-in limits. Loaded with the configuration, before tracing starts: zod and the
// settings' own files only (tokens.ts, which loads jose and type-graphql, reads its defaults here).

/** The signing secret of development: production refuses it. */
export const DEFAULT_JWT_SECRET = 'dev-only-signing-secret-change-me';

/**
 * The issuer when neither JWT_ISSUER nor PUBLIC_URL names one: a fixed name (RFC 7519 allows any
 * StringOrURI), the same on every instance and port, so instances sharing a key accept each
 * other's tokens.
 */
export const DEFAULT_ISSUER = 'urn:meeting-coordination';

/** The default reuse interval (Okta's default grace period for rotated refresh tokens). */
export const REFRESH_REUSE_INTERVAL = 30;

/** Tokens: their keys, issuer, audience and lifetimes, and an external issuer's. */
export interface AuthConfig {
  secret: string;
  privateKeyPem: string | null;
  issuer: string | null;
  audience: string;
  accessTokenTtl: number;
  refreshTokenTtl: number;
  /** Seconds a used refresh token may be traded again (0: strict rotation). */
  refreshReuseInterval: number;
  external: { issuer: string; jwksUrl: string; audience: string | null } | null;
}

/** The tokens this service issues, and the external issuer whose tokens it accepts. */
export const authSettings = defineSettings({
  area: 'Tokens',
  reads: [environmentSettings],
  variables: {
    JWT_SECRET: z
      .string()
      .min(16, 'must be at least 16 characters')
      .default(DEFAULT_JWT_SECRET)
      .meta({
        defaultText: 'a development value',
        description:
          'secret from which the Ed25519 signing key is derived (refused in production unless ' +
          '`JWT_PRIVATE_KEY` is set)',
      }),
    JWT_PRIVATE_KEY: z.string().optional().meta({
      description: 'PEM private key (Ed25519, RSA or P-256) used instead of `JWT_SECRET`',
    }),
    JWT_ISSUER: z
      .string()
      .min(1)
      .optional()
      .meta({
        defaultText: `\`PUBLIC_URL\`, else \`${DEFAULT_ISSUER}\``,
        description: '`iss` of issued tokens',
      }),
    JWT_AUDIENCE: z
      .string()
      .min(1)
      .default('meeting-api')
      .meta({ description: '`aud` of access tokens' }),
    ACCESS_TOKEN_TTL: z.coerce
      .number()
      .int()
      .min(30)
      .max(86_400)
      .default(3600)
      .meta({ description: 'access token lifetime, seconds' }),
    REFRESH_TOKEN_TTL: z.coerce
      .number()
      .int()
      .min(60)
      .max(365 * 86_400)
      .default(30 * 86_400)
      .meta({ description: 'refresh token lifetime, seconds' }),
    REFRESH_TOKEN_REUSE_INTERVAL: z.coerce
      .number()
      .int()
      .min(0)
      .max(300)
      .default(REFRESH_REUSE_INTERVAL)
      .meta({
        description: 'seconds a used refresh token may be traded again (0: strict rotation)',
      }),
    OAUTH_EXTERNAL_ISSUER: z
      .string()
      .min(1)
      .optional()
      .meta({ description: 'issuer of trusted external tokens (with its JWKS URL)' }),
    OAUTH_EXTERNAL_JWKS_URL: optionalUrl().meta({ description: 'JWKS URL of that issuer' }),
    OAUTH_EXTERNAL_AUDIENCE: z.string().min(1).optional().meta({
      defaultText: '`JWT_AUDIENCE`',
      description: 'audience required of external tokens',
    }),
  },
  check(env, problem) {
    if (
      env.NODE_ENV === 'production' &&
      !env.JWT_PRIVATE_KEY &&
      env.JWT_SECRET === DEFAULT_JWT_SECRET
    ) {
      problem(
        'JWT_SECRET',
        'must be set to a secret of your own in production (or set JWT_PRIVATE_KEY)',
      );
    }
    if (Boolean(env.OAUTH_EXTERNAL_ISSUER) !== Boolean(env.OAUTH_EXTERNAL_JWKS_URL)) {
      problem(
        'OAUTH_EXTERNAL_JWKS_URL',
        'OAUTH_EXTERNAL_ISSUER and OAUTH_EXTERNAL_JWKS_URL must be set together',
      );
    }
  },
  configOf: (env): { auth: AuthConfig } => ({
    auth: {
      secret: env.JWT_SECRET,
      privateKeyPem: env.JWT_PRIVATE_KEY ?? null,
      issuer: env.JWT_ISSUER ?? null,
      audience: env.JWT_AUDIENCE,
      accessTokenTtl: env.ACCESS_TOKEN_TTL,
      refreshTokenTtl: env.REFRESH_TOKEN_TTL,
      refreshReuseInterval: env.REFRESH_TOKEN_REUSE_INTERVAL,
      external:
        env.OAUTH_EXTERNAL_ISSUER && env.OAUTH_EXTERNAL_JWKS_URL
          ? {
              issuer: env.OAUTH_EXTERNAL_ISSUER,
              jwksUrl: env.OAUTH_EXTERNAL_JWKS_URL,
              audience: env.OAUTH_EXTERNAL_AUDIENCE ?? null,
            }
          : null,
    },
  }),
});

/** Sign-in, sign-up and token attempts: how many, in what window, counted where. */
export interface RateLimitConfig {
  /** Redis shared by every instance (null: counted in memory, per instance). */
  redisUrl: string | null;
  perIp: number;
  perAccount: number;
  windowSeconds: number;
}

/** The limits on sign-in attempts ([limits](operations.md#limits-and-protection)). */
export const rateLimitSettings = defineSettings({
  area: 'Sign-in limits',
  about: '[Operations](operations.md#limits-and-protection) explains the limits.',
  variables: {
    REDIS_URL: optionalUrl().meta({
      description:
        "a Redis shared by every instance for the attempts' counts and the cost budgets " +
        '(unset: counted in memory, per instance)',
    }),
    RATE_LIMIT_AUTH_PER_IP: z.coerce
      .number()
      .int()
      .min(1)
      .default(30)
      .meta({ description: 'sign-in, sign-up and token attempts per address per window' }),
    RATE_LIMIT_AUTH_PER_ACCOUNT: z.coerce
      .number()
      .int()
      .min(1)
      .default(10)
      .meta({ description: 'attempts per account per window' }),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(60)
      .meta({ description: 'the window, seconds' }),
  },
  configOf: (env): { rateLimits: RateLimitConfig } => ({
    rateLimits: {
      redisUrl: env.REDIS_URL ?? null,
      perIp: env.RATE_LIMIT_AUTH_PER_IP,
      perAccount: env.RATE_LIMIT_AUTH_PER_ACCOUNT,
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
    },
  }),
});
