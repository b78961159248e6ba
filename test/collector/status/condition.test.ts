import assert from 'node:assert/strict';
import { readCondition, transitionTime, type ConditionState } from '../../../collector/status/condition.js';

const state = (status: string, message: string, lastTransitionTime?: string, reason = 'ReconciliationError'): ConditionState => ({
  status,
  reason,
  message,
  lastTransitionTime,
  observedGeneration: undefined,
});
const SEEN = Date.parse('2026-11-01T12:00:00.500Z');

describe('ReconciliationSucceeded condition', () => {
  it('reads the condition by type, with defaults for missing reason and message', () => {
    const obj = {
      status: {
        conditions: [
          { type: 'Available', status: 'True' },
          { type: 'ReconciliationSucceeded', status: 'False', lastTransitionTime: 't', observedGeneration: 3 },
        ],
      },
    };
    assert.deepEqual(readCondition(obj, 'ReconciliationSucceeded'), {
      condition: { status: 'False', reason: '', message: '', lastTransitionTime: 't', observedGeneration: 3 },
    });
    assert.deepEqual(readCondition({}, 'ReconciliationSucceeded'), { condition: undefined });
    assert.deepEqual(readCondition({ status: { conditions: [] } }, 'ReconciliationSucceeded'), { condition: undefined });
  });

  it('names the malformed field', () => {
    assert.deepEqual(readCondition({ status: { conditions: 'x' } }, 'R'), { problem: 'status.conditions: not a list' });
    assert.deepEqual(readCondition({ status: { conditions: [{}, { type: 'R', status: 'True', message: 5 }] } }, 'R'), {
      problem: 'status.conditions[1].message: not a string',
    });
    assert.deepEqual(readCondition({ status: { conditions: [{ type: 'R', status: 'True', observedGeneration: 1.5 }] } }, 'R'), {
      problem: 'status.conditions[0].observedGeneration: not an integer',
    });
  });

  it('dates a status flip by lastTransitionTime, a text-only change by when it was seen, and no change not at all', () => {
    const failing = state('False', 'm1', '2026-11-01T10:00:00Z');
    assert.deepEqual(transitionTime(undefined, failing, SEEN), {
      time: '2026-11-01T10:00:00Z',
      timeMs: Date.parse('2026-11-01T10:00:00Z'),
      from: 'lastTransitionTime',
    });
    assert.equal(transitionTime(failing, { ...failing }, SEEN), undefined);
    assert.deepEqual(transitionTime(failing, state('False', 'm2', '2026-11-01T10:00:00Z'), SEEN), {
      time: '2026-11-01T12:00:00.500Z',
      timeMs: SEEN,
      from: 'observed',
    });
    assert.deepEqual(transitionTime(failing, state('False', 'm1', '2026-11-01T10:00:00Z', 'Other'), SEEN)?.from, 'observed');
    assert.deepEqual(transitionTime(failing, state('True', 'ok', '2026-11-01T11:00:00Z'), SEEN)?.time, '2026-11-01T11:00:00Z');
    assert.deepEqual(transitionTime(failing, state('False', 'm1', '2026-11-01T11:30:00Z'), SEEN)?.time, '2026-11-01T11:30:00Z', 'two flips while unseen');
    assert.deepEqual(transitionTime(undefined, state('False', 'm1', 'not a time'), SEEN)?.from, 'observed');
  });
});
