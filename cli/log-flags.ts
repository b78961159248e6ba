/**
 * The `--container` flag of the commands that read `--logs`: checked beyond what its declaration can say.
 */
import { parseOperatorContainer, type OperatorContainer } from '../collector/logs/inputs.js';
import { usageProblems, type CommandSpec, type Flags } from './args.js';
import type { CommandIO } from './io.js';

/** The operator's container, or the usage exit code once the problem is printed as readArgs prints one. */
export function readContainer<F extends Flags>(spec: CommandSpec<F>, text: string, io: CommandIO): OperatorContainer | number {
  return (
    parseOperatorContainer(text) ?? usageProblems(spec, [`--container ${JSON.stringify(text)}: expected <namespace>/<container>, e.g. hypershift/operator`], io)
  );
}
