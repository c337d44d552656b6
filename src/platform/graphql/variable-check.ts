import {
  type GraphQLInputType,
  type GraphQLSchema,
  isNonNullType,
  type OperationDefinitionNode,
  typeFromAST,
} from 'graphql';
import type { AuthContext } from '../auth/tokens';
import { type FieldErrors, type ValidationReason, VariablesRefusedError } from '../shared/errors';
import {
  argumentPathOf,
  argumentRuleFailures,
  besideTypeFailures,
  variablePositions,
} from './argument-rules';
import { checkValue } from '../shared/scalars';

/**
 * Judges an operation's variables before it runs, by the same type-directed check as the REST
 * edge: a value a typed scalar refuses (a malformed id or date) is a field error with the
 * contract's reason, named by its argument path like the argument rules' failures, and reported
 * with those of the other fields. Answers the error to send, or null when every variable is fine
 * (graphql-js then coerces them as always). Throws UnauthenticatedError first, as a resolver would.
 */
export async function variableFailure(
  schema: GraphQLSchema,
  definition: OperationDefinitionNode,
  variables: Readonly<Record<string, unknown>>,
  context: AuthContext,
): Promise<VariablesRefusedError | null> {
  const definitions = definition.variableDefinitions ?? [];
  if (definitions.length === 0) {
    return null;
  }
  const failures: Array<[ReadonlyArray<string | number>, ValidationReason]> = [];
  const standIns: Record<string, unknown> = { ...variables };
  for (const variable of definitions) {
    const name = variable.variable.name.value;
    const type = typeFromAST(schema, variable.type) as GraphQLInputType | undefined;
    const value = variables[name];
    if (!type || (value === undefined && (variable.defaultValue || !isNonNullType(type)))) {
      continue;
    }
    standIns[name] = checkValue(type, value, [name], (path, reason) => {
      failures.push([path, reason]);
    });
  }
  if (failures.length === 0) {
    return null;
  }
  // Only a refused request pays for naming its fields by argument path.
  const positions = variablePositions(definition);
  const typed: FieldErrors = {};
  for (const [path, reason] of failures) {
    typed[argumentPathOf(positions, path).join('.')] ??= reason;
  }
  const rules = await argumentRuleFailures(schema, definition, standIns, context);
  return new VariablesRefusedError(besideTypeFailures(typed, rules));
}
