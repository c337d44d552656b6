import { Arg, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { Context } from './auth.context';
import { Viewer } from '../../platform/auth/tokens';
import { RegisterInput, type UserRecord } from '../user';
import { ChangePasswordInput, LoginInput, LogoutInput, RefreshTokenInput } from './auth.inputs';
import {
  ChangePasswordPayload,
  LoginPayload,
  LogoutPayload,
  RefreshTokenPayload,
  RegisterPayload,
} from './auth.types';

@Resolver()
export class AuthResolver {
  @Mutation(() => RegisterPayload, { description: 'Creates an account. Never grants privileges.' })
  async register(
    @Arg('input', { description: 'The new account.' }) input: RegisterInput,
    @Ctx() ctx: Context,
  ): Promise<RegisterPayload> {
    return { user: await ctx.services.users.register(input) };
  }

  @Mutation(() => LoginPayload, { description: 'Signs in with e-mail (or account) and password.' })
  async login(
    @Arg('input', { description: 'The credentials.' }) input: LoginInput,
    @Ctx() ctx: Context,
  ): Promise<LoginPayload> {
    return { tokens: await ctx.services.auth.login(input.username, input.password) };
  }

  @Mutation(() => RefreshTokenPayload, {
    description:
      'Trades a refresh token for a new token pair. The token is retired: presenting it again ' +
      'later revokes every token descended from the same sign-in.',
  })
  async refreshToken(
    @Arg('input', { description: 'The refresh token to trade.' }) input: RefreshTokenInput,
    @Ctx() ctx: Context,
  ): Promise<RefreshTokenPayload> {
    return { tokens: await ctx.services.auth.refresh(input.refreshToken) };
  }

  @Mutation(() => LogoutPayload, {
    description:
      'Ends the session a refresh token belongs to (the token is the credential): its refresh ' +
      'tokens, its access tokens and its open subscriptions, on every instance.',
  })
  async logout(
    @Arg('input', { description: 'The refresh token of the session to end.' }) input: LogoutInput,
    @Ctx() ctx: Context,
  ): Promise<LogoutPayload> {
    return { sessionEnded: await ctx.services.auth.logout(input.refreshToken) };
  }

  @Authorized()
  @Mutation(() => ChangePasswordPayload, {
    description:
      "Changes the caller's password, given the current one; ends every session of the caller " +
      '(their refresh and access tokens, their open subscriptions) and starts a new one.',
  })
  changePassword(
    @Arg('input', { description: 'The current and the new password.' })
    input: ChangePasswordInput,
    @Viewer() viewer: UserRecord,
    @Ctx() ctx: Context,
  ): Promise<ChangePasswordPayload> {
    return ctx.services.auth.changePassword(viewer, input);
  }
}
