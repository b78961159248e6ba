/**
 * The one error for a file that cannot be used: one people write (the sidecar config, a model, an adapter task config,
 * a thresholds file) or one a run wrote and another reads (a partial summary). It carries every problem found, each
 * `file:line field: message`, so one run shows them all.
 */

/** What the file is, for the line a command prints before the problems (`invalid model:`). */
export type FileKind =
  'config' | 'model' | 'adapter task config' | 'adapter config' | 'recreation proposals' | 'adapter dry-run input' | 'thresholds' | 'partial summary';

export class ValidationError extends Error {
  constructor(
    readonly kind: FileKind,
    readonly problems: readonly string[],
  ) {
    super(problems.join('\n'));
    this.name = 'ValidationError';
  }
}
