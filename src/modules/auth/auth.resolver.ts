import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import type { Context } from '../../context';
import type { UserRecord } from '../user/user.store';
import { User } from '../user/user.entity';
import { RegisterArgs } from '../user/user.inputs';
import { LoginArgs, RefreshArgs } from './auth.inputs';
import { TokenPair } from './auth.types';

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

  @Mutation(() => TokenPair, { description: 'Trades a refresh token for a new token pair.' })
  refreshToken(@Args() args: RefreshArgs, @Ctx() ctx: Context): Promise<TokenPair> {
    return ctx.services.auth.refresh(args.refreshToken);
  }
}
