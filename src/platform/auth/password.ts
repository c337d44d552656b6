import { hash, verify } from '@node-rs/argon2';

/** argon2id cost parameters (@node-rs/argon2 uses argon2id by default). */
export interface PasswordHashCost {
  memoryCost: number;
  timeCost: number;
}

/** OWASP's recommended argon2id settings: 19 MiB, 2 iterations, 1 lane. */
export const DEFAULT_HASH_COST: PasswordHashCost = { memoryCost: 19_456, timeCost: 2 };

/** Hashes and checks passwords; unknown users are checked against a dummy hash for equal timing. */
export class PasswordHasher {
  private dummyHash: Promise<string> | null = null;

  constructor(private readonly cost: PasswordHashCost = DEFAULT_HASH_COST) {}

  hash(password: string): Promise<string> {
    return hash(password, { ...this.cost, parallelism: 1 });
  }

  async verify(passwordHash: string | null, password: string): Promise<boolean> {
    if (passwordHash === null) {
      this.dummyHash ??= this.hash('not-a-real-password-only-for-timing');
      await verify(await this.dummyHash, password).catch(() => false);
      return false;
    }
    return verify(passwordHash, password).catch(() => false);
  }
}
