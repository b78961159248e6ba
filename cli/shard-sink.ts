/**
 * One shard's view of a source that must read the whole input to make sense of it (a log: its attempts span lines,
 * and what it knows about the loop comes from lines of no object). The source runs whole in every shard; each
 * shard passes on only its own objects' attempts, and the source's own books (what it received, rejected and kept
 * as its input summary) go to shard 0 alone, so that merged shards count each of them once.
 */
import type { AttemptRecord, RecordSink, Rejection, SourceInputSummary, SourceKind } from '../collector/records.js';
import { objectHash, ownsHash, type Shard } from '../collector/input/shard.js';

export class ShardSink implements RecordSink {
  private rank = 0;

  constructor(
    private readonly inner: RecordSink,
    private readonly shard: Shard,
  ) {}

  /** The rank of the source's latest output (attempts and rejections, counted in every shard alike). */
  get position(): number {
    return this.rank;
  }

  private get keepsBooks(): boolean {
    return this.shard.index === 0;
  }

  attempt(record: AttemptRecord): void {
    this.rank++;
    if (ownsHash(this.shard, objectHash(record.controller, record.object))) this.inner.attempt(record);
  }

  reject(rejection: Rejection): void {
    this.rank++;
    if (this.keepsBooks) this.inner.reject(rejection);
  }

  received(source: SourceKind, count: number): void {
    if (this.keepsBooks) this.inner.received?.(source, count);
  }

  inputSummary(source: SourceKind, summary: () => SourceInputSummary): void {
    if (this.keepsBooks) this.inner.inputSummary?.(source, summary);
  }
}
