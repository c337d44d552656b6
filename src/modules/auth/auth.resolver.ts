import { Arg, Args, Authorized, Ctx, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import { Viewer } from '../../shared/viewer.decorator';
import type { UserRecord } from '../user/user.store';
import { User } from '../user/user.entity';
import { RegisterArgs } from '../user/user.inputs';
import { ChangePasswordInput, LoginArgs, LogoutInput, RefreshArgs } from './auth.inputs';
import { ChangePasswordPayload, LogoutPayload, TokenPair } from './auth.types';

@Resolver()
export class AuthResolver {
  @Mutation(() => User, { description: 'Creates an account. Never grants privileges.' })
  register(@Args() args: RegisterArgs, @Ctx() ctx: Context): Promise<UserRecord> {
    return ctx.services.users.register(args);
  }

  @Mutation(() => TokenPair, { description: 'Signs in with e-mail (or account) and password.' })
  login(@Args() args: LoginArgs, @Ctx() ctx: Context): Promise<TokenPair> {
    return ctx.services.auth.login(args.username, args.password);
  }

  @Mutation(() => TokenPair, {
    description:
      'Trades a refresh token for a new token pair. The token is retired: presenting it again ' +
      'later revokes every token descended from the same sign-in.',
  })
  refreshToken(@Args() args: RefreshArgs, @Ctx() ctx: Context): Promise<TokenPair> {
    return ctx.services.auth.refresh(args.refreshToken);
  }

  @Mutation(() => LogoutPayload, {
    description:
      'Ends the session a refresh token belongs to (the token is the credential). Access tokens ' +
      'already issued stay valid until they expire.',
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
      'and starts a new one.',
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
