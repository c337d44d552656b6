import { z } from 'zod';
import { defineSettings } from '../settings/settings';
import { wholeNumber } from '../settings/values';

// The settings of operations' cost. A leaf file (zod and the settings' own files): the
// configuration is read before tracing starts, when nothing else may load yet.

/** The defaults and bounds of the cost settings, each declared once. */
export const COST_LIMITS = {
  /**
   * The most one operation may cost (MAX_QUERY_COST), in units of one record read: the node
   * limit's 100,000 records with the objects around them (a page of 100 meetings with every
   * participant and user of each, at the cap of 500, costs 100,100), or 11 of the widest
   * suggestions (50 users, 62 days, every 5 minutes: ~21,500 each), no more.
   */
  maxQueryCost: { default: 250_000, min: 100, max: 10_000_000 },
  /**
   * What one caller may spend a minute (COST_BUDGET_PER_MINUTE), 0 for no budget: 4 of the
   * largest operations, or 10,000 reads of a meeting with 50 participants and their users.
   */
  budgetPerMinute: { default: 1_000_000, max: 1_000_000_000_000 },
} as const;

/** The cost settings as the service takes them. */
export interface CostConfig {
  /** The most one operation may cost: above it, refused before it runs. */
  maxQueryCost: number;
  /** What one caller (user, else client address) may spend a minute; null: no budget. */
  budgetPerMinute: number | null;
}

/** What GraphQL operations may cost: one at the most, and each caller a minute. */
export const costSettings = defineSettings({
  area: 'GraphQL cost',
  about: 'The API guide explains [cost and budgets](api.md#cost-and-a-budget-per-caller).',
  variables: {
    MAX_QUERY_COST: wholeNumber(COST_LIMITS.maxQueryCost).meta({
      description:
        'the most one operation may cost, in records read; above it, refused before it runs',
    }),
    COST_BUDGET_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(0)
      .max(COST_LIMITS.budgetPerMinute.max)
      .default(COST_LIMITS.budgetPerMinute.default)
      .meta({
        description: "a caller's (user's, else address's) cost a minute, 429 past it; 0: no budget",
      }),
  },
  // A budget that cannot pay for the largest operation would refuse it every minute.
  check(env, problem) {
    if (env.COST_BUDGET_PER_MINUTE !== 0 && env.COST_BUDGET_PER_MINUTE < env.MAX_QUERY_COST) {
      problem(
        'COST_BUDGET_PER_MINUTE',
        `must be 0 (no budget) or at least MAX_QUERY_COST (${env.MAX_QUERY_COST}): an ` +
          'operation the budget cannot pay for would never run',
      );
    }
  },
  configOf: (env): { cost: CostConfig } => ({
    cost: {
      maxQueryCost: env.MAX_QUERY_COST,
      budgetPerMinute: env.COST_BUDGET_PER_MINUTE === 0 ? null : env.COST_BUDGET_PER_MINUTE,
    },
  }),
});
