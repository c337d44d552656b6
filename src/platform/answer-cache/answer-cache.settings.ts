import { z } from 'zod';
import { defineSettings } from '../settings/settings';
import { wholeNumber } from '../settings/values';

// The answer cache's settings. A leaf file (zod and the settings' own files).

/** The bound on the bytes of kept answers (RESPONSE_CACHE_MAX_MB), in MiB. */
const MAX_MB = { default: 64, max: 16_384 };

/** The answer cache as the service takes it: null when off. */
export interface AnswerCacheConfig {
  maxBytes: number;
}

/** Whole answers to read operations, kept until a write to what they show. */
export const answerCacheSettings = defineSettings({
  area: 'Answer cache',
  about: 'The API guide explains [the answer cache](api.md#the-answer-cache).',
  variables: {
    RESPONSE_CACHE: z
      .enum(['on', 'off'])
      .default('off')
      .meta({
        description:
          'keep whole answers to REST GETs and GraphQL queries until a write to a table they ' +
          'were read from (`on`), or run every read (`off`)',
      }),
    RESPONSE_CACHE_MAX_MB: wholeNumber(MAX_MB).meta({
      description:
        'the most the kept answers of one instance take, in MiB (least recently used go)',
    }),
  },
  configOf: (env): { answerCache: AnswerCacheConfig | null } => ({
    answerCache:
      env.RESPONSE_CACHE === 'on' ? { maxBytes: env.RESPONSE_CACHE_MAX_MB * 1024 * 1024 } : null,
  }),
});
