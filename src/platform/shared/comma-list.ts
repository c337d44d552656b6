import { z } from 'zod';

// A leaf file (zod only), as seconds-list.ts: the configuration is read before anything else.

/** A setting that lists entries separated by commas (spaces around them ignored; empty: none). */
export const commaList = (defaultValue = '') =>
  z
    .string()
    .default(defaultValue)
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    );
