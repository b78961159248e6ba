/**
 * The one error for a file people write that cannot be used: the sidecar config, a model, an adapter task config, a
 * thresholds file. It carries every problem found, each `file:line field: message`, so one run shows them all.
 */

/** What the file is, for the line a command prints before the problems (`invalid model:`). */
export type FileKind = 'config' | 'model' | 'adapter task config' | 'adapter config' | 'recreation proposals' | 'adapter dry-run input' | 'thresholds';

export class ValidationError extends Error {
  constructor(
    readonly kind: FileKind,
    readonly problems: readonly string[],
  ) {
    super(problems.join('\n'));
    this.name = 'ValidationError';
  }
}
