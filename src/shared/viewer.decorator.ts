import { createParameterDecorator } from 'type-graphql';
import type { Context } from '../context';
import type { User } from '../modules/user/user.entity';
import { UnauthenticatedError } from './errors';

/** The authenticated caller; refuses the operation when there is none. */
export function requireViewer(context: Context): User {
  if (context.auth.failure !== null) {
    throw new UnauthenticatedError(context.auth.failure);
  }
  return context.auth.user;
}

/** Injects the authenticated caller into a resolver method. */
export const Viewer = () =>
  createParameterDecorator<Context>(({ context }) => requireViewer(context));
