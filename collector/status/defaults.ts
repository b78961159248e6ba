/**
 * The status source's defaults: the source's for an option left out (tests), and the config schema's
 * (component.ts), which must not load the source to know them.
 */
import { DEFAULT_OPERATOR_DEPLOYMENT } from '../hypershift/operator-deployment.js';

export const STATUS_SOURCE_DEFAULTS = {
  loop: 'auto',
  operatorDeployment: DEFAULT_OPERATOR_DEPLOYMENT,
  loopDetectTimeoutMs: 10_000,
  emitInitial: true,
  maxTrackedObjects: 10_000,
  unmappedSampleSize: 50,
} as const;
