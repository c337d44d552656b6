/**
 * Whether a GET may be answered 304 Not Modified: the request's If-None-Match names the current
 * representation's entity tag, by weak comparison (RFC 9110 §13.1.2), or is `*`.
 */
export function notModified(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) {
    return false;
  }
  const opaque = (tag: string): string => tag.trim().replace(/^W\//, '');
  const current = opaque(etag);
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === current);
}
