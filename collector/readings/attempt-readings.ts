/**
 * Readings of attempts' texts, remembered so that an attempt is not read from scratch (AttemptBuilder.reading):
 * - the same texts read the same: a reading is kept by its texts (most attempts write one of a few texts);
 * - texts that differ only in their messages' wording read alike: what a reading states depends on which formats
 *   each message matches, which messages are the same text, and the rest of the texts' structure, never on the
 *   words a message wraps (`failed to get pull secret: <any cause>`). So a reading is also kept by that *shape*, and
 *   new texts of a known shape take its reading with their own messages put in where the first texts' messages were
 *   (a record's error text, an unmapped message). A log of thousands of distinct error texts has a few dozen shapes.
 * - each loop is read only when asked: an attempt of a configured loop needs the other loop's reading only when its
 *   own does not fit its texts.
 */
import type { LoopKind } from '../../model/types.js';
import type { OperationRecord } from '../records.js';
import type { AttemptTexts, BuiltAttempt, Interpretation } from './types.js';

/** An attempt's texts, taken apart once, read under either loop on first use. */
export interface AttemptReading {
  readonly interpretation: Interpretation;
  under(loop: LoopKind): BuiltAttempt;
}

/** What the builder does for a reading: read an interpretation under a loop. */
export type BuildUnder = (loop: LoopKind, i: Interpretation) => BuiltAttempt;

/** The first texts of a shape: read as they are. */
export class ShapeReading implements AttemptReading {
  private sequential: BuiltAttempt | undefined;
  private phased: BuiltAttempt | undefined;

  constructor(
    readonly interpretation: Interpretation,
    private readonly build: BuildUnder,
  ) {}

  under(loop: LoopKind): BuiltAttempt {
    if (loop === 'sequential') return (this.sequential ??= this.build('sequential', this.interpretation));
    return (this.phased ??= this.build('phased', this.interpretation));
  }
}

/** Later texts of a shape: its first texts' reading, with these texts' messages in place of those. */
export class SubstitutedReading implements AttemptReading {
  private sequential: BuiltAttempt | undefined;
  private phased: BuiltAttempt | undefined;

  constructor(
    readonly interpretation: Interpretation,
    private readonly shape: ShapeReading,
    private readonly build: BuildUnder,
  ) {}

  under(loop: LoopKind): BuiltAttempt {
    if (loop === 'sequential') return (this.sequential ??= this.substituted('sequential'));
    return (this.phased ??= this.substituted('phased'));
  }

  private substituted(loop: LoopKind): BuiltAttempt {
    const from = messagesOf(this.shape.interpretation);
    const to = messagesOf(this.interpretation);
    const words = new Map<string, string>();
    for (let k = 0; k < from.length; k++) words.set(from[k]!, to[k]!);
    const base = this.shape.under(loop);
    let operations: OperationRecord[] | undefined = base.operations;
    if (base.operations.some((r) => r.error !== undefined)) {
      operations = [];
      for (const r of base.operations) {
        const error = r.error === undefined ? undefined : words.get(r.error);
        if (r.error !== undefined && error === undefined) return this.build(loop, this.interpretation);
        operations.push(error === undefined ? r : { ...r, error });
      }
    }
    const unmapped = [];
    for (const u of base.unmapped) {
      const message = words.get(u.message);
      if (message === undefined) return this.build(loop, this.interpretation);
      unmapped.push({ ...u, message });
    }
    return { ...base, operations, unmapped };
  }
}

/**
 * Every text of an interpretation that a reading may copy into what it states, in a fixed order: the messages of the
 * error, then the errors of the progress lines.
 */
export function messagesOf(i: Interpretation): string[] {
  const out = i.elements.map((e) => e.message);
  for (const p of i.texts.progress ?? []) if (p.error !== undefined) out.push(p.error);
  return out;
}

/**
 * Texts as a key, unambiguous (each part with its length) and cheap to make: a JSON text of them was a visible share
 * of the time of reading a log line.
 */
export function textsKey(t: AttemptTexts): string {
  let key = `${t.success ? 'S' : 's'}${t.incomplete === true ? 'I' : 'i'}${part(t.summary)}${part(t.error)}`;
  if (t.errorCauses) {
    key += `c${t.errorCauses.length}`;
    for (const c of t.errorCauses) key += part(c);
  }
  if (t.progress) {
    key += `p${t.progress.length}`;
    for (const p of t.progress) key += `${part(p.op)}${p.outcome}${part(p.error)}`;
  }
  return key;
}

function part(text: string | undefined): string {
  return text === undefined ? '~' : `${text.length}:${text}`;
}
