/**
 * One shard of `analyze`/`report`: reads the journal (skipping other shards' lines unparsed) or the log (whole, keeping
 * its shard's attempts), analyses its objects, and returns its partial summary (analyzer/partial) with the rejections
 * to echo on stderr, each with its position in the input so that shards' echoes interleave as one run's would.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { Analyzer } from '../analyzer/analyzer.js';
import { DecisionEvidence } from '../analyzer/decisions/evidence.js';
import { partialOf, RejectionSampler } from '../analyzer/partial/collect.js';
import type { InputPart, PartialState } from '../analyzer/partial/format.js';
import { journalLines, readJournal } from '../collector/journal/reader.js';
import { JournalRouter } from '../collector/journal/shard-lines.js';
import { LineSplitter } from '../collector/input/lines.js';
import { inputName, type OperatorContainer } from '../collector/logs/inputs.js';
import { ShardSink } from './shard-sink.js';
import { WHOLE, type Shard } from '../collector/input/shard.js';
import type { LoopSetting, ReconcileModel } from '../model/types.js';
import { MAX_REJECTIONS_PRINTED, type CommandIO } from './io.js';

export type InputSpec =
  | { readonly kind: 'journal'; readonly file: string }
  | { readonly kind: 'logs'; readonly files: readonly string[]; readonly loop: LoopSetting; readonly container: OperatorContainer };

/** What a shard is to do: plain data, so that it can be handed to a worker. */
export interface ShardSpec {
  readonly model: ReconcileModel;
  readonly input: InputSpec;
  readonly shard: Shard;
  /** Of the shard's objects, this worker's (a journal's objects are taken by the workers in turn). */
  readonly worker?: Shard;
  /** Collect the decisions' evidence too (report, and every published partial). */
  readonly evidence: boolean;
}

export interface EchoedRejection {
  readonly position: number;
  readonly line: string;
}

export interface ShardOutcome {
  readonly partial: PartialState;
  /** The shard's first MAX_REJECTIONS_PRINTED rejections, as `where: reason: message`. */
  readonly echoed: readonly EchoedRejection[];
}

/** The analysis of one shard's records, and where in the input the one being analysed came (for its rejections). */
export class ShardAnalysis {
  readonly analyzer: Analyzer;
  private readonly evidence: DecisionEvidence | undefined;
  private readonly sampler: RejectionSampler;
  private readonly echoed: EchoedRejection[] = [];
  /** The journal line being analysed. */
  line = 0;
  /** Where the record being analysed came: the journal's line, or the rank of the log source's output (cli/shard-sink.ts). */
  position = (): number => this.line;

  constructor(model: ReconcileModel, file: string, evidence: boolean) {
    this.analyzer = new Analyzer([model]);
    this.evidence = evidence ? new DecisionEvidence() : undefined;
    if (this.evidence) this.analyzer.listen(this.evidence);
    this.sampler = new RejectionSampler(file, () => this.position());
    this.analyzer.listen(this.sampler);
    this.analyzer.listen({
      reject: (r) =>
        void (this.echoed.length < MAX_REJECTIONS_PRINTED && this.echoed.push({ position: this.position(), line: `${r.where}: ${r.reason}: ${r.message}` })),
    });
  }

  outcome(input: InputPart): ShardOutcome {
    return { partial: partialOf(this.analyzer, this.evidence, input, this.sampler), echoed: this.echoed };
  }
}

const CHUNK_BYTES = 1 << 20;

/**
 * A file's bytes, read in chunks into one buffer: each chunk is valid until the next is asked for, which a LineSplitter
 * allows (it copies the part of a line it keeps). Every worker reads the whole journal and skips most of it, so the
 * reading is most of what skipping costs: a stream's fresh 1 MiB buffer per chunk, read on libuv's threads and handed
 * over through the event loop, cost several times what these reads do (bench/README.md, the workers row). A shard
 * is all its thread does, so reading synchronously blocks nothing.
 */
export function* fileChunks(file: string): Generator<Buffer> {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    for (;;) {
      const read = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (read === 0) return;
      yield buffer.subarray(0, read);
    }
  } finally {
    closeSync(fd);
  }
}

/** Runs one shard in this thread; `io.stdin` is read for the file `-`. Throws when the input cannot be read. */
export async function runShard(spec: ShardSpec, io: CommandIO): Promise<ShardOutcome> {
  const file = spec.input.kind === 'journal' ? spec.input.file : inputName(spec.input.files);
  const shard = new ShardAnalysis(spec.model, file, spec.evidence);
  if (spec.input.kind === 'journal') {
    const router = new JournalRouter(spec.shard, spec.worker);
    const options = {
      file,
      knownOperations: shard.analyzer.controllers[0]!.knownOperations,
      knownControllers: new Set([spec.model.controller]),
      owns: (lineNo: number, bytes: Buffer | undefined) => {
        shard.line = lineNo;
        return router.owns(lineNo, bytes);
      },
    };
    if (file === '-') await readJournal(io.stdin, shard.analyzer, options);
    else {
      const splitter = new LineSplitter(journalLines(shard.analyzer, options));
      for (const chunk of fileChunks(file)) splitter.push(chunk);
      splitter.end();
    }
  } else {
    if ((spec.worker ?? WHOLE).count > 1) throw new Error('a log is read by one worker');
    const sink = new ShardSink(shard.analyzer, spec.shard);
    shard.position = () => sink.position;
    // Loaded only for a log: the log source's modules are slow to load (the Kubernetes client among them), which a
    // worker reading a journal would pay for nothing.
    const { readLogInto } = await import('./log-input.js');
    await readLogInto(sink, { files: spec.input.files, model: spec.model, loop: spec.input.loop, container: spec.input.container }, io);
  }
  return shard.outcome({ kind: spec.input.kind, name: file, shards: { count: spec.shard.count, indices: [spec.shard.index] } });
}
