/**
 * The observation journal: JSON Lines, one observation per line, in time order (a public contract).
 *   {"time","type":"object","event":"ADDED|MODIFIED|DELETED","object":{...the Kubernetes object...}}
 *   {"time","type":"cluster","cluster":{"id","kind","generation","deleted_time","status":{"conditions":[...]}}}
 * A bad line becomes a Rejection naming `file:line` and the field; it never stops the reading.
 */
import { isRecord } from '../../lib/is-record.js';
import type { Rejection } from '../records.js';
import {
  OBJECT_EVENTS,
  ObservationProblem,
  toHyperFleetResource,
  toManagedObject,
  type Observation,
  type ObjectEvent,
  type ObservationSource,
} from './observation.js';

export type ParsedObservation = { ok: true; observation: Observation } | { ok: false; rejection: Rejection };

export function parseObservationLine(text: string, lineNo: number, file: string): ParsedObservation {
  const where = `${file}:${lineNo}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, rejection: { source: 'journal', reason: 'invalid_json', where, message: `not JSON: ${(e as Error).message}` } };
  }
  try {
    return { ok: true, observation: toObservation(value, 'journal') };
  } catch (e) {
    if (e instanceof ObservationProblem) return { ok: false, rejection: { source: 'journal', reason: e.reason, where, message: e.message } };
    throw e;
  }
}

/** Validates one decoded journal value; shared with every source that accepts journal-shaped JSON. */
export function toObservation(value: unknown, source: ObservationSource): Observation {
  if (!isRecord(value)) throw new ObservationProblem('invalid_record', 'an observation is a JSON object');
  const { time, type } = value;
  if (typeof time !== 'string' || time === '') throw new ObservationProblem('invalid_record', 'time: required RFC 3339 string');
  const timeMs = Date.parse(time);
  if (Number.isNaN(timeMs)) throw new ObservationProblem('invalid_record', `time: ${JSON.stringify(time)} is not an RFC 3339 time`);
  if (type === 'object') {
    const event = value.event;
    if (typeof event !== 'string' || !(OBJECT_EVENTS as readonly string[]).includes(event)) {
      throw new ObservationProblem('invalid_record', `event: must be one of ${OBJECT_EVENTS.join('|')}, got ${JSON.stringify(event)}`);
    }
    return { type, time, timeMs, event: event as ObjectEvent, object: toManagedObject(value.object), source };
  }
  if (type === 'cluster') {
    return { type, time, timeMs, cluster: toHyperFleetResource(value.cluster), source, ...(value.gone === true ? { gone: true } : {}) };
  }
  throw new ObservationProblem('invalid_record', `type: must be "object" or "cluster", got ${JSON.stringify(type)}`);
}

/** The journal line for an observation (what the simulator writes and live sources can tee). */
export function formatObservationLine(o: Observation): string {
  if (o.type === 'object') return JSON.stringify({ time: o.time, type: 'object', event: o.event, object: o.object.raw });
  return JSON.stringify({ time: o.time, type: 'cluster', cluster: o.cluster.raw, ...(o.gone ? { gone: true } : {}) });
}
