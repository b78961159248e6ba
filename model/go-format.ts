/**
 * Go format strings as patterns: which error texts a `fmt.Errorf` format can produce. Verbs (%w %v %s %q %d and
 * friends) match any text, `%%` a percent sign; the whole text must match, from its start.
 */

/** A verb with its flags, width and precision, or `%%`. */
export const GO_VERB = /%(?:%|[-+# 0]*\d*(?:\.\d+)?[wvsqdxXtTfegp])/g;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** An anchored pattern matching every text `format` can produce (and, verbs being any text, a few more). */
export function goFormatPattern(format: string): RegExp {
  let source = '^';
  let last = 0;
  for (const m of format.matchAll(GO_VERB)) {
    source += escapeRegex(format.slice(last, m.index)) + (m[0] === '%%' ? '%' : '[\\s\\S]*?');
    last = m.index + m[0].length;
  }
  return new RegExp(source + escapeRegex(format.slice(last)) + '$');
}
