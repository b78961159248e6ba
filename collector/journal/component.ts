/** `sources.journal`: a recorded journal (collector/journal/format.ts's format), replayed once. */
import type { SourceComponent } from '../component.js';
import { REFUSED_BY_ANALYZER } from '../records.js';

const schema = {
  kind: 'object',
  doc: 'replay a recorded journal once',
  fields: {
    path: { kind: 'string', required: true, doc: 'the journal file (JSON Lines, one attempt per line)' },
  },
} as const;

export const journal: SourceComponent<typeof schema> = {
  kind: 'journal',
  title: 'a recorded journal, replayed once',
  schema,
  reasons: ['invalid_json', 'invalid_record', 'line_too_long', 'too_many_operations', ...REFUSED_BY_ANALYZER],
  async create(config, sinks, hooks) {
    const { JournalSource } = await import('./source.js');
    return new JournalSource({ path: config.path }, sinks.attempts, hooks);
  },
};
