/**
 * The metric names a PromQL expression (or a Grafana query holding one) reads. A small tokenizer, not a full
 * parser: strings, label matchers, ranges, numbers and Grafana variables are skipped; an identifier is a metric
 * name unless it is a keyword, calls a function, or names labels in a `by (...)`-style list.
 */

const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'atan2', 'inf', 'nan']);
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile']);
/** Keywords followed by a parenthesised list of label names. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

type Token = { readonly kind: 'ident'; readonly text: string } | { readonly kind: 'punct'; readonly text: string };

function tokens(expr: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i);
    } else if (c === '{' || c === '[') {
      // Label matchers and ranges hold no metric names (their strings were the only values).
      i = skipBalanced(expr, i, c, c === '{' ? '}' : ']');
    } else if (c === '$') {
      const m = /^\$(\{[^}]*\}|\w+)/.exec(expr.slice(i));
      i += m ? m[0].length : 1;
    } else if (/[0-9.]/.test(c)) {
      // Numbers, hex, exponents and durations (`15m`, `1h30m`), so their units never read as names.
      const m = /^(0[xX][0-9a-fA-F]+|(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?(ms|[smhdwy])?(\d+(ms|[smhdwy]))*)/.exec(expr.slice(i))!;
      i += m[0].length;
    } else if (/[a-zA-Z_:]/.test(c)) {
      const m = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(expr.slice(i))!;
      out.push({ kind: 'ident', text: m[0] });
      i += m[0].length;
    } else {
      out.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return out;
}

function skipString(expr: string, start: number): number {
  const quote = expr[start];
  let i = start + 1;
  while (i < expr.length && expr[i] !== quote) i += expr[i] === '\\' && quote !== '`' ? 2 : 1;
  if (i >= expr.length) throw new Error(`unterminated string in: ${expr}`);
  return i + 1;
}

function skipBalanced(expr: string, start: number, open: string, close: string): number {
  let depth = 0;
  for (let i = start; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === '"' || c === "'" || c === '`') {
      i = skipString(expr, i) - 1;
    } else if (c === open) {
      depth++;
    } else if (c === close && --depth === 0) {
      return i + 1;
    }
  }
  throw new Error(`unbalanced ${open} in: ${expr}`);
}

export function metricNames(expr: string): string[] {
  const toks = tokens(expr);
  const names = new Set<string>();
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i]!;
    if (t.kind !== 'ident') continue;
    const next = toks[i + 1];
    if (LABEL_LISTS.has(t.text) && next?.text === '(') {
      while (i < toks.length && toks[i]!.text !== ')') i++;
      continue;
    }
    if (KEYWORDS.has(t.text) || AGGREGATIONS.has(t.text) || next?.text === '(') continue;
    names.add(t.text);
  }
  return [...names].sort();
}

/**
 * Every metric selector of an expression: the metric and the text between its braces ('' without braces), in
 * order of appearance. Names that are not metrics (functions, keywords, label lists) are skipped as in metricNames.
 */
export function metricSelectors(expr: string): { readonly metric: string; readonly matchers: string }[] {
  const names = new Set(metricNames(expr));
  const out: { metric: string; matchers: string }[] = [];
  const re = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;
  for (let m = re.exec(expr); m; m = re.exec(expr)) {
    if (!names.has(m[0]) || /[\w"$]/.test(expr[m.index - 1] ?? ' ')) continue;
    const after = m.index + m[0].length;
    if (expr[after] === '{') {
      const end = skipBalanced(expr, after, '{', '}');
      out.push({ metric: m[0], matchers: expr.slice(after + 1, end - 1) });
      re.lastIndex = end;
    } else {
      out.push({ metric: m[0], matchers: '' });
    }
  }
  return out;
}

/** A Grafana `label_values(<series>, <label>)` variable query: the series part is PromQL, the label is not. */
export function variableQueryMetricNames(query: string): string[] {
  const m = /^label_values\((.*),\s*\w+\s*\)$/.exec(query.trim());
  return metricNames(m ? m[1]! : query);
}
