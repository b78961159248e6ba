/**
 * Credential redaction for the texts the log source copies out of a line (the `error` and `summary` fields).
 * The source reads only its configured fields, so a credential-bearing field of the line (`token`, `password`, …)
 * is never copied anywhere; what can still leak is a credential embedded in an error text, e.g. a wrapped client
 * error that quotes a request (`…?access_token=abc`, `Authorization: Bearer abc`, `{"password":"abc"}`).
 * Those are replaced before the text reaches records, rejections, samples, the summary or traces.
 */

export const REDACTED = '[REDACTED]';

/**
 * Keys whose values are credentials, case-insensitive: the word anywhere in the key (`access_token`, `clientSecret`,
 * `tlsCert`), or a key ending in `key` (`key`, `apiKey`, `ssh_key`).
 */
export const CREDENTIAL_KEY = /token|passw(?:or)?d|pwd|secret|authori[sz]ation|credential|cert|cookie|session|key$/i;

export function isCredentialKey(key: string): boolean {
  return CREDENTIAL_KEY.test(key);
}

// "key": "value" or "key": value, as in JSON embedded in an error text; also with escaped quotes (\"key\":\"value\").
const JSON_PAIR = /(\\?")([A-Za-z0-9_.-]+)\1(\s*:\s*)(\\?"[^"\\]*(?:\\.[^"\\]*)*?\\?"|[^\s,}\]]+)/g;
// key=value, as in query strings, env dumps and logfmt-style messages.
const EQUALS_PAIR = /(^|[^A-Za-z0-9_.-])([A-Za-z0-9_.-]+)(\s*=\s*)("[^"]*"|'[^']*'|[^\s,;&"')\]}]+)/g;
// HTTP authorization schemes wherever they appear (a header quoted in an error); as headers spell them, so that
// prose ("basic auth") is left alone.
const AUTH_SCHEME = /\b(Bearer|bearer|BEARER|Basic|BASIC)\s+[A-Za-z0-9._~+/=-]+/g;
// user:password@ in a URL.
const URL_USERINFO = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+):[^\s@/]+@/gi;

// What JSON_PAIR cannot match without: a closing quote, then a colon.
const QUOTE_COLON = /"\s*:/;

/**
 * The text with every credential value it embeds replaced by `[REDACTED]`; other text unchanged.
 * Each pattern runs only when the text holds what it cannot match without (`"…:`, `=`, `://`): most error texts
 * hold none, and the patterns, which try a match at every word, were a large share of reading a log line.
 */
export function redactText(text: string): string {
  let out = text;
  if (QUOTE_COLON.test(out)) {
    out = out.replace(JSON_PAIR, (all: string, quote: string, key: string, colon: string) =>
      isCredentialKey(key) ? `${quote}${key}${quote}${colon}${quote}${REDACTED}${quote}` : all,
    );
  }
  if (out.includes('='))
    out = out.replace(EQUALS_PAIR, (all: string, before: string, key: string, eq: string) => (isCredentialKey(key) ? `${before}${key}${eq}${REDACTED}` : all));
  out = out.replace(AUTH_SCHEME, (_all: string, scheme: string) => `${scheme} ${REDACTED}`);
  if (out.includes('://')) out = out.replace(URL_USERINFO, (_all: string, head: string) => `${head}:${REDACTED}@`);
  return out;
}
