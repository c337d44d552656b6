import { escapeLikePattern } from '../../src/modules/user/user.store';
import { toFieldErrors } from '../../src/platform/shared/validation';

describe('field errors', () => {
  it('flatten nested errors into dotted paths with the most fundamental reason', () => {
    expect(
      toFieldErrors([
        { property: 'name', constraints: { trimmedMinLength: 'x', notBlank: 'y' }, children: [] },
        {
          property: 'participants',
          children: [
            {
              property: '0',
              children: [{ property: 'userId', constraints: { isUuid: 'x' }, children: [] }],
            },
          ],
        },
      ]),
    ).toEqual({ name: 'REQUIRED', 'participants.0.userId': 'INVALID_UUID' });
  });
});

describe('search patterns', () => {
  it('escape LIKE wildcards and the escape character', () => {
    expect(escapeLikePattern('50%_a\\b')).toBe('50\\%\\_a\\\\b');
  });
});
