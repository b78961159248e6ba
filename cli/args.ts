/**
 * The one way every command declares and reads its arguments. A command's flags are declared once, each with its type,
 * default, accepted values and help text; parsing, every check, the usage line and `--help` all come from that
 * declaration, so what a command accepts and what its help says cannot differ.
 *
 * A flag is `--name value` or `--name=value`; a boolean flag is `--name` alone. `-h`/`--help` anywhere prints the help.
 * Every problem names the flag and the value and says what is accepted; all of them are reported at once.
 */
import { parseDuration } from '../lib/duration.js';
import { EXIT, EXIT_MEANINGS, type ExitName } from './io.js';

interface FlagBase {
  /** What the flag does, for `--help`: a sentence or two, without the default (that is added). */
  readonly help: string;
  /** Meaningful only together with this other flag: given without it, the flag is refused. */
  readonly with?: string;
}

export interface StringFlag extends FlagBase {
  readonly type: 'string';
  /** How the value is written in usage and help, e.g. `<file|->`. */
  readonly value: string;
  readonly default?: string;
  readonly required?: boolean;
}

export interface ChoiceFlag extends FlagBase {
  readonly type: 'choice';
  readonly choices: readonly string[];
  readonly default?: string;
}

export interface IntegerFlag extends FlagBase {
  readonly type: 'integer';
  readonly value: string;
  readonly default?: number;
  readonly min?: number;
}

/** A positive duration as people write it (`90s`, `10m`, `24h`, `1h30m`); the value read is in milliseconds. */
export interface DurationFlag extends FlagBase {
  readonly type: 'duration';
  readonly default?: string;
}

export interface BooleanFlag extends FlagBase {
  readonly type: 'boolean';
}

/** A string flag that may be repeated; the value read is every occurrence, in order. */
export interface ListFlag extends FlagBase {
  readonly type: 'list';
  readonly value: string;
  readonly required?: boolean;
}

export type Flag = StringFlag | ChoiceFlag | IntegerFlag | DurationFlag | BooleanFlag | ListFlag;
export type Flags = Readonly<Record<string, Flag>>;

/** Arguments that are not flags, e.g. `merge a.json b.json`. Without this declaration a command takes none. */
export interface Positionals {
  readonly value: string;
  readonly help: string;
  readonly min: number;
}

export interface CommandSpec<F extends Flags = Flags> {
  readonly name: string;
  /** One line, for the list of commands. */
  readonly summary: string;
  /** What the command does, for its `--help`. */
  readonly about: string;
  readonly flags: F;
  /** Groups of flags of which exactly one must be given (e.g. one input: `--journal` or `--logs`). */
  readonly oneOf?: readonly (readonly (keyof F & string)[])[];
  readonly positionals?: Positionals;
  /** Complete command lines a reader can copy; a test parses each one. */
  readonly examples: readonly string[];
  readonly exitCodes: readonly ExitName[];
}

type Given<F, T> = F extends { readonly default: unknown } | { readonly required: true } ? T : T | undefined;
type ValueOf<F extends Flag> = F extends { readonly type: 'boolean' }
  ? boolean
  : F extends { readonly type: 'list' }
    ? string[]
    : F extends { readonly type: 'choice'; readonly choices: readonly (infer C)[] }
      ? Given<F, C>
      : F extends { readonly type: 'integer' | 'duration' }
        ? Given<F, number>
        : Given<F, string>;

/** What a command reads from its arguments, typed from its declaration. */
export type Values<F extends Flags> = { readonly [K in keyof F]: ValueOf<F[K]> };

export type Parsed<F extends Flags> = { readonly help: true } | { readonly help: false; readonly values: Values<F>; readonly positionals: readonly string[] };

/** Arguments a command cannot run with; `problems` each name a flag or argument. */
export class UsageError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'UsageError';
  }
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h';

