import { type AuthChecker, createParameterDecorator } from 'type-graphql';
import type { AuthContext } from '../auth/authenticate';
import { UnauthenticatedError } from './errors';

/**
 * The one check of the caller: the context resolved the bearer token once; a field that needs a
 * caller refuses the operation when there is none. The schema's authChecker runs it for every
 * `@Authorized` field (before arguments are validated); the REST edge runs it only when it answers
 * a request without executing it (variables that do not type-check).
 */
export function requireViewer<U>(context: AuthContext<U>): U {
  if (context.auth.failure !== null) {
    throw new UnauthenticatedError(context.auth.failure);
  }
  return context.auth.user;
}

/** The schema's authChecker: runs before arguments are validated, so an anonymous caller learns nothing about inputs. */
export const viewerAuthChecker: AuthChecker<AuthContext> = ({ context }) => {
  requireViewer(context);
  return true;
};

/** Injects the caller that `@Authorized()` admitted into a resolver method. */
export const Viewer = () =>
  createParameterDecorator<AuthContext>(({ context }) => {
    if (context.auth.user === null) {
      // Not a request failure: a resolver uses @Viewer() without @Authorized().
      throw new Error('@Viewer() needs @Authorized() on the same field');
    }
    return context.auth.user;
  });
