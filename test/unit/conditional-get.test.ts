import { notModified } from '../../src/platform/http/conditional-get';

describe('If-None-Match', () => {
  const etag = 'W/"abc"';

  it.each([
    ['the same weak tag', 'W/"abc"', true],
    ['the tag as a strong one (weak comparison)', '"abc"', true],
    ['one of a list', '"x", W/"abc" , "y"', true],
    ['any tag', '*', true],
    ['another tag', 'W/"abd"', false],
    ['no header', undefined, false],
  ])('%s: %s', (_case, header, expected) => {
    expect(notModified(header, etag)).toBe(expected);
  });
});
