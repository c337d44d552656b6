import { createParameterDecorator } from 'type-graphql';
import type { Context } from '../context';
import type { UserRecord } from '../modules/user/user.store';
import { UnauthenticatedError } from './errors';

/** The authenticated caller; refuses the operation when there is none. */
export function requireViewer(context: Context): UserRecord {
  if (context.auth.failure !== null) {
    throw new UnauthenticatedError(context.auth.failure);
  }
  return context.auth.user;
}

/** Injects the authenticated caller into a resolver method. */
export const Viewer = () =>
  createParameterDecorator<Context>(({ context }) => requireViewer(context));
