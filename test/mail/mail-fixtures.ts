import type { SeededUser } from '../helpers/seed';
import type { TestApp } from '../helpers/test-app';

/** A registered user whose address is verified (as the verification link would leave it). */
export async function verifiedUser(t: TestApp): Promise<SeededUser> {
  const user = await t.seed.user();
  await t.seed.update(user, { emailVerified: true });
  return user;
}

/** POSTs a form to a page of the service, as its button would. */
export function postForm(t: TestApp, path: string, fields: Record<string, string>) {
  return fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

/** A start well ahead, so that nothing about the meeting is past. */
export const FUTURE = '2030-05-06T09:00:00Z';
