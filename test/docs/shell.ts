/**
 * Just enough of the shell to read the command lines in the docs: comments, `\` continuations, quotes, `$VAR`,
 * `$(...)`, pipes, `&&`, `;`, a trailing `&`, and `( ... )` subshells. Each line becomes a list of pipelines (or
 * subshells), each pipeline its commands, each command its words after quote removal, with what each `$(...)` ran.
 */
export interface Word {
  /** The word as the shell would pass it, with `$VAR` left as written (the caller knows the variables). */
  readonly text: string;
  /** The command lines inside each `$(...)` of the word. */
  readonly substitutions: readonly string[];
}

export interface Command {
  readonly words: readonly Word[];
}

export interface Pipeline {
  readonly kind: 'pipeline';
  /** The pipeline as written, to run it as it is. */
  readonly source: string;
  readonly commands: readonly Command[];
  /** Ended by `&`: runs in the background. */
  readonly background: boolean;
}

export interface Subshell {
  readonly kind: 'subshell';
  readonly items: readonly Item[];
}

export type Item = Pipeline | Subshell;

/** The logical lines of a shell block: continuations joined, comments and blank lines dropped. */
export function shellLines(block: string): string[] {
  const joined = block.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => stripComment(line).trim())
    .filter((line) => line !== '');
}

function stripComment(line: string): string {
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') i++;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '$' && line[i + 1] === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if (c === '#' && depth === 0 && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

type Token = { readonly op: string; readonly at: number } | { readonly word: Word; readonly at: number; readonly end: number };

function tokens(line: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const op = ['&&', '||', '|', ';', '&', '(', ')'].find((o) => line.startsWith(o, i));
    if (op && !(op === '&' && /[0-9>]/.test(line[i - 1] ?? ''))) {
      out.push({ op, at: i });
      i += op.length;
      continue;
    }
    const start = i;
    let text = '';
    const substitutions: string[] = [];
    while (i < line.length && !endsWord(line, i)) {
      const ch = line[i]!;
      if (ch === "'") {
        const close = line.indexOf("'", i + 1);
        if (close < 0) throw new Error(`unclosed ' in: ${line}`);
        text += line.slice(i + 1, close);
        i = close + 1;
      } else if (ch === '"') {
        i++;
        while (i < line.length && line[i] !== '"') {
          if (line.startsWith('$(', i)) {
            const inner = substitution(line, i);
            substitutions.push(inner);
            text += `$(${inner})`;
            i += inner.length + 3;
          } else {
            if (line[i] === '\\') i++;
            text += line[i] ?? '';
            i++;
          }
        }
        if (line[i] !== '"') throw new Error(`unclosed " in: ${line}`);
        i++;
      } else if (line.startsWith('$(', i)) {
        const inner = substitution(line, i);
        substitutions.push(inner);
        text += `$(${inner})`;
        i += inner.length + 3;
      } else {
        text += ch;
        i++;
      }
    }
    out.push({ word: { text, substitutions }, at: start, end: i });
  }
  return out;
}

/** Whether the word being read ends before `line[i]` (a `&` after `>` or a digit belongs to a redirect: `2>&1`). */
function endsWord(line: string, i: number): boolean {
  const c = line[i]!;
  return /\s/.test(c) || c === '|' || c === ';' || c === '(' || c === ')' || (c === '&' && !/[0-9>]/.test(line[i - 1] ?? ''));
}

/** The text inside `$(` at `at` up to its matching `)`. */
function substitution(line: string, at: number): string {
  let depth = 0;
  for (let i = at + 1; i < line.length; i++) {
    if (line[i] === '(') depth++;
    else if (line[i] === ')' && --depth === 0) return line.slice(at + 2, i);
  }
  throw new Error(`unclosed $( in: ${line}`);
}

/** One logical line as pipelines and subshells, in order. */
export function parseLine(line: string): Item[] {
  const toks = tokens(line);
  let pos = 0;
  const items = (closing: boolean): Item[] => {
    const out: Item[] = [];
    while (pos < toks.length) {
      const t = toks[pos]!;
      if ('op' in t) {
        if (t.op === ')') {
          if (!closing) throw new Error(`unbalanced ) in: ${line}`);
          pos++;
          return out;
        }
        if (t.op === '(') {
          pos++;
          out.push({ kind: 'subshell', items: items(true) });
          continue;
        }
        if (t.op === '&&' || t.op === ';' || t.op === '||') {
          pos++;
          continue;
        }
        if (t.op === '&') {
          const last = out.at(-1);
          if (last?.kind === 'pipeline') out[out.length - 1] = { ...last, background: true };
          pos++;
          continue;
        }
        throw new Error(`unexpected ${t.op} in: ${line}`);
      }
      out.push(pipeline());
    }
    if (closing) throw new Error(`unclosed ( in: ${line}`);
    return out;
  };
  const pipeline = (): Pipeline => {
    const commands: Command[] = [];
    let words: Word[] = [];
    const from = toks[pos]!.at;
    let to = from;
    while (pos < toks.length) {
      const t = toks[pos]!;
      if ('op' in t) {
        if (t.op !== '|') break;
        commands.push({ words });
        words = [];
        pos++;
        continue;
      }
      words.push(t.word);
      to = t.end;
      pos++;
    }
    commands.push({ words });
    return { kind: 'pipeline', source: line.slice(from, to), commands, background: false };
  };
  return items(false);
}