/** Reads `argv` against the declaration; throws a UsageError listing every problem. */
export function parseCommandArgs<F extends Flags>(spec: CommandSpec<F>, argv: readonly string[]): Parsed<F> {
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some(isHelp)) return { help: true };
  const problems: string[] = [];
  const raw = new Map<string, string[]>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      if (arg.startsWith('-') && arg !== '-') problems.push(`unknown flag ${arg}`);
      else positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const flag = spec.flags[name];
    if (!flag) {
      problems.push(`unknown flag --${name}${suggestion(name, Object.keys(spec.flags))}`);
      continue;
    }
    let value: string;
    if (flag.type === 'boolean') {
      if (eq >= 0) problems.push(`--${name} takes no value (got ${JSON.stringify(arg.slice(eq + 1))})`);
      value = 'true';
    } else if (eq >= 0) value = arg.slice(eq + 1);
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) {
        problems.push(`--${name} needs a value: ${placeholder(flag)}`);
        continue;
      }
      value = next;
      i++;
    }
    const seen = raw.get(name);
    if (seen && flag.type !== 'list') problems.push(`--${name} is given twice (${seen[0]} and ${value}); give it once`);
    else raw.set(name, [...(seen ?? []), value]);
  }

  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(spec.flags)) {
    const given = raw.get(name);
    if (given === undefined) {
      if ((flag.type === 'string' || flag.type === 'list') && flag.required) problems.push(`--${name} ${placeholder(flag)} is required: ${flag.help}`);
      values[name] = defaultValue(flag);
      continue;
    }
    if (flag.with !== undefined && !raw.has(flag.with)) problems.push(`--${name} applies only together with --${flag.with}`);
    const read = readValue(name, flag, given);
    if ('problem' in read) problems.push(read.problem);
    else values[name] = read.value;
  }
  for (const group of spec.oneOf ?? []) {
    const present = group.filter((name) => raw.has(name));
    if (present.length !== 1) {
      const names = group.map((n) => `--${n}`);
      problems.push(
        present.length === 0
          ? `give one of ${names.join(' or ')}`
          : `give only one of ${names.join(' or ')} (got ${present.map((n) => `--${n}`).join(' and ')})`,
      );
    }
  }
  if (!spec.positionals && positionals.length > 0) problems.push(`unexpected argument ${JSON.stringify(positionals[0])}: ${spec.name} takes only flags`);
  if (spec.positionals && positionals.length < spec.positionals.min)
    problems.push(`needs at least ${spec.positionals.min} ${spec.positionals.value} argument(s), got ${positionals.length}`);
  if (problems.length > 0) throw new UsageError(problems);
  return { help: false, values: values as Values<F>, positionals };
}

function defaultValue(flag: Flag): unknown {
  switch (flag.type) {
    case 'boolean':
      return false;
    case 'list':
      return [];
    case 'duration':
      return flag.default === undefined ? undefined : parseDuration(flag.default);
    default:
      return flag.default;
  }
}

type Read = { readonly value: unknown } | { readonly problem: string };

function readValue(name: string, flag: Flag, given: readonly string[]): Read {
  const text = given[0]!;
  const bad = (expected: string): Read => ({ problem: `--${name} ${JSON.stringify(text)}: expected ${expected}` });
  switch (flag.type) {
    case 'boolean':
      return { value: true };
    case 'list':
      return { value: [...given] };
    case 'string':
      return text === '' ? bad(placeholder(flag)) : { value: text };
    case 'choice':
      return flag.choices.includes(text) ? { value: text } : bad(`one of ${flag.choices.join(', ')}`);
    case 'integer': {
      const n = Number(text);
      if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(n) || n < (flag.min ?? Number.MIN_SAFE_INTEGER)) {
        return bad(flag.min === undefined ? 'a whole number' : `a whole number of at least ${flag.min}`);
      }
      return { value: n };
    }
    case 'duration': {
      const ms = parseDuration(text);
      return ms === undefined || ms <= 0 ? bad('a duration such as 90s, 10m, 24h or 1h30m (units ms, s, m, h, d)') : { value: ms };
    }
  }
}

