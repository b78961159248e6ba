/**
 * A parsed YAML file that can say where things are: every validation problem in a model, a config or a task config
 * is reported as `file:line field: message`, with the line of the field (or of its nearest existing parent), and so
 * is every notice (a part of someone else's file that is not used).
 */
import { LineCounter, parseDocument, type Document } from 'yaml';

export type FieldPath = readonly (string | number)[];

const PLAIN_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** A field path as people write it (`spec.phased[7].ops[2]`); odd keys are quoted and cut so a message stays one line. */
export function fieldName(path: FieldPath): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const key = PLAIN_KEY.test(part) ? part : JSON.stringify(part.length > 64 ? `${part.slice(0, 64)}…` : part);
      out += out === '' ? key : `.${key}`;
    }
  }
  return out === '' ? '(document)' : out;
}

export class YamlSource {
  /** What makes the file unusable; the reader refuses it whole. */
  readonly problems: string[] = [];
  /** Parts of a file someone else owns that are not used. */
  readonly notices: string[] = [];
  private readonly lines = new LineCounter();
  private readonly doc: Document;
  /** The document as plain data, or undefined when it did not parse (see problems). */
  readonly value: unknown;

  constructor(
    text: string,
    readonly file: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    for (const e of this.doc.errors) this.problems.push(`${file}:${this.lines.linePos(e.pos[0]).line} (document): ${e.message.split('\n')[0]}`);
    this.value = this.doc.errors.length === 0 ? this.toValue() : undefined;
  }

  /** toJS() can still fail on a valid parse (an alias with no anchor, alias bombs): report it like a parse error. */
  private toValue(): unknown {
    try {
      return this.doc.toJS({ maxAliasCount: 100 }) as unknown;
    } catch (e) {
      this.problems.push(`${this.file}:1 (document): ${(e as Error).message.split('\n')[0]}`);
      return undefined;
    }
  }

  fail(path: FieldPath, message: string): void {
    this.problems.push(this.at(path, message));
  }

  notice(path: FieldPath, message: string): void {
    this.notices.push(this.at(path, message));
  }

  /** `file:line field: message`. */
  at(path: FieldPath, message: string): string {
    return `${this.file}:${this.lineOf(path)} ${fieldName(path)}: ${message}`;
  }

  lineOf(path: FieldPath): number {
    return this.lines.linePos(this.offsetOf(path)).line;
  }

  /** Where the field (or its nearest existing parent) starts in the text: problems sort by it into file order. */
  offsetOf(path: FieldPath): number {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, n), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return range[0];
    }
    return 0;
  }
}
