import { readSession, type Session, signIn, writeSession } from './session';

const element = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) {
    throw new Error(`the page has no #${id}`);
  }
  return found as T;
};

/** setTimeout's largest delay (about 24.8 days); a longer one would fire at once. */
const LONGEST_TIMEOUT = 2_147_483_647;

/**
 * The bar above GraphiQL (its markup is the page's): signs in with the `login` mutation, shows
 * who is signed in, signs out, and forgets a session whose token has expired. `onChange` runs
 * whenever the session is kept or forgotten.
 */
export function startSignInBar(endpoint: string, onChange: () => void): void {
  const form = element<HTMLFormElement>('sign-in');
  const signedIn = element('signed-in');
  const viewer = element('viewer');
  const message = element('sign-in-message');
  let expiry: ReturnType<typeof setTimeout> | undefined;

  const show = (): void => {
    const session = readSession();
    form.hidden = session !== null;
    signedIn.hidden = session === null;
    viewer.textContent = session ? `${session.viewer.name} (${session.viewer.account})` : '';
    clearTimeout(expiry);
    if (session) {
      expiry = setTimeout(
        () => {
          keep(null);
          message.textContent = 'Session expired: sign in again.';
        },
        Math.min(session.expiresAt - Date.now(), LONGEST_TIMEOUT),
      );
    }
  };

  const keep = (session: Session | null): void => {
    writeSession(session);
    onChange();
    show();
  };

  const field = (name: string): HTMLInputElement =>
    form.elements.namedItem(name) as HTMLInputElement;

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    message.textContent = 'Signing in…';
    signIn(endpoint, field('username').value, field('password').value).then(
      (session) => {
        field('password').value = '';
        message.textContent = '';
        keep(session);
      },
      (error: unknown) => {
        message.textContent = error instanceof Error ? error.message : String(error);
      },
    );
  });

  element('sign-out').addEventListener('click', () => {
    keep(null);
    message.textContent = 'Signed out.';
  });

  show();
}
