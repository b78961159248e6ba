/**
 * The outputs of a pipeline (metrics, traces, a writer) as listeners, each called in turn and each guarded: a
 * listener that throws is reported to `failed` and never keeps the next listener, or the pipeline, from going on.
 * Both pipelines use it: analyzed attempts (Analyzer) and recreation observations (RecreationAnalyzer).
 */

/** The methods of a listener interface whose events `emit` can send. */
type Events<L> = { [K in keyof L]-?: NonNullable<L[K]> extends (...args: never[]) => void ? K : never }[keyof L];
type Args<L, K extends keyof L> = NonNullable<L[K]> extends (...args: infer A) => void ? A : never;

export class Listeners<L extends object> {
  private readonly list: L[] = [];

  /** @param failed a listener threw: count it, log it; the other listeners still hear the event. */
  constructor(private readonly failed: (error: unknown) => void) {}

  add(listener: L): void {
    this.list.push(listener);
  }

  emit<K extends Events<L>>(event: K, ...args: Args<L, K>): void {
    for (const listener of this.list) {
      const method = listener[event] as ((...a: Args<L, K>) => void) | undefined;
      if (!method) continue;
      try {
        method.apply(listener, args);
      } catch (e) {
        this.failed(e);
      }
    }
  }
}
