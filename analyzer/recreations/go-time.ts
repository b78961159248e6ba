/**
 * Go's `time.Format` layouts (the reference time `Mon Jan 2 15:04:05 MST 2006`), in UTC: what the adapter's
 * `{{ now | date "2006-01-02T15:04:05Z07:00" }}` templates and CEL `now()` (time.RFC3339) write.
 */
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const pad = (n: number, w: number): string => String(n).padStart(w, '0');

/** Layout tokens, longest first so `2006` wins over `2` and `January` over `Jan`. */
const TOKENS: readonly [string, (d: Date) => string][] = [
  ['January', (d) => MONTHS[d.getUTCMonth()]!],
  ['Monday', (d) => DAYS[d.getUTCDay()]!],
  ['Z07:00', () => 'Z'],
  ['-07:00', () => '+00:00'],
  ['-0700', () => '+0000'],
  ['Z0700', () => 'Z'],
  ['2006', (d) => pad(d.getUTCFullYear(), 4)],
  ['.000000000', (d) => `.${pad(d.getUTCMilliseconds(), 3)}000000`],
  ['.000000', (d) => `.${pad(d.getUTCMilliseconds(), 3)}000`],
  ['.000', (d) => `.${pad(d.getUTCMilliseconds(), 3)}`],
  ['.999999999', (d) => (d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '')}` : '')],
  ['.999', (d) => (d.getUTCMilliseconds() ? `.${pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '')}` : '')],
  ['Jan', (d) => MONTHS[d.getUTCMonth()]!.slice(0, 3)],
  ['Mon', (d) => DAYS[d.getUTCDay()]!.slice(0, 3)],
  ['MST', () => 'UTC'],
  ['002', (d) => pad(Math.floor((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1, 3)],
  ['01', (d) => pad(d.getUTCMonth() + 1, 2)],
  ['02', (d) => pad(d.getUTCDate(), 2)],
  ['_2', (d) => String(d.getUTCDate()).padStart(2, ' ')],
  ['06', (d) => pad(d.getUTCFullYear() % 100, 2)],
  ['15', (d) => pad(d.getUTCHours(), 2)],
  ['03', (d) => pad(d.getUTCHours() % 12 || 12, 2)],
  ['04', (d) => pad(d.getUTCMinutes(), 2)],
  ['05', (d) => pad(d.getUTCSeconds(), 2)],
  ['PM', (d) => (d.getUTCHours() >= 12 ? 'PM' : 'AM')],
  ['pm', (d) => (d.getUTCHours() >= 12 ? 'pm' : 'am')],
  ['1', (d) => String(d.getUTCMonth() + 1)],
  ['2', (d) => String(d.getUTCDate())],
  ['3', (d) => String(d.getUTCHours() % 12 || 12)],
  ['4', (d) => String(d.getUTCMinutes())],
  ['5', (d) => String(d.getUTCSeconds())],
];

export function formatGoTime(layout: string, d: Date): string {
  let out = '';
  let i = 0;
  outer: while (i < layout.length) {
    for (const [token, fmt] of TOKENS) {
      if (layout.startsWith(token, i)) {
        out += fmt(d);
        i += token.length;
        continue outer;
      }
    }
    out += layout[i++];
  }
  return out;
}

/** time.RFC3339 in UTC, as the adapter's CEL `now()` returns it (seconds, no fraction). */
export function rfc3339(d: Date): string {
  return formatGoTime('2006-01-02T15:04:05Z07:00', d);
}
