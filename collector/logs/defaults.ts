/**
 * The log source's defaults: the source's for an option left out (the CLI, tests), and the config schema's
 * (component.ts), which must not load the source to know them.
 */
import { DEFAULT_MAX_LINE_BYTES } from '../input/lines.js';
import { HYPERSHIFT_OPERATOR_CONTAINER } from './inputs.js';
import { DEFAULT_SAMPLING_THRESHOLD } from './internal/sampling.js';

export const LOG_SOURCE_DEFAULTS = {
  loop: 'auto',
  loopDetectTimeoutMs: 10_000,
  maxUndecided: 10_000,
  maxLineBytes: DEFAULT_MAX_LINE_BYTES,
  samplingThreshold: DEFAULT_SAMPLING_THRESHOLD,
  maxPending: 10_000,
  unmappedSampleSize: 50,
  quietFlushMs: 3000,
  pollIntervalMs: 1000,
  fileStartAt: 'beginning',
  fileWatch: true,
  podBackoffInitialMs: 1000,
  podBackoffMaxMs: 30_000,
  /** The operator's container in the sidecar's own pod: HyperShift's name for it. */
  podContainer: HYPERSHIFT_OPERATOR_CONTAINER.container,
} as const;
