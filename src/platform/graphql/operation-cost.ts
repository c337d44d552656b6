import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from '@apollo/server';
import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { AuthContext } from '../auth/tokens';
import type { CostMetrics } from '../observability/metrics';
import { currentRequest } from '../observability/request-tracking';
import { type BudgetState, CostBudgetSpentError, QueryTooCostlyError } from '../shared/errors';
import { actualCost } from './actual-cost';
import { budgetHeaders, type CostBudget } from './cost-budget';
import { assertMeasureWithinNodeLimit } from './node-limit';
import { type Fragments, fragmentsOf, type Measure, measureOperation } from './operation-measure';

/** Refuses (QueryTooCostlyError) a measured operation that costs more than `maxCost`. */
export function assertWithinCost({ cost }: Measure, maxCost: number): void {
  if (cost > maxCost) {
    throw new QueryTooCostlyError(cost, maxCost);
  }
}

/** Who pays for the request's operation, as the gate before it found (cost-gate.ts). */
const payerOf = (): string | null => currentRequest()?.payer ?? null;

function tellBudget(
  response: GraphQLRequestContextWillSendResponse<AuthContext>['response'],
  budget: BudgetState,
  refused: boolean,
): void {
  for (const [name, value] of budgetHeaders(budget, refused)) {
    response.http.headers.set(name, value);
  }
}

/** What one request's operation measured and spent, between its hooks. */
interface Spending {
  operation: OperationDefinitionNode;
  fragments: Fragments;
  measure: Measure;
  payer: string | null;
  budget: BudgetState | null;
}

/**
 * Counts, before it runs, what each operation can answer and cost (operation-measure.ts):
 * refused above MAX_NODES records (QUERY_TOO_LARGE) or MAX_QUERY_COST (QUERY_TOO_COSTLY), then
 * paid for from its caller's budget (COST_BUDGET_PER_MINUTE: 429 COST_BUDGET_SPENT when it cannot
 * pay). Once answered, the cost of what it answered is counted too: the difference is refunded,
 * both go to `extensions.cost` and the metrics, and the budget's state to the RateLimit headers. The
 * demand control of Apollo Router, Cosmo and Hive Router, in the service itself. Subscriptions are
 * the live server's (src/platform/live/live-operations.ts checks their size and cost).
 */
export function operationCostPlugin(options: {
  schema: GraphQLSchema;
  maxCost: number;
  budget: CostBudget | null;
  metrics: CostMetrics | null;
}): ApolloServerPlugin<AuthContext> {
  const { schema, maxCost, budget, metrics } = options;
  return {
    async requestDidStart() {
      let spending: Spending | null = null;
      let refusedBudget: BudgetState | null = null;
      return {
        async didResolveOperation({ document, operation, request }) {
          if (!operation || operation.operation === 'subscription') {
            return;
          }
          const fragments = fragmentsOf(document);
          const measure = measureOperation(schema, operation, fragments, request.variables ?? {});
          assertMeasureWithinNodeLimit(measure);
          try {
            assertWithinCost(measure, maxCost);
          } catch (error) {
            metrics?.refused('too_costly');
            throw error;
          }
          const payer = budget ? payerOf() : null;
          let state: BudgetState | null = null;
          if (budget && payer) {
            try {
              state = await budget.spend(payer, measure.cost);
            } catch (error) {
              if (error instanceof CostBudgetSpentError) {
                refusedBudget = error.budget;
                metrics?.refused('over_budget');
              }
              throw error;
            }
          }
          spending = { operation, fragments, measure, payer, budget: state };
        },
        async willSendResponse({ response, request }) {
          if (refusedBudget) {
            tellBudget(response, refusedBudget, true);
            return;
          }
          if (!spending || response.body.kind !== 'single') {
            return;
          }
          const { operation, fragments, measure, payer } = spending;
          const result = response.body.singleResult;
          const actual = actualCost(
            schema,
            operation,
            fragments,
            request.variables ?? {},
            result.data,
          );
          const requested = measure.cost;
          metrics?.observe(requested, actual);
          const state = spending.budget;
          if (budget && payer && state) {
            budget.refund(payer, requested - actual);
            const refunded = state.remaining + requested - actual;
            tellBudget(response, { ...state, remaining: Math.min(state.limit, refunded) }, false);
          }
          // The cost alone, a fact of the operation and its answer (the same answer, the same
          // body); where the caller's budget stands goes in the headers.
          result.extensions = { ...result.extensions, cost: { requested, actual } };
        },
      };
    },
  };
}
