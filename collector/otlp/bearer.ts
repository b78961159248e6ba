/** `Authorization: Bearer <token>`, checked in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** A check of an `authorization` header against `token`. */
export function bearerTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const m = /^Bearer +(.+)$/i.exec(authorization ?? '');
    // digests have equal lengths, so the comparison takes the same time whatever was sent
    return m !== null && timingSafeEqual(digest(m[1]!), expected);
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