/** ` (did you mean --format?)` when a declared flag is one edit or a prefix away. */
function suggestion(name: string, known: readonly string[]): string {
  const close = known.find((k) => k.startsWith(name) || name.startsWith(k) || editDistanceAtMostOne(k, name));
  return close === undefined ? '' : ` (did you mean --${close}?)`;
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

function placeholder(flag: Flag): string {
  switch (flag.type) {
    case 'boolean':
      return '';
    case 'choice':
      return flag.choices.join('|');
    case 'duration':
      return '<duration>';
    default:
      return flag.value;
  }
}

const PROGRAM = 'reconcile-shadow';

/** `reconcile-shadow analyze --model <name|file> (--journal <file|-> | --logs <file|->) [--format table|…] …` */
export function usageLine<F extends Flags>(spec: CommandSpec<F>): string {
  const parts: string[] = [];
  const grouped = new Set((spec.oneOf ?? []).flat());
  const shown = new Set<string>();
  const form = (name: string, flag: Flag): string =>
    flag.type === 'boolean' ? `--${name}` : `--${name} ${placeholder(flag)}${flag.type === 'list' && (flag.required || grouped.has(name)) ? '...' : ''}`;
  for (const [name, flag] of Object.entries(spec.flags)) {
    if (grouped.has(name)) {
      const group = spec.oneOf!.find((g) => g.includes(name))!;
      if (!shown.has(group[0]!)) parts.push(`(${group.map((n) => form(n, spec.flags[n]!)).join(' | ')})`);
      shown.add(group[0]!);
    } else if ((flag.type === 'string' || flag.type === 'list') && flag.required) parts.push(form(name, flag));
    else parts.push(`[${form(name, flag)}]${flag.type === 'list' ? '...' : ''}`);
  }
  if (spec.positionals) parts.push(`${spec.positionals.value}...`);
  return [PROGRAM, spec.name, ...parts].join(' ');
}

const WIDTH = 100;

/** `text` wrapped at WIDTH columns, every line after the first indented by `indent`. */
function wrap(text: string, indent: number, first = indent): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const room = WIDTH - (lines.length === 0 ? first : indent);
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

function flagHelp(flag: Flag): string {
  const notes: string[] = [];
  if ((flag.type === 'string' || flag.type === 'list') && flag.required) notes.push('required');
  if ('default' in flag && flag.default !== undefined) notes.push(`default: ${String(flag.default)}`);
  if (flag.with !== undefined) notes.push(`with --${flag.with} only`);
  if (flag.type === 'list') notes.push('repeatable');
  return notes.length === 0 ? flag.help : `${flag.help} (${notes.join('; ')})`;
}

/** The command's `--help`: what it does, its usage, every flag with its default, examples and exit codes. */
export function helpText<F extends Flags>(spec: CommandSpec<F>): string {
  const rows: [string, string][] = Object.entries(spec.flags).map(([name, flag]) => [
    `--${name}${flag.type === 'boolean' ? '' : ` ${placeholder(flag)}`}`,
    flagHelp(flag),
  ]);
  if (spec.positionals) rows.unshift([spec.positionals.value, spec.positionals.help]);
  rows.push(['-h, --help', 'print this help']);
  const column = Math.min(30, Math.max(...rows.map(([label]) => label.length)) + 2);
  const row = ([label, help]: [string, string]): string =>
    label.length + 2 > column ? `  ${label}\n${' '.repeat(column + 2)}${wrap(help, column + 2)}` : `  ${label.padEnd(column)}${wrap(help, column + 2)}`;
  return [
    `${PROGRAM} ${spec.name}: ${spec.summary}`,
    '',
    `usage: ${usageLine(spec)}`,
    '',
    wrap(spec.about, 0),
    '',
    'flags:',
    ...rows.map(row),
    '',
    'examples:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
    'exit codes:',
    ...spec.exitCodes.map((name) => `  ${EXIT[name]}  ${EXIT_MEANINGS[name]}`),
    '',
  ].join('\n');
}

export interface ArgsIO {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
}

/**
 * Parses a command's arguments the way every command does: `--help` prints the help (exit 0); a problem prints each
 * problem, the usage line and where the help is (exit 2). Otherwise the values, for the command to run with.
 */
export function readArgs<F extends Flags>(
  spec: CommandSpec<F>,
  argv: readonly string[],
  io: ArgsIO,
): { values: Values<F>; positionals: readonly string[] } | number {
  try {
    const parsed = parseCommandArgs(spec, argv);
    if (!parsed.help) return parsed;
    io.stdout.write(helpText(spec));
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    return usageProblems(spec, e.problems, io);
  }
}

/**
 * Prints problems with a command's arguments as readArgs does (each problem, the usage line, where the help is) and
 * returns the usage exit code: for a command that checks a value further than its declaration can (`--shard i/n`).
 */
export function usageProblems<F extends Flags>(spec: CommandSpec<F>, problems: readonly string[], io: ArgsIO): number {
  io.stderr.write(
    `${problems.map((p) => `${PROGRAM} ${spec.name}: ${p}`).join('\n')}\nusage: ${usageLine(spec)}\n(${PROGRAM} ${spec.name} --help describes every flag)\n`,
  );
  return EXIT.usage;
}
